#include "core/compare/compare.hpp"

#include <functional>

namespace aaw {
namespace {

using StatesAt = std::function<Result<std::vector<SignatureState>>(const ObjectId&)>;

Result<Comparison> compare_with(GitMirror& mirror, const std::vector<MonitoredFunction>& functions,
                                std::string_view old_revision, std::string_view new_revision,
                                const StatesAt& states_of) {
  auto old_commit = mirror.resolve(old_revision);
  if (!old_commit) return old_commit.error().context("old commit '" + std::string(old_revision) + "'");
  auto new_commit = mirror.resolve(new_revision);
  if (!new_commit) return new_commit.error().context("new commit '" + std::string(new_revision) + "'");
  auto before = states_of(*old_commit);
  if (!before) return before.error().context("reading " + old_commit->hex);
  auto after = states_of(*new_commit);
  if (!after) return after.error().context("reading " + new_commit->hex);
  Comparison comparison{*old_commit, *new_commit, {}};
  for (size_t i = 0; i < functions.size(); ++i) {
    auto changes = diff_states((*before)[i], (*after)[i]);
    comparison.functions.push_back({functions[i], (*before)[i], (*after)[i], std::move(changes)});
  }
  return comparison;
}

}  // namespace

std::vector<const FunctionComparison*> Comparison::failures() const {
  std::vector<const FunctionComparison*> out;
  for (const FunctionComparison& f : functions)
    if (is_machinery_failure(f.before.status) || is_machinery_failure(f.after.status)) out.push_back(&f);
  return out;
}

Result<Comparison> compare_commits(GitMirror& mirror, SignatureSource& source,
                                   const std::vector<MonitoredFunction>& functions,
                                   std::string_view old_revision, std::string_view new_revision) {
  return compare_with(mirror, functions, old_revision, new_revision,
                      [&](const ObjectId& commit) { return source.extract(commit, functions); });
}

Result<void> assess_consumer_impact(Comparison& comparison, ImpactAssessor& assessor) {
  for (FunctionComparison& f : comparison.functions) {
    if (f.changes.empty()) continue;
    auto impact = assessor.assess(f.function, &f.before, f.after);
    if (!impact) return impact.error().context("binding the consumer's calls of " + f.function.function_path);
    f.impact = std::move(*impact);
  }
  return {};
}

namespace {

// The changed functions' locations at one commit, in the order of `changed`.
Result<std::vector<std::optional<SourceLocation>>> locations_at(
    DefinitionLocator& locator, const ObjectId& commit, const std::vector<FunctionComparison*>& changed) {
  std::vector<MonitoredFunction> functions;
  for (const FunctionComparison* f : changed) functions.push_back(f->function);
  auto found = locator.locate(commit, functions);
  if (!found) return found.error().context("locating the changed functions at " + commit.short_hex());
  if (found->size() != changed.size()) return Error(ErrorCode::internal, "locator returned a wrong count");
  return found;
}

}  // namespace

Result<void> locate_changes(Comparison& comparison, DefinitionLocator& locator) {
  std::vector<FunctionComparison*> changed;
  for (FunctionComparison& f : comparison.functions)
    if (!f.changes.empty()) changed.push_back(&f);
  if (changed.empty()) return {};
  auto before = locations_at(locator, comparison.old_commit, changed);
  if (!before) return before.error();
  auto after = locations_at(locator, comparison.new_commit, changed);
  if (!after) return after.error();
  for (std::size_t i = 0; i < changed.size(); ++i) {
    changed[i]->old_location = (*before)[i];
    changed[i]->new_location = (*after)[i];
  }
  return {};
}

}  // namespace aaw
