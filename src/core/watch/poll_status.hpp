// What the watcher remembers of its polls, typed. The state store keeps these as named values; this
// file is the only one that knows their names.
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
};

// Records a poll at `time`: its result ("ok" when `error` is empty) and, when it succeeded, the
// success time. Each value in its own transaction.
Result<void> record_poll(StateStore& store, TimePoint time, const std::optional<std::string>& error);

// Records the remote head a poll saw.
Result<void> record_remote_head(StateStore& store, const ObjectId& head);

Result<PollStatus> read_poll_status(StateStore& store);

}  // namespace aaw
