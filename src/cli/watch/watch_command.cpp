#include "cli/watch/watch_command.hpp"

#include <CLI/CLI.hpp>
#include <memory>

#include "cli/command_context.hpp"
#include "cli/compare/compare_command.hpp"
#include "cli/watch/watch_session.hpp"

namespace aaw::cli {
namespace {

void add_common(CLI::App* cmd, WatchOptions& options) {
  cmd->add_flag("--once", options.once, "Process what is pending, then exit instead of monitoring");
  add_extractor_option(cmd, options.extractor);
}

// Replays `commits`, then monitors unless `once`. Exit code 2 when a commit could not be replayed;
// with `once`, k_exit_interrupted when a stop request cut the replay short.
int replay_then_watch(const Config& config, const std::vector<std::string>& commits, bool once,
                      Runtime& runtime) {
  WatchSession session(config, runtime);
  session.check_functions_when_ready(commits);
  if (!once) session.start_notifications();
  int unresolved = session.watcher().replay(commits);
  session.refresh_report();
  if (once) {
    session.flush_notifications();
    if (unresolved) return k_exit_error;
    return session.watcher().interrupted() ? k_exit_interrupted : 0;
  }
  int code = session.watcher().run(false);
  return unresolved ? k_exit_error : code;
}

}  // namespace

void add_watch_command(CLI::App& app, Commands& commands) {
  auto shared = std::make_shared<WatchOptions>();
  CLI::App* cmd = app.add_subcommand("watch", "Monitor the branch and record every signature change");
  add_common(cmd, *shared);
  cmd->footer(
      "Exit codes: 0 stopped by SIGTERM/SIGINT, or --once done; 2 an error: a bad config, no such branch or "
      "start_commit, another writer on the state_dir, or with --once an unreachable remote or a commit that "
      "could not be processed (recorded with its error; the others are processed); 3 --once "
      "interrupted by SIGTERM/SIGINT before everything pending was processed (what was processed is kept: "
      "run "
      "it again to resume).");
  commands.on(cmd, shared, run_watch);
}

void add_replay_command(CLI::App& app, Commands& commands) {
  auto shared = std::make_shared<WatchOptions>();
  CLI::App* cmd = app.add_subcommand("replay", "Process these commits in order, then monitor");
  cmd->add_option("COMMITS", shared->commits,
                  "Commits (anything git rev-parse takes), oldest first (default: the config's commit_list)");
  add_common(cmd, *shared);
  cmd->footer(
      "Exit codes: 0 replayed (and, without --once, stopped by SIGTERM/SIGINT); 2 an error, or a commit that "
      "could not be resolved or processed (the others are processed); 3 --once interrupted by SIGTERM/SIGINT "
      "before the "
      "last commit (what was processed is kept: run it again to resume).");
  commands.on(cmd, shared, run_replay);
}

int run_watch(const WatchOptions& options, Runtime& runtime) {
  Config config = read_config_or_throw(options.config_path);
  apply_extractor(config, options.extractor);
  WatchSession session(config, runtime);
  session.check_functions_when_ready();
  if (!options.once) {
    session.start_notifications();
    return session.watcher().run(false);
  }
  int code = session.watcher().run(true);
  session.flush_notifications();
  return code;
}

int run_replay(const WatchOptions& options, Runtime& runtime) {
  Config config = read_config_or_throw(options.config_path);
  apply_extractor(config, options.extractor);
  const std::vector<std::string>& commits = options.commits.empty() ? config.commit_list : options.commits;
  if (commits.empty())
    throw CommandError{"replay: no commits to replay: give them as arguments, or set commit_list in '" +
                       options.config_path.string() + "'"};
  return replay_then_watch(config, commits, options.once, runtime);
}

int run_original_mode(const std::filesystem::path& config_path, Runtime& runtime) {
  Config config = read_config_or_throw(config_path);
  if (config.compare_pair.size() == 2) {
    CompareOptions options;
    options.config_path = config_path;
    options.original_mode = true;
    options.old_revision = config.compare_pair[0];
    options.new_revision = config.compare_pair[1];
    return run_compare(options, runtime);
  }
  apply_extractor(config, "");
  if (!config.commit_list.empty()) return replay_then_watch(config, config.commit_list, false, runtime);
  WatchSession session(config, runtime);
  session.check_functions_when_ready();
  session.start_notifications();
  return session.watcher().run(false);
}

}  // namespace aaw::cli
