#include "aaw/core/render.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "aaw/util/strings.hpp"

namespace aaw {
namespace {

void log_function(Logger& log, const FunctionComparison& f, const Comparison& c) {
  const std::string& name = f.function.function_path;
  if (!f.changes.empty()) {
    log.info("API change detected for {} between {} and {} ({})", name, c.old_commit.hex, c.new_commit.hex,
             to_string(*highest(f.changes)));
    log.info("  old: {}", f.before.summary());
    log.info("  new: {}", f.after.summary());
    for (const Change& change : f.changes) log.info("  {}", change.describe());
    if (f.impact) log_consumer_impact(log, *f.impact);
  } else if (!is_machinery_failure(f.before.status) && !is_machinery_failure(f.after.status)) {
    log.info("No API change for {} between {} and {}", name, c.old_commit.hex, c.new_commit.hex);
  }
}

// The failures of one side of a comparison.
std::vector<ExtractionFailure> failures_at(const Comparison& c, bool before) {
  std::vector<ExtractionFailure> out;
  for (const FunctionComparison& f : c.functions) {
    const SignatureState& state = before ? f.before : f.after;
    if (is_machinery_failure(state.status)) out.push_back({f.function.function_path, state});
  }
  return out;
}

std::string markdown_code(const std::string& text) { return "`` " + text + " ``"; }

// A code span in a table cell: GitHub ends the cell at any '|' (even inside backticks) unless it
// is escaped, and a line break ends the row ("str | None" would cut the signature short).
std::string markdown_cell(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '|')
      escaped += "\\|";
    else if (c == '\n' || c == '\r')
      escaped += ' ';
    else
      escaped += c;
  }
  return markdown_code(escaped);
}

void markdown_function(std::string& out, const FunctionComparison& f) {
  out += "\n## `" + f.function.function_path + "`";
  out += f.changes.empty() ? " — no change\n" : " — " + std::string(to_string(*highest(f.changes))) + "\n";
  out += "\nImport: " + markdown_code(f.function.import_statement) + "\n";
  if (f.changes.empty() && f.before == f.after) {
    out += "\nSignature: " + markdown_code(f.after.summary()) + "\n";
    return;
  }
  out += "\n| | signature |\n|---|---|\n";
  out += "| old | " + markdown_cell(f.before.summary()) + " |\n";
  out += "| new | " + markdown_cell(f.after.summary()) + " |\n";
  if (!f.changes.empty()) out += "\n";
  for (const Change& change : f.changes) out += "- " + change.describe() + "\n";
  if (f.impact) out += markdown_consumer_impact(*f.impact);
}

}  // namespace

void log_consumer_impact(Logger& log, const ConsumerImpact& impact) {
  if (impact.broken.empty()) {
    log.info("  consumer: {}", impact.summary());
    return;
  }
  for (const BrokenCallSite& b : impact.broken) log.info("  {}", b.describe());
}

std::string markdown_consumer_impact(const ConsumerImpact& impact) {
  std::string out = "\nConsumer: " + impact.summary() + "\n";
  if (impact.broken.empty()) return out;
  out += "\n| verdict | call site | reason |\n|---|---|---|\n";
  for (const BrokenCallSite& b : impact.broken)
    out += "| " + std::string(to_string(b.binding.verdict)) + " | " + markdown_cell(location(b.site)) +
           " | " + markdown_cell(b.binding.reason) + " |\n";
  return out;
}

void log_comparison(Logger& log, const Comparison& comparison) {
  for (const FunctionComparison& f : comparison.functions) log_function(log, f, comparison);
  log_extraction_failures(log, comparison.old_commit, failures_at(comparison, true));
  log_extraction_failures(log, comparison.new_commit, failures_at(comparison, false));
}

void log_extraction_failures(Logger& log, const ObjectId& commit,
                             const std::vector<ExtractionFailure>& failures) {
  std::vector<std::pair<std::string, std::vector<std::string>>> by_summary;  // in order of appearance
  for (const ExtractionFailure& f : failures) {
    std::string summary = f.state.summary();
    auto group =
        std::find_if(by_summary.begin(), by_summary.end(), [&](const auto& g) { return g.first == summary; });
    if (group == by_summary.end())
      group = by_summary.emplace(by_summary.end(), summary, std::vector<std::string>());
    group->second.push_back(f.function_path);
  }
  for (const auto& [summary, names] : by_summary)
    log.warn("Could not extract {} at {}: {}", join(names), commit.hex, summary);
}

Json comparison_to_json(const Comparison& c) {
  Json functions = Json::array();
  for (const FunctionComparison& f : c.functions) {
    Json changes = Json::array();
    for (const Change& change : f.changes) changes.push_back(to_json(change));
    functions.push_back({{"import_statement", f.function.import_statement},
                         {"function_path", f.function.function_path},
                         {"old", to_json(f.before)},
                         {"new", to_json(f.after)},
                         {"changes", changes}});
    if (f.impact) functions.back()["consumer_impact"] = to_json(*f.impact);
  }
  return {{"old", c.old_commit.hex}, {"new", c.new_commit.hex}, {"functions", functions}};
}

std::string render_markdown(const Comparison& c) {
  size_t changed = 0;
  for (const FunctionComparison& f : c.functions) changed += f.changes.empty() ? 0 : 1;
  std::string out = "# API changes " + c.old_commit.short_hex() + " → " + c.new_commit.short_hex() + "\n\n";
  out += "Old: `" + c.old_commit.hex + "`  \nNew: `" + c.new_commit.hex + "`\n\n";
  out += std::to_string(changed) + " of " + std::to_string(c.functions.size()) + " functions changed.\n";
  for (const FunctionComparison& f : c.functions) markdown_function(out, f);
  return out;
}

}  // namespace aaw
