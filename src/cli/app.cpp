#include "cli/app.hpp"

#include <CLI/CLI.hpp>

#include "cli/command.hpp"
#include "cli/command_context.hpp"
#include "cli/compare/compare_command.hpp"
#include "cli/completion_command.hpp"
#include "cli/consumer/consumer_check_command.hpp"
#include "cli/consumer/discover_command.hpp"
#include "cli/extract_command.hpp"
#include "cli/helper_commands.hpp"
#include "cli/man_page.hpp"
#include "cli/query/history_command.hpp"
#include "cli/query/report_command.hpp"
#include "cli/query/status_command.hpp"
#include "cli/watch/check_config_command.hpp"
#include "cli/watch/watch_command.hpp"
#include "io/posix/process_hardening_posix.hpp"
#include "util/strings.hpp"

namespace aaw::cli {
namespace {

// Every subcommand, in the order --help lists them.
constexpr AddCommand k_commands[] = {
    add_compare_command,    add_watch_command,        add_replay_command,         add_history_command,
    add_show_command,       add_check_config_command, add_extract_command,        add_status_command,
    add_report_command,     add_discover_command,     add_check_command,          add_completion_command,
    add_git_helper_command, add_checkout_command,     add_summary_worker_command, add_man_page_command,
};

constexpr const char* k_config_help = "JSON config file (relative paths in it are relative to its directory)";

// Each visible subcommand lists --config in its own --help too (it is read either side of the
// subcommand's name), with the default.
void add_config_to_subcommands(CLI::App& app, std::filesystem::path& config_path) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App* s) { return !s->get_group().empty(); }))
    sub->add_option("--config", config_path, k_config_help)->default_str(config_path.string());
}

// The visible subcommands' names, and the long options of `app` and of the subcommand parsed.
std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : visible_subcommands(app)) names.push_back(sub->get_name());
  return names;
}

std::vector<std::string> option_names(CLI::App& app) {
  std::vector<std::string> names;
  std::vector<CLI::App*> apps = {&app};
  for (CLI::App* sub : app.get_subcommands()) apps.push_back(sub);  // those parsed so far
  for (CLI::App* a : apps)
    for (const CLI::Option* option : a->get_options())
      for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  return names;
}

// CLI11's "The following argument was not expected: X" in our words: an unknown command or option,
// with the closest one when it looks like a slip.
std::string parse_error_message(CLI::App& app, const CLI::ParseError& error) {
  const std::string what = error.what();
  // "--config: At Most 1 required but received 2": an option given twice.
  constexpr std::string_view k_twice = ": At Most 1 required but received ";
  if (auto at = what.find(k_twice); at != std::string::npos)
    return what.substr(0, at) + ": given " + what.substr(at + k_twice.size()) + " times; give it once";
  if (dynamic_cast<const CLI::ExtrasError*>(&error) == nullptr) return what;
  std::string word = what.substr(what.rfind(": ") + 2);
  word = word.substr(0, word.find(' '));  // the first of several
  const bool option = word.rfind("-", 0) == 0;
  const std::string name = option ? word.substr(0, word.find('=')) : word;
  if (!option) {
    // After a command: one argument more than it takes (compare A B C), not a command.
    for (const CLI::App* sub : app.get_subcommands())
      if (sub->parsed())
        return "unexpected argument '" + name + "' for '" + sub->get_name() + "' (see " + sub->get_name() +
               " --help)";
  }
  std::string suggestion = closest_match(name, option ? option_names(app) : command_names(app));
  std::string message = std::string(option ? "unknown option '" : "unknown command '") + name + "'";
  if (!suggestion.empty()) return message + ", did you mean '" + suggestion + "'?";
  return message + (option ? " (see --help)" : " (commands: see --help)");
}

}  // namespace

std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
  std::vector<const CLI::App*> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
    out.push_back(sub);
  return out;
}

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
  // Before any thread or child exists: builds and imports run as this user, and must find neither
  // the token in our environment nor a way into our memory.
  forbid_inspection();
  environment_token();
  CLI::App app{
      "aiter-api-watcher: reports every change to the call signatures of the functions you "
      "depend on in a Python library's git history"};
  app.set_version_flag("--version", std::string("aiter-api-watcher ") + k_version);
  AppContext context;
  app.add_option("--config", context.config_path, k_config_help)->default_str(context.config_path.string());
  ConsoleSettings console;
  app.add_option("--log-level", console.log_level,
                 "Log level of the console and the log file, over the config's log.level")
      ->check(CLI::IsMember(log_levels()))
      ->option_text("LEVEL");
  app.add_flag("-q,--quiet", console.quiet,
               "Only warnings and errors on the console, no progress line (the log file keeps its level; "
               "compare's verdict and documents are still printed)");
  // Subcommands accept the options before their name too ("--config F compare OLD NEW").
  app.fallthrough();
  Commands commands;
  for (AddCommand add : k_commands) add(app, commands);
  add_config_to_subcommands(app, context.config_path);
  // After the subcommands: they would inherit it.
  app.footer(
      "Without a subcommand, runs as the original script did: compare_pair -> compare, commit_list -> replay "
      "then monitor, else monitor. Each subcommand's --help lists its exit codes.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    throw CommandError{parse_error_message(app, e)};
  }
  set_console_settings(std::move(console));
  if (const CommandRunner* run = commands.chosen()) return (*run)(context);
  return run_original_mode(context.config_path, context.runtime);
}

}  // namespace aaw::cli
