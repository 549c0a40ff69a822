// Compare mode: the states of every monitored function at two commits, and what changed.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/compare/levels.hpp"
#include "core/consumer/consumer_impact.hpp"
#include "core/model/diff.hpp"
#include "core/model/signature.hpp"
#include "core/ports/definition_locator.hpp"
#include "core/ports/git_mirror.hpp"
#include "core/ports/signature_source.hpp"
#include "util/result.hpp"

namespace aaw {

struct FunctionComparison {
  MonitoredFunction function;
  SignatureState before;
  SignatureState after;
  std::vector<Change> changes;
  // With a consumer configured, for a changed function the consumer calls: the call sites the
  // change breaks.
  std::optional<ConsumerImpact> impact = std::nullopt;
  // For a changed function: where its def is at each commit (locate_changes), when known.
  std::optional<SourceLocation> old_location = std::nullopt;
  std::optional<SourceLocation> new_location = std::nullopt;
};

struct Comparison {
  ObjectId old_commit;
  ObjectId new_commit;
  std::vector<FunctionComparison> functions;  // every monitored function, changed or not

  // Functions whose state could not be established on one side (machinery failures).
  std::vector<const FunctionComparison*> failures() const;
};

// Sets `impact` on every changed function of `comparison` that the assessor's consumer calls.
Result<void> assess_consumer_impact(Comparison& comparison, ImpactAssessor& assessor);

// Sets old_location and new_location on every changed function of `comparison`.
Result<void> locate_changes(Comparison& comparison, DefinitionLocator& locator);

// Resolves both revisions in `mirror` and extracts every function at each through `source`.
// Errors name the revision that failed ("old commit 'abc1': unknown commit, branch or tag 'abc1'").
Result<Comparison> compare_commits(GitMirror& mirror, SignatureSource& source,
                                   const std::vector<MonitoredFunction>& functions,
                                   std::string_view old_revision, std::string_view new_revision);

}  // namespace aaw
