// What `status` says of a daemon, from its state alone (no network): the last poll and its result,
// the remote head, the last processed commit and the commits pending between them, the outbox,
// the last error, and whether the daemon is healthy: a successful poll or replay within three check
// intervals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/ports/git_mirror.hpp"
#include "core/ports/state_store.hpp"
#include "core/watch/poll_status.hpp"
#include "util/result.hpp"
#include "util/time.hpp"

namespace aaw {

struct DaemonStatus {
  PollStatus poll;
  std::optional<std::string> line_head;         // the last processed commit, by a poll or a replay
  std::optional<std::int64_t> pending_commits;  // unknown without a mirror holding both ends
  OutboxCounts outbox;
  std::vector<OutboxItem> failed;         // the most recent failed notifications
  FailedCommits failed_commits;           // commits recorded without their states
  std::optional<std::string> last_error;  // of the last poll, else of a delivery being retried
  bool healthy = false;
  std::string health;  // why, in words
};

// How many failed notifications a status lists (the counts cover them all).
inline constexpr std::size_t k_failed_notifications_shown = 20;

// `store` is nullptr when there is no state store yet (never run); `mirror` nullptr when there is
// no mirror (pending commits are then unknown). An Error when the store cannot be read.
Result<DaemonStatus> read_daemon_status(StateStore* store, GitMirror* mirror, int check_interval_seconds,
                                        TimePoint now);

}  // namespace aaw
