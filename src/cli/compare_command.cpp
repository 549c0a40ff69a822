#include "compare_command.hpp"

#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "aaw/core/compare.hpp"
#include "aaw/core/render.hpp"
#include "aaw/io/runtime.hpp"
#include "command_context.hpp"

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

}  // namespace

void add_compare_command(CLI::App& app, Commands& commands) {
  auto shared = std::make_shared<CompareOptions>();
  CompareOptions& options = *shared;
  CLI::App* cmd = app.add_subcommand("compare", "Diff the monitored signatures of two commits, print, exit");
  cmd->add_option("OLD", options.old_revision, "Old commit (SHA, short SHA, branch or tag)")->required();
  cmd->add_option("NEW", options.new_revision, "New commit (SHA, short SHA, branch or tag)")->required();
  cmd->add_option("--format", options.format, "Output format")
      ->check(CLI::IsMember({"text", "json", "markdown"}));
  cmd->add_option("--fail-on", options.fail_on, "Which changes make the exit code 1")
      ->check(CLI::IsMember({"any", "breaking"}));
  add_extractor_option(cmd, options.extractor);
  commands.on(cmd, shared, run_compare);
}

int run_compare(const CompareOptions& options, Runtime& runtime) {
  Config config = read_config_or_throw(options.config_path);
  apply_extractor(config, options.extractor);
  std::string old_rev = options.old_revision.empty() ? config.compare_pair.at(0) : options.old_revision;
  std::string new_rev = options.new_revision.empty() ? config.compare_pair.at(1) : options.new_revision;
  // In text mode the log lines are the output; otherwise stdout carries only the document.
  auto console = options.format == "text" ? ConsoleStream::stdout_stream : ConsoleStream::stderr_stream;
  auto log = open_log_or_throw(config, console);
  log_startup(*log, config, options.original_mode);
  auto mirror = open_mirror_or_throw(config);
  refresh_mirror(*mirror, *log, old_rev, new_rev);
  log->info("Comparing two commits: {} -> {}", old_rev, new_rev);
  auto source = make_source_or_throw(config, *mirror, runtime, *log);
  auto comparison = compare_commits(*mirror, *source, config.functions_to_monitor, old_rev, new_rev);
  if (!comparison) throw CommandError{comparison.error().message()};
  print_result(*comparison, options.format, *log);
  log->info("Exiting after comparing two commits");
  return compare_exit_code(*comparison, options.fail_on == "breaking" ? FailOn::breaking : FailOn::any);
}

}  // namespace aaw::cli
