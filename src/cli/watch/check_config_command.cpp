#include "cli/watch/check_config_command.hpp"

#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/command_context.hpp"
#include "cli/watch/notification_service.hpp"
#include "cli/watch/startup_lookup.hpp"
#include "core/compare/waivers.hpp"
#include "core/model/state_dir.hpp"
#include "extract/static/static_function_finder.hpp"
#include "notify/channel_registry.hpp"
#include "util/url.hpp"

namespace aaw::cli {
namespace {

void print_summary(const Config& config, const std::filesystem::path& path) {
  std::cout << "config: " << path.string() << "\n"
            << "repository: " << redact_url(config.repository_url) << " (branch " << config.branch << ")\n"
            << "extractor: " << config.extractor << "\n"
            << "state_dir: " << config.state_dir.string() << "\n"
            << "log file: " << (config.log.file.empty() ? "none" : config.log.file) << "\n";
  std::string targets;
  for (const NotificationTarget& t : builtin_channels().targets(config.notify))
    targets +=
        (targets.empty() ? "" : ", ") + t.name + " (" + std::string(to_string(t.min_severity)) + " and up)";
  std::cout << "notify: " << (targets.empty() ? "none" : targets) << "\n";
  if (config.compare_pair.size() == 2)
    std::cout << "mode: compare " << config.compare_pair[0] << " " << config.compare_pair[1] << "\n";
  else if (!config.commit_list.empty())
    std::cout << "mode: replay " << config.commit_list.size() << " commits, then monitor\n";
}

// The commit to look at: --at, else the branch head. A branch the mirror lacks is asked of the
// remote, whose answer names the branches it has.
NamedCommit commit_to_check(GitMirror& mirror, const Config& config, const std::string& at) {
  if (!at.empty()) {
    auto commit = mirror.resolve(at);
    if (!commit) throw CommandError{"--at '" + at + "': " + commit.error().message()};
    return {"'" + at + "'", *commit};
  }
  // Continuous mode follows a branch: a tag or a commit id that resolves here is no branch to it.
  // One question to the remote serves both that and, when the mirror lacks the branch, the error.
  auto remote = mirror.remote_head(config.branch);
  if (!remote && remote.error().code() == ErrorCode::not_found) throw CommandError{remote.error().message()};
  auto commit = mirror.resolve("refs/heads/" + config.branch);
  if (!commit) commit = mirror.resolve(config.branch);
  if (commit) return {"branch '" + config.branch + "'", *commit};
  throw CommandError{remote ? "branch '" + config.branch + "': " + commit.error().message()
                            : remote.error().message()};
}

// The commits and files the config names that watch, replay, compare or check would refuse at
// their start: refused here first, naming the key.
void check_references(GitMirror& mirror, const Config& config) {
  std::vector<std::pair<std::string, std::string>> revisions = {
      {"start_commit", config.start_commit},
      {"last_checked_commit", config.last_checked_commit},
      {"consumer.pinned_commit", config.consumer.pinned_commit}};
  for (std::size_t i = 0; i < config.commit_list.size(); ++i)
    revisions.emplace_back("commit_list[" + std::to_string(i) + "]", config.commit_list[i]);
  for (std::size_t i = 0; i < config.compare_pair.size(); ++i)
    revisions.emplace_back("compare_pair[" + std::to_string(i) + "]", config.compare_pair[i]);
  for (const auto& [key, revision] : revisions) {
    if (revision.empty()) continue;
    if (auto commit = mirror.resolve(revision); !commit)
      throw CommandError{key + " '" + revision + "': " + commit.error().message()};
  }
  if (!config.gate.waivers.empty()) value_or_throw(load_waivers(config.gate.waivers));
  if (!config.consumer.path.empty() && !std::filesystem::is_directory(config.consumer.path))
    throw CommandError{"consumer.path '" + config.consumer.path + "': no such directory"};
}

const char* verdict_name(FunctionLookup::Verdict verdict) {
  switch (verdict) {
    case FunctionLookup::Verdict::found:
      return "ok       ";
    case FunctionLookup::Verdict::not_found:
      return "NOT FOUND";
    case FunctionLookup::Verdict::unknown:
      return "unknown  ";
  }
  return "";
}

// One line per function; the ones not found also on stderr: errors, or warnings when the extractor
// may find what the static view does not. Returns how many errors.
std::size_t report(const std::vector<MonitoredFunction>& functions,
                   const std::vector<FunctionLookup>& lookups, const NamedCommit& at, bool definitive) {
  std::string where = at.label + " (" + at.commit.short_hex() + ")";
  std::cout << "functions (" << functions.size() << ") at " << where << ":\n";
  std::size_t unfound = 0;
  for (std::size_t i = 0; i < functions.size(); ++i) {
    const FunctionLookup& lookup = lookups[i];
    std::cout << "  " << verdict_name(lookup.verdict) << " " << functions[i].function_path << "  ["
              << functions[i].import_statement << "]";
    if (lookup.verdict == FunctionLookup::Verdict::unknown)
      std::cout << ": " << lookup.detail << " (the static view cannot tell; the runtime extractor may)";
    std::cout << "\n";
    if (lookup.verdict != FunctionLookup::Verdict::not_found) continue;
    std::string described = UnfoundFunction{functions[i], lookup, where}.describe();
    if (!definitive) {
      std::cerr << "aiter-api-watcher: warning: " << described << " (" << k_static_blind_spot << ")\n";
      continue;
    }
    ++unfound;
    std::cerr << "aiter-api-watcher: error: " << described << "\n";
  }
  return unfound;
}

}  // namespace

void add_check_config_command(CLI::App& app, Commands& commands) {
  auto shared = std::make_shared<CheckConfigOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check-config",
      "Validate the config and look every monitored function up at the branch head (nothing is built)");
  cmd->add_option(
      "--at", shared->at,
      "Look the functions up at this commit instead of the branch head (any revision git rev-parse "
      "accepts: SHA, branch, tag, main~5, ...)");
  cmd->footer(
      "Exit codes: 0 valid, every function found; 2 an invalid config, or one watch, replay, compare or "
      "check would refuse (only_if_consumer_breaks without a consumer, a state_dir recorded for another "
      "repository, a branch that is not one, a commit of start_commit, last_checked_commit, commit_list, "
      "compare_pair or consumer.pinned_commit that does not resolve, a waivers file that does not read, a "
      "consumer.path that is not there), or a function not found.");
  commands.on(cmd, shared, run_check_config);
}

int run_check_config(const CheckConfigOptions& options, Runtime& runtime) {
  Config config = read_config_or_throw(options.config_path);
  // A token file that cannot be read would fail the daemon at its first notification, not here.
  if (!config.github.token_file.empty()) read_token_file(config.github.token_file);
  // What watch would refuse before reaching the repository, refused here too.
  notification_targets_or_throw(config);
  if (std::filesystem::is_directory(config.state_dir))
    open_recorded_store(StateDir(config.state_dir), config);
  print_summary(config, options.config_path);
  // Progress (a first clone, a failed fetch) on stderr only: stdout is the report.
  LogConfig console_only = effective_log_config(config);
  console_only.file.clear();
  auto log = value_or_throw(make_logger(console_only, ConsoleStream::stderr_stream, console_level()));
  auto mirror = open_mirror_or_throw(config, log.get());
  if (auto fetched = mirror->fetch(); !fetched)
    log->warn("{}; looking the functions up in the mirror as it is", fetched.error().message());
  check_references(*mirror, config);
  NamedCommit at = commit_to_check(*mirror, config, options.at);
  StaticFunctionFinder finder(*mirror, runtime.python(), config.static_extraction);
  auto lookups = value_or_throw(finder.lookup(at.commit, config.functions_to_monitor));
  std::size_t unfound =
      report(config.functions_to_monitor, lookups, at, statically_definitive(config.extractor));
  if (unfound > 0) {
    std::cout << unfound << " of " << config.functions_to_monitor.size() << " functions not found\n";
    return k_exit_error;
  }
  std::cout << "ok\n";
  return 0;
}

}  // namespace aaw::cli
