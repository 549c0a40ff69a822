// What `history` shows of the force-pushes the watcher saw: the history_rewritten events
// (core/watch/history_rewrite.hpp) among the recorded ones, filtered as the changes are, and put
// among the changes in the order they were recorded, so that a reader sees a function go back
// where it went back.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/ports/state_store.hpp"
#include "core/report/history_query.hpp"
#include "util/result.hpp"

namespace aaw {

// The history_rewritten events of `events` (oldest first, as StateStore::events_after returns
// them) that `query` keeps, each with "event_id": a rewrite is dated by when it was seen ("time"),
// is in a range when its new head is, and keeps only its functions named `function_path` (when
// given) and of at least the least severity; one left with no function is dropped when either
// filter is set (a rewrite that changed nothing monitored is kept otherwise). --limit is
// in_recorded_order's. An Error when in_range fails.
Result<std::vector<StoredEvent>> select_rewrites(const std::vector<StoredEvent>& events,
                                                 const std::optional<std::string>& function_path,
                                                 const HistoryQuery& query);

// A commit's last recording time (UTC ISO 8601, as the events' "time"), or nullopt.
using RecordedAt = std::function<std::optional<std::string>(const std::string& commit)>;

// {"event_id", "time"} of the force-push that took `commit` off the branch: the first
// history_rewritten event of `events` that lists it among "abandoned", unless the commit was
// recorded again after that rewrite was seen (it came back). null otherwise; events recorded
// before "abandoned" existed name none.
Json abandoned_by(const std::string& commit, const std::vector<StoredEvent>& events,
                  const RecordedAt& recorded_at);

// Sets "abandoned_by" (above) on each change of `changes` recorded at such a commit.
void mark_abandoned(std::vector<Json>& changes, const std::vector<StoredEvent>& events,
                    const RecordedAt& recorded_at);

// One line of `history`: a FUNCTION_CHANGE or a history_rewritten event.
struct HistoryEntry {
  const Json* change = nullptr;
  const StoredEvent* rewrite = nullptr;
};

// `changes` and `rewrites` in the order they were recorded: each rewrite before the first change
// recorded after it (the change's own line among `events` says when), the rest at the end. With
// `limited` (--limit cut the oldest changes off) a rewrite recorded before the first change kept
// is left out too.
std::vector<HistoryEntry> in_recorded_order(const std::vector<Json>& changes,
                                            const std::vector<StoredEvent>& rewrites,
                                            const std::vector<StoredEvent>& events, bool limited);

}  // namespace aaw
