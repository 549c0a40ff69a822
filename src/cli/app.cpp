#include "app.hpp"

#include <CLI/CLI.hpp>

#include "check_config_command.hpp"
#include "command.hpp"
#include "command_context.hpp"
#include "compare_command.hpp"
#include "extract_command.hpp"
#include "history_command.hpp"
#include "report_command.hpp"
#include "status_command.hpp"
#include "watch_command.hpp"

namespace aaw::cli {
namespace {

// Every subcommand, in the order --help lists them.
constexpr AddCommand k_commands[] = {
    add_compare_command,      add_watch_command,   add_replay_command, add_history_command, add_show_command,
    add_check_config_command, add_extract_command, add_status_command, add_report_command,
};

}  // namespace

const CommandRunner* Commands::chosen() const {
  for (const auto& [subcommand, runner] : m_runners)
    if (subcommand->parsed()) return &runner;
  return nullptr;
}

void add_extractor_option(CLI::App* subcommand, std::string& out) {
  subcommand->add_option("--extractor", out, "Override the config's extractor")
      ->check(CLI::IsMember(extractor_names()));
}

int run_app(int argc, char** argv) {
  CLI::App app{
      "aiter-api-watcher: reports every change to the call signatures of the functions you "
      "depend on in a Python library's git history"};
  app.set_version_flag("--version", "aiter-api-watcher 0.1.0");
  AppContext context;
  app.add_option("--config", context.config_path, "JSON config file")->capture_default_str();
  // Subcommands accept --config after their name too ("compare --config F OLD NEW").
  app.fallthrough();
  Commands commands;
  for (AddCommand add : k_commands) add(app, commands);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    throw CommandError{e.what()};
  }
  if (const CommandRunner* run = commands.chosen()) return (*run)(context);
  return run_original_mode(context.config_path, context.runtime);
}

}  // namespace aaw::cli
