#include "compare_command.hpp"

#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "aaw/core/compare.hpp"
#include "aaw/core/render.hpp"
#include "aaw/io/runtime.hpp"
#include "command_context.hpp"
#include "consumer_session.hpp"
#include "function_check.hpp"

namespace aaw::cli {
namespace {

bool is_full_sha(const std::string& revision) {
  return revision.size() == 40 && revision.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
}

// Commits are immutable: two full SHAs already in the mirror need no fetch, so a compare of known
// commits works while the remote is down. Anything else (a branch, a short SHA) fetches first.
void refresh_mirror(GitMirror& mirror, Logger& log, const std::string& old_rev, const std::string& new_rev) {
  if (is_full_sha(old_rev) && is_full_sha(new_rev) && mirror.resolve(old_rev) && mirror.resolve(new_rev))
    return;
  log.info("Fetching {}", mirror.display_url());
  auto fetched = mirror.fetch();
  if (!fetched) throw CommandError{fetched.error().message()};
}

// The functions the static lookup found at neither commit and the extractor did not find either:
// a runtime extractor sees what compiled modules define, which no static reading can.
std::vector<UnfoundFunction> unfound_in(const Comparison& comparison, std::vector<UnfoundFunction> unfound) {
  std::erase_if(unfound, [&](const UnfoundFunction& u) {
    return std::any_of(
        comparison.functions.begin(), comparison.functions.end(), [&](const FunctionComparison& f) {
          return f.function == u.function && (f.before.status == Status::ok || f.after.status == Status::ok);
        });
  });
  return unfound;
}

void log_startup(Logger& log, const Config& config, bool original_mode) {
  log.info("Starting aiter API watcher");
  log.info("Monitoring {} functions", config.functions_to_monitor.size());
  if (!original_mode) return;
  log.info("Check interval: {} seconds", config.check_interval_seconds);
  log.info("Checking for API changes...");
}

void print_result(const Comparison& comparison, const std::string& format, Logger& log) {
  if (format == "json") {
    std::cout << comparison_to_json(comparison).dump(2) << "\n";
  } else if (format == "markdown") {
    std::cout << render_markdown(comparison);
  }
  log_comparison(log, comparison);
}

// With a consumer configured, the call sites each change breaks; false (after saying why) when the
// consumer cannot be read: the comparison still prints, the exit code says something is missing.
bool assess_impact(Comparison& comparison, const Config& config, Runtime& runtime, Logger& log) {
  auto consumer = ConsumerSession::open(config, runtime, log);
  if (consumer && *consumer) {
    auto assessed = assess_consumer_impact(comparison, (*consumer)->assessor());
    if (assessed) return true;
    consumer = assessed.error();
  }
  if (consumer) return true;
  log.error("Cannot tell what the changes break in the consumer: {}", consumer.error().message());
  return false;
}

}  // namespace

void add_compare_command(CLI::App& app, Commands& commands) {
  auto shared = std::make_shared<CompareOptions>();
  CompareOptions& options = *shared;
  CLI::App* cmd = app.add_subcommand("compare", "Diff the monitored signatures of two commits, print, exit");
  cmd->add_option("OLD", options.old_revision,
                  "Old commit: anything git rev-parse takes (SHA, branch, tag, main~5)")
      ->required();
  cmd->add_option("NEW", options.new_revision, "New commit, the same way")->required();
  cmd->add_option("--format", options.format, "Output format")
      ->check(CLI::IsMember({"text", "json", "markdown"}))
      ->capture_default_str();
  cmd->add_option("--fail-on", options.fail_on, "Which changes make the exit code 1")
      ->check(CLI::IsMember({"any", "breaking"}))
      ->capture_default_str();
  add_extractor_option(cmd, options.extractor);
  cmd->footer(
      "Exit codes: 0 no change; 1 changes found (only breaking ones with --fail-on breaking); 2 an error, a "
      "function not found at either commit, or a function that could not be extracted on one side.");
  commands.on(cmd, shared, run_compare);
}

int run_compare(const CompareOptions& options, Runtime& runtime) {
  Config config = read_config_or_throw(options.config_path);
  apply_extractor(config, options.extractor);
  const std::string& old_rev = options.old_revision;
  const std::string& new_rev = options.new_revision;
  // In text mode the log lines are the output; otherwise stdout carries only the document.
  auto console = options.format == "text" ? ConsoleStream::stdout_stream : ConsoleStream::stderr_stream;
  auto log = open_log_or_throw(config, console);
  log_startup(*log, config, options.original_mode);
  auto mirror = open_mirror_or_throw(config, log.get());
  refresh_mirror(*mirror, *log, old_rev, new_rev);
  log->info("Comparing two commits: {} -> {}", old_rev, new_rev);
  auto source = make_source_or_throw(config, *mirror, runtime, *log);
  auto comparison = compare_commits(*mirror, *source, config.functions_to_monitor, old_rev, new_rev);
  if (!comparison) throw CommandError{comparison.error().message()};
  // Missing on both sides is "no change": only a lookup tells a misspelt function from a quiet one.
  const std::vector<NamedCommit> ends = {{"'" + new_rev + "'", comparison->new_commit},
                                         {"'" + old_rev + "'", comparison->old_commit}};
  auto unfound = unfound_in(*comparison, unfound_at(config.functions_to_monitor, config.static_extraction,
                                                    *mirror, runtime, ends, *log));
  bool assessed = assess_impact(*comparison, config, runtime, *log);
  print_result(*comparison, options.format, *log);
  for (const UnfoundFunction& u : unfound) log->error("{}", u.describe());
  log->info("Exiting after comparing two commits");
  if (!unfound.empty() || !assessed) return k_exit_error;
  return compare_exit_code(*comparison, options.fail_on == "breaking" ? FailOn::breaking : FailOn::any);
}

}  // namespace aaw::cli
