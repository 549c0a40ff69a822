// FUNCTION_CHANGE (DESIGN.md, "The contract"): one function's change at one commit, with the
// commit's author, date, subject and pull request: what history, events and notifications carry.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aaw/diff.hpp"
#include "aaw/git_mirror.hpp"
#include "aaw/signature.hpp"

namespace aaw {

struct FunctionChange {
  CommitInfo commit;
  std::optional<std::string> pull_request;  // URL, when known
  MonitoredFunction function;
  SignatureState before;
  SignatureState after;
  std::vector<Change> changes;
};

// "2025-04-26T17:41:54+02:00": the author date in the author's own offset.
std::string iso8601(std::int64_t seconds, int offset_minutes);

// "2026-11-21T06:07:23Z": a UTC time, as the state store and events.jsonl write it.
std::string iso8601_utc(std::int64_t seconds);

// "Name <email>".
std::string author_of(const CommitInfo& commit);

// The contract's FUNCTION_CHANGE object; "severity" is the highest of `changes`.
Json to_json(const FunctionChange& change);

}  // namespace aaw
