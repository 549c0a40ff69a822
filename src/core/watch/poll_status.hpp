// What the watcher remembers of its polls and replays, typed. The state store keeps these as named
// values; this file is the only one that knows their names.
#pragma once

#include <optional>
#include <string>

#include "core/ports/state_store.hpp"
#include "util/result.hpp"
#include "util/time.hpp"

namespace aaw {

struct PollStatus {
  std::optional<std::string> last_poll_time;          // UTC, ISO 8601
  std::optional<std::string> last_poll_result;        // "ok", or the error
  std::optional<std::string> last_poll_success_time;  // UTC, ISO 8601
  std::optional<std::string> remote_head;             // the branch's head the last poll saw
  std::optional<std::string> last_replay_time;        // UTC, ISO 8601, when the last replay ended
  std::optional<std::string> last_replay_result;      // "ok", or why not
  std::optional<std::string> last_replayed_commit;    // the last commit it processed

  // The last successful poll or replay ("ok"), whichever came last: what health is judged by.
  // nullopt when there was none.
  std::optional<std::string> last_success_time() const;
};

// Records a poll at `time`: its result ("ok" when `error` is empty) and, when it succeeded, the
// success time. Each value in its own transaction.
Result<void> record_poll(StateStore& store, TimePoint time, const std::optional<std::string>& error);

// The last commit a replay processed, as it goes: in the same batch as the commit's record, so
// that status and a later watch know it even when the replay is killed.
Result<void> record_replayed_commit(StateStore& store, const ObjectId& commit);

// Records a replay that ended at `time` with `result` ("ok", or why not), having processed
// `last_commit` last (nullopt: none).
Result<void> record_replay(StateStore& store, TimePoint time, const std::string& result,
                           const std::optional<ObjectId>& last_commit);

// Records the remote head a poll saw.
Result<void> record_remote_head(StateStore& store, const ObjectId& head);

Result<PollStatus> read_poll_status(StateStore& store);

// The last processed commit whichever mode wrote the store: the watched line's head, else the
// last commit a replay processed; nullopt when nothing was.
Result<std::optional<std::string>> last_processed_commit(StateStore& store, const PollStatus& status);

}  // namespace aaw
