#include "app.hpp"

#include <CLI/CLI.hpp>

#include "aaw/runtime.hpp"
#include "check_config_command.hpp"
#include "command_context.hpp"
#include "compare_command.hpp"

namespace aaw::cli {
namespace {

// Without a subcommand the binary behaves as the original script did: compare_pair -> compare and
// exit; otherwise monitoring, which this version does not offer yet.
int run_original_mode(const std::filesystem::path& config_path, Runtime& runtime) {
  Config config = read_config_or_throw(config_path);
  if (config.compare_pair.size() == 2) {
    CompareOptions options;
    options.config_path = config_path;
    options.original_mode = true;
    return run_compare(options, runtime);
  }
  throw CommandError{config_path.string() +
                     ": no compare_pair: continuous monitoring and commit_list replay are not part of this "
                     "version; run 'aiter-api-watcher compare --config " + config_path.string() + " OLD NEW'"};
}

}  // namespace

int run_app(int argc, char** argv) {
  CLI::App app{"aiter-api-watcher: reports every change to the call signatures of the functions you "
               "depend on in a Python library's git history"};
  app.set_version_flag("--version", "aiter-api-watcher 0.1.0");
  std::filesystem::path config_path = "aiter_api_watcher_config.json";
  app.add_option("--config", config_path, "JSON config file")->capture_default_str();
  // Subcommands accept --config after their name too ("compare --config F OLD NEW").
  app.fallthrough();

  CompareOptions compare;
  add_compare_command(app, compare);
  CheckConfigOptions check_config;
  add_check_config_command(app, check_config);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    throw CommandError{e.what()};
  }
  Runtime runtime;
  if (app.got_subcommand("compare")) {
    compare.config_path = config_path;
    return run_compare(compare, runtime);
  }
  if (app.got_subcommand("check-config")) {
    check_config.config_path = config_path;
    return run_check_config(check_config);
  }
  return run_original_mode(config_path, runtime);
}

}  // namespace aaw::cli
