// Bisection of a pending commit range for extractors that cost a build per commit. When nothing
// changed across a range, one build of its newest commit proves it; when something did, a binary
// search attributes each change to the first commit that shows it: about log2(N) builds per
// change instead of N.
//
// Like `git bisect`, it assumes a state does not change and change back inside a range whose two
// ends agree. Machinery failures (a broken build) never vouch for anything: a range ending in one
// is split until each commit is built.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "core/model/signature.hpp"
#include "core/ports/git_mirror.hpp"
#include "util/result.hpp"

namespace aaw {

// The states of every monitored function at one commit, in the order of the functions.
using CommitStates = std::vector<SignatureState>;
using ExtractCommit = std::function<Result<CommitStates>(const ObjectId&)>;

struct BisectResult {
  // Per commit of the range, in order: the extracted states (or the Error extracting them), or
  // nullopt when the commit was not built because the commits around it showed it unchanged.
  std::vector<std::optional<Result<CommitStates>>> extracted;
  // Per commit: the states it has, extracted or inferred (for an inferred commit, the last good
  // states before it, which are also those after it).
  std::vector<CommitStates> states;
  std::size_t builds = 0;
};

// Settles `commits` (oldest first), given the last good state of each function before the first
// of them (`before`; nullopt for a function never seen good, which no inference can vouch for).
// Each commit is extracted at most once. A commit whose extraction fails vouches for nothing, like
// a broken build; its Error is kept in `extracted` for the caller to record. ErrorCode::cancelled
// (a stop was requested) ends the bisection and is returned.
Result<BisectResult> bisect_range(const std::vector<ObjectId>& commits,
                                  const std::vector<std::optional<SignatureState>>& before,
                                  const ExtractCommit& extract);

}  // namespace aaw
