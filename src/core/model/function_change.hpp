// FUNCTION_CHANGE (docs/design.md, "The contract"): one function's change at one commit, with the
// commit's author, date, subject and pull request: what history, events and notifications carry.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/consumer/consumer_impact.hpp"
#include "core/model/diff.hpp"
#include "core/model/signature.hpp"
#include "core/ports/git_mirror.hpp"
#include "util/time.hpp"

namespace aaw {

struct FunctionChange {
  CommitInfo commit;
  std::optional<std::string> pull_request;  // URL, when known
  MonitoredFunction function;
  SignatureState before;
  SignatureState after;
  std::vector<Change> changes;
  // With a consumer configured, and the consumer calls the function: the call sites it breaks.
  std::optional<ConsumerImpact> impact = std::nullopt;
};

// "Name <email>".
std::string author_of(const CommitInfo& commit);

// The contract's FUNCTION_CHANGE object; "severity" is the highest of `changes`;
// "consumer_impact" only when `impact` is set.
Json to_json(const FunctionChange& change);

}  // namespace aaw
