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

// Marks each change of `changes` recorded at a commit a force-push took off the branch: a
// history_rewritten event of `events` lists its commit among "abandoned", and the commit was not
// recorded again after that rewrite was seen (`recorded_at` gives a commit's last recording time,
// UTC ISO 8601 as the events' "time", or nullopt): the change gets "abandoned_by": {"event_id",
// "time"} of the first such rewrite. Events recorded before "abandoned" existed mark nothing.
void mark_abandoned(std::vector<Json>& changes, const std::vector<StoredEvent>& events,
                    const std::function<std::optional<std::string>(const std::string&)>& recorded_at);

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
