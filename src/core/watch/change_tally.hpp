// What a run of commits came to, counted as it is recorded: the closing line of each range
// ("Processed 40 commits in 2s: 3 API changes (1 breaking) at 2 commits") is read from it, so that
// the console can leave the per-commit and per-function lines to the log file.
#pragma once

#include <cstddef>
#include <string>

namespace aaw {

struct ChangeTally {
  std::size_t commits = 0;               // recorded as processed
  std::size_t commits_with_changes = 0;  // of which had at least one API change
  std::size_t changes = 0;               // function changes recorded
  std::size_t breaking = 0;              // of which breaking
  std::size_t failed = 0;                // commits that could not be processed
  // At the last commit processed (a snapshot, not summed): functions whose signature the tool
  // cannot vouch for (ok but unverified) and functions it could not resolve.
  std::size_t unverified = 0;
  std::size_t unresolved = 0;

  // The counts of `later` made since `earlier` (the same processor's tally, read before).
  friend ChangeTally operator-(const ChangeTally& later, const ChangeTally& earlier) {
    return {later.commits - earlier.commits,
            later.commits_with_changes - earlier.commits_with_changes,
            later.changes - earlier.changes,
            later.breaking - earlier.breaking,
            later.failed - earlier.failed,
            later.unverified,
            later.unresolved};
  }
};

// "no API change", "3 API changes (1 breaking) at 2 commits", with "; 1 commit could not be
// processed" when one could not and "; at the last commit, 2 functions unverified, 1 unresolved"
// when the tool could not vouch for some.
std::string describe(const ChangeTally& tally);

}  // namespace aaw
