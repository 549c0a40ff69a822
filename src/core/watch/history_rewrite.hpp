// A force-push seen by the watcher: the watched line's last processed head is no longer an ancestor
// of the branch's head. What the abandoned commits had changed is not a change of any new commit:
// it is said once, as one `history_rewritten` event (old head, new head, merge base, and each
// function whose state went back), and the new commits are then diffed against the merge base,
// so each is blamed only for what it changed itself.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/model/diff.hpp"
#include "core/model/signature.hpp"
#include "core/ports/state_store.hpp"
#include "util/result.hpp"

namespace aaw {

struct HistoryRewrite {
  ObjectId old_head;          // the last processed head of the abandoned line
  ObjectId new_head;          // the branch's head now
  ObjectId merge_base;        // where the two lines part; recorded in the store
  std::size_t abandoned = 0;  // first-parent commits from merge_base to old_head
  // Those commits, oldest first (merge_base excluded, old_head included): `history` marks the
  // changes recorded at them as abandoned.
  std::vector<ObjectId> abandoned_line = {};
};

// One function whose state went back with the rewrite: from its state at the old head to the one
// at the merge base.
struct RewoundFunction {
  MonitoredFunction function;
  SignatureState at_old_head;
  SignatureState at_merge_base;
  std::vector<Change> changes;  // from at_old_head to at_merge_base
};

// The functions of `functions` whose last good state recorded up to the old head differs from the one
// up to the merge base (both must be recorded: not_found otherwise). A function with no state at
// either is left out: it has no history to go back on.
Result<std::vector<RewoundFunction>> rewound_functions(StateStore& store, const HistoryRewrite& rewrite,
                                                       const std::vector<MonitoredFunction>& functions);

// The `history_rewritten` event: "type", "old_head", "new_head", "merge_base",
// "abandoned_commits", "abandoned" (their SHAs, oldest first), and "functions" (import_statement,
// function_path, old, new, changes, severity for each; empty when the abandoned commits changed nothing
// monitored). Without "time": the event log's writer adds it.
Json rewrite_event(const HistoryRewrite& rewrite, const std::vector<RewoundFunction>& functions);

// What a notification says of one function the rewrite took back: the event's fields but
// "functions", and that function's (import_statement, function_path, old, new, changes, severity)
// beside them. The outbox keeps it apart from a change of the same function at the same commit by
// its "type".
Json rewrite_notice(const HistoryRewrite& rewrite, const RewoundFunction& function);

}  // namespace aaw
