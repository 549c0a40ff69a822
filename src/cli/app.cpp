#include "app.hpp"

#include <CLI/CLI.hpp>

#include "aaw/io/runtime.hpp"
#include "check_config_command.hpp"
#include "command_context.hpp"
#include "compare_command.hpp"
#include "extract_command.hpp"
#include "history_command.hpp"
#include "status_command.hpp"
#include "watch_command.hpp"

namespace aaw::cli {

int run_app(int argc, char** argv) {
  CLI::App app{
      "aiter-api-watcher: reports every change to the call signatures of the functions you "
      "depend on in a Python library's git history"};
  app.set_version_flag("--version", "aiter-api-watcher 0.1.0");
  std::filesystem::path config_path = "aiter_api_watcher_config.json";
  app.add_option("--config", config_path, "JSON config file")->capture_default_str();
  // Subcommands accept --config after their name too ("compare --config F OLD NEW").
  app.fallthrough();

  CompareOptions compare;
  add_compare_command(app, compare);
  WatchOptions watch;
  add_watch_command(app, watch);
  WatchOptions replay;
  add_replay_command(app, replay);
  HistoryOptions history;
  add_history_command(app, history);
  ShowOptions show;
  add_show_command(app, show);
  CheckConfigOptions check_config;
  add_check_config_command(app, check_config);
  ExtractOptions extract;
  add_extract_command(app, extract);
  StatusOptions status;
  add_status_command(app, status);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    throw CommandError{e.what()};
  }
  Runtime runtime;
  compare.config_path = watch.config_path = replay.config_path = config_path;
  history.config_path = show.config_path = check_config.config_path = status.config_path = config_path;
  if (app.got_subcommand("compare")) return run_compare(compare, runtime);
  if (app.got_subcommand("watch")) return run_watch(watch, runtime);
  if (app.got_subcommand("replay")) return run_replay(replay, runtime);
  if (app.got_subcommand("history")) return run_history(history);
  if (app.got_subcommand("show")) return run_show(show, runtime);
  if (app.got_subcommand("check-config")) return run_check_config(check_config);
  if (app.got_subcommand("__extract")) return run_extract(extract, runtime);
  if (app.got_subcommand("status")) return run_status(status);
  return run_original_mode(config_path, runtime);
}

}  // namespace aaw::cli
