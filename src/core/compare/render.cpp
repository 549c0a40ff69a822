#include "core/compare/render.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/compare/gate.hpp"
#include "core/compare/job_summary.hpp"
#include "core/model/compiled_binding.hpp"
#include "util/strings.hpp"

namespace aaw {
namespace {

void log_function(Logger& log, const FunctionComparison& f, const Comparison& c) {
  const std::string& name = f.function.function_path;
  if (!f.changes.empty()) {
    log.info("API change detected for {} between {} and {} ({})", name, c.old_commit.hex, c.new_commit.hex,
             to_string(*highest(f.changes)));
    log.info("  old: {}", f.before.summary());
    log.info("  new: {}", f.after.summary());
    for (const std::string& line : binding_sides(f.before, f.after, f.changes)) log.info("  {}", line);
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

std::string markdown_change(const Json& change) {
  std::string line = "- " + change["description"].get<std::string>();
  if (change.value("accepted", false))
    line += " — accepted (" + change["waiver"]["accepted_by"].get<std::string>() + ": " +
            change["waiver"]["reason"].get<std::string>() + ")";
  return line + "\n";
}

// "| old binding | ... |" rows when a change is of the compiled binding (docs/bindings.md).
std::string markdown_binding_rows(const Json& f) {
  std::string out;
  for (const std::string& line : binding_sides(f)) {
    auto colon = line.find(": ");
    out += "| " + line.substr(0, colon) + " | " + markdown_code_cell(line.substr(colon + 2)) + " |\n";
  }
  return out;
}

void markdown_function(std::string& out, const Json& f) {
  const Json& changes = f["changes"];
  std::string highest_severity;
  for (const Json& c : changes) {
    auto severity = parse_severity(c["severity"].get<std::string>());
    if (highest_severity.empty() || *severity > *parse_severity(highest_severity))
      highest_severity = to_string(*severity);
  }
  out += "\n## `" + f["function_path"].get<std::string>() + "`";
  out += changes.empty() ? " — no change\n" : " — " + highest_severity + "\n";
  out += "\nImport: " + markdown_code(f["import_statement"].get<std::string>()) + "\n";
  if (changes.empty() && f["old"] == f["new"]) {
    out += "\nSignature: " + markdown_code(state_summary(f["new"])) + "\n";
    return;
  }
  out += "\n| | signature |\n|---|---|\n";
  out += "| old | " + markdown_code_cell(state_summary(f["old"])) + " |\n";
  out += "| new | " + markdown_code_cell(state_summary(f["new"])) + " |\n";
  out += markdown_binding_rows(f);
  if (!changes.empty()) out += "\n";
  for (const Json& change : changes) out += markdown_change(change);
  if (f.contains("consumer_impact")) {
    auto impact = consumer_impact_from_json(f["consumer_impact"]);
    if (impact) out += markdown_consumer_impact(*impact);
  }
}

}  // namespace

void log_consumer_impact(Logger& log, const ConsumerImpact& impact) {
  if (impact.broken.empty()) log.info("  consumer: {}", impact.summary());
  for (const BrokenCallSite& b : impact.listed()) log.info("  {}", b.describe());
}

std::string markdown_consumer_impact(const ConsumerImpact& impact) {
  std::string out = "\nConsumer: " + impact.summary() + "\n";
  if (impact.listed().empty()) return out;
  out += "\n| verdict | call site | reason |\n|---|---|---|\n";
  for (const BrokenCallSite& b : impact.listed())
    out += "| " + std::string(to_string(b.binding.verdict)) + " | " + markdown_code_cell(location(b.site)) +
           " | " + markdown_code_cell(b.binding.reason) + " |\n";
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
    for (std::size_t i = 0; i < f.changes.size(); ++i) changes[i]["description"] = f.changes[i].describe();
    functions.push_back({{"import_statement", f.function.import_statement},
                         {"function_path", f.function.function_path},
                         {"old", to_json(f.before)},
                         {"new", to_json(f.after)},
                         {"changes", changes}});
    if (f.impact) functions.back()["consumer_impact"] = to_json(*f.impact);
    if (f.old_location) functions.back()["old_location"] = to_json(*f.old_location);
    if (f.new_location) functions.back()["new_location"] = to_json(*f.new_location);
  }
  return {{"old", c.old_commit.hex}, {"new", c.new_commit.hex}, {"functions", functions}};
}

namespace {

Result<FunctionComparison> function_from_json(const Json& f) {
  auto before = state_from_json(f.at("old"));
  if (!before) return before.error();
  auto after = state_from_json(f.at("new"));
  if (!after) return after.error();
  FunctionComparison out{{f.at("import_statement"), f.at("function_path")}, *before, *after, {}};
  for (const Json& c : f.at("changes")) {
    auto change = change_from_json(c);
    if (!change) return change.error();
    out.changes.push_back(*change);
  }
  if (f.contains("consumer_impact")) {
    auto impact = consumer_impact_from_json(f["consumer_impact"]);
    if (!impact) return impact.error();
    out.impact = *impact;
  }
  return out;
}

}  // namespace

Result<Comparison> comparison_from_json(const Json& doc) {
  if (!doc.is_object() || !doc.contains("functions"))
    return Error(ErrorCode::invalid_input, "compare document: expected an object with 'functions'");
  Comparison c{ObjectId{doc.value("old", "")}, ObjectId{doc.value("new", "")}, {}};
  for (const Json& f : doc["functions"]) {
    auto function = function_from_json(f);
    if (!function) return function.error().context("compare document");
    c.functions.push_back(std::move(*function));
  }
  return c;
}

void log_comparison(Logger& log, const Json& document) {
  auto comparison = comparison_from_json(document);
  if (!comparison) {
    log.error("Cannot show the comparison: {}", comparison.error().message());
    return;
  }
  log_comparison(log, *comparison);
}

std::string render_markdown(const Json& doc) {
  const std::string old_hex = doc["old"], new_hex = doc["new"];
  std::string out = "# API changes " + old_hex.substr(0, 12) + " → " + new_hex.substr(0, 12) + "\n\n";
  out += "Old: `" + old_hex + "`  \nNew: `" + new_hex + "`\n\n";
  out += std::to_string(doc["summary"]["changed"].get<int>()) + " of " +
         std::to_string(doc["functions"].size()) + " functions changed.\n";
  for (const Json& error : doc["errors"]) out += "\n**Error:** " + error.get<std::string>() + "\n";
  for (const Json& f : doc["functions"]) markdown_function(out, f);
  return out;
}

std::string render_markdown(const Comparison& c) { return render_markdown(compare_document(c, {})); }

}  // namespace aaw
