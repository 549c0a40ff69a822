#include "cli/compare/compare_command.hpp"

#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/command_context.hpp"
#include "cli/compare/compare_gate.hpp"
#include "cli/consumer/consumer_session.hpp"
#include "cli/watch/startup_lookup.hpp"
#include "core/compare/compare.hpp"
#include "core/compare/gate.hpp"
#include "core/compare/render.hpp"
#include "extract/static/static_function_finder.hpp"
#include "io/git/libgit2_mirror.hpp"
#include "io/runtime.hpp"
#include "util/time.hpp"

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

// The mirror of the config's repository (fetched when a revision needs it), or with --repo the
// repository there, read as it is.
std::unique_ptr<GitMirror> open_repository(const CompareOptions& options, const Config& config, Logger& log) {
  if (!options.repo_path.empty()) {
    auto checkout = open_checkout(options.repo_path);
    if (!checkout)
      throw CommandError{"--repo '" + options.repo_path.string() + "': " + checkout.error().message()};
    return std::move(*checkout);
  }
  auto mirror = open_mirror_or_throw(config, &log);
  refresh_mirror(*mirror, log, options.old_revision, options.new_revision);
  return mirror;
}

// OLD, or with --merge-base the merge base of BASE (OLD) and HEAD (NEW): what a pull request changes.
std::string old_end(const CompareOptions& options, GitMirror& mirror, Logger& log) {
  if (!options.merge_base) return options.old_revision;
  auto base = mirror.resolve(options.old_revision);
  if (!base) throw CommandError{"base '" + options.old_revision + "': " + base.error().message()};
  auto head = mirror.resolve(options.new_revision);
  if (!head) throw CommandError{"head '" + options.new_revision + "': " + head.error().message()};
  auto merge_base = value_or_throw(mirror.merge_base(*base, *head));
  if (!merge_base)
    throw CommandError{"--merge-base '" + options.old_revision + "' '" + options.new_revision +
                       "': the two commits share no history"};
  log.info("Merge base of {} and {}: {}", options.old_revision, options.new_revision, merge_base->hex);
  return merge_base->hex;
}

// Where each changed function's def is, for SARIF and annotations; a failure only costs the locations.
void locate(Comparison& comparison, GitMirror& mirror, const Config& config, Runtime& runtime, Logger& log) {
  StaticFunctionFinder locator(mirror, runtime.python(), config.static_extraction);
  auto located = locate_changes(comparison, locator);
  if (!located) log.warn("Cannot locate the changed functions' definitions: {}", located.error().message());
}

GateOptions gate_options(const CompareOptions& options, const Config& config, GitMirror& mirror,
                         const Comparison& comparison) {
  GateOptions gate;
  gate.levels = {config.gate.levels, options.fail_on == "breaking" ? FailOn::breaking : FailOn::any};
  gate.waivers =
      find_waivers(options.waivers_path, config, options.config_path, mirror, comparison.new_commit);
  gate.now = epoch_seconds(std::chrono::system_clock::now());
  gate.strict_waivers = options.strict_waivers;
  gate.range = {options.old_revision, options.new_revision, options.merge_base};
  return gate;
}

void print_result(const Comparison& comparison, const Json& document, const CompareOptions& options,
                  Logger& log) {
  if (options.suggest_waivers)
    std::cout << suggest_waivers(comparison, document).dump(2) << "\n";
  else
    std::cout << render_document(document, options.format);
  if (!options.summary_path.empty()) append_job_summary(options.summary_path, document);
  if (!options.sarif_path.empty())
    write_output(options.sarif_path, render_document(document, "sarif"), "SARIF");
  log_comparison(log, document);
  log_gate(log, document);
}

// With a consumer configured, the call sites each change breaks; the error (after saying why) when
// the consumer cannot be read: the comparison still prints, and its document says what is missing.
std::optional<std::string> assess_impact(Comparison& comparison, const Config& config, Runtime& runtime,
                                         Logger& log) {
  auto consumer = ConsumerSession::open(config, runtime, log);
  if (consumer && *consumer) {
    auto assessed = assess_consumer_impact(comparison, (*consumer)->assessor());
    if (assessed) return std::nullopt;
    consumer = assessed.error();
  }
  if (consumer) return std::nullopt;
  log.error("Cannot tell what the changes break in the consumer: {}", consumer.error().message());
  return "cannot tell what the changes break in the consumer: " + consumer.error().message();
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
  cmd->add_option(
         "--format", options.format,
         "Output format: text (log lines), json (the compare document), markdown, sarif (SARIF 2.1.0 "
         "for code scanning), github (workflow command annotations)")
      ->check(CLI::IsMember({"text", "json", "markdown", "sarif", "github"}))
      ->capture_default_str();
  cmd->add_option("--summary", options.summary_path,
                  "Append a Markdown job summary to FILE (e.g. \"$GITHUB_STEP_SUMMARY\")");
  cmd->add_option("--sarif", options.sarif_path,
                  "Also write the SARIF 2.1.0 output to FILE (one run gives annotations, summary and SARIF)");
  cmd->add_option(
      "--waivers", options.waivers_path,
      "Waivers file to use (default: the config's `waivers`, else .aiter-api-watcher-waivers.json "
      "in NEW's tree, else next to the config)");
  cmd->add_flag("--strict-waivers", options.strict_waivers, "Fail (exit 1) when a waiver matches no change");
  cmd->add_flag("--suggest-waivers", options.suggest_waivers,
                "Print waiver entries for the changes not accepted yet (to paste, with a reason) instead of "
                "the output");
  cmd->add_flag(
      "--merge-base", options.merge_base,
      "OLD is a base branch: compare NEW with its merge base with OLD (what a pull request changes)");
  cmd->add_option(
         "--repo", options.repo_path,
         "Read the repository at PATH as it is (a checkout such as '.', or a bare repository) instead "
         "of the mirror: nothing is fetched or written there")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--fail-on", options.fail_on, "Which changes make the exit code 1")
      ->check(CLI::IsMember({"any", "breaking"}))
      ->capture_default_str();
  add_extractor_option(cmd, options.extractor);
  cmd->footer(
      "Exit codes: 0 nothing fails the gate; 1 a change at level deny that no waiver accepts (every change "
      "with "
      "--fail-on any, breaking ones with --fail-on breaking, unless the config's `levels` says otherwise), "
      "or an "
      "unused waiver with --strict-waivers; 2 an error, a function not found at either commit, or a function "
      "that could not be extracted on one side.");
  commands.on(cmd, shared, run_compare);
}

int run_compare(const CompareOptions& options, Runtime& runtime) {
  Config config = read_config_or_throw(options.config_path);
  apply_extractor(config, options.extractor);
  // In text mode the log lines are the output; otherwise stdout carries only the document.
  const bool to_stdout = options.format == "text" && !options.suggest_waivers;
  auto log = open_log_or_throw(
      config, to_stdout ? ConsoleStream::stdout_stream : ConsoleStream::stderr_stream, to_stdout);
  log_startup(*log, config, options.original_mode);
  auto mirror = open_repository(options, config, *log);
  const std::string old_rev = old_end(options, *mirror, *log);
  const std::string& new_rev = options.new_revision;
  log->info("Comparing two commits: {} -> {}", old_rev, new_rev);
  auto source = make_source_or_throw(config, *mirror, runtime, *log);
  auto comparison = compare_commits(*mirror, *source, config.functions_to_monitor, old_rev, new_rev);
  if (!comparison) throw CommandError{comparison.error().message()};
  // Missing on both sides is "no change": only a lookup tells a misspelt function from a quiet one.
  const std::vector<NamedCommit> ends = {{"'" + new_rev + "'", comparison->new_commit},
                                         {"'" + old_rev + "'", comparison->old_commit}};
  auto unfound = unfound_in(*comparison, unfound_at(config.functions_to_monitor, config.static_extraction,
                                                    *mirror, runtime, ends, *log));
  GateOptions gate = gate_options(options, config, *mirror, *comparison);
  for (const UnfoundFunction& u : unfound) gate.errors.push_back(u.describe());
  if (auto missing = assess_impact(*comparison, config, runtime, *log)) gate.errors.push_back(*missing);
  locate(*comparison, *mirror, config, runtime, *log);
  Json document = compare_document(*comparison, gate);
  print_result(*comparison, document, options, *log);
  for (const UnfoundFunction& u : unfound) log->error("{}", u.describe());
  log->info("Exiting after comparing two commits");
  // The document and the process agree: it carries the exit code, and the errors behind a 2.
  return document["exit_code"].get<int>();
}

}  // namespace aaw::cli
