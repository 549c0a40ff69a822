#include "core/report/daemon_status.hpp"

namespace aaw {
namespace {

std::optional<std::int64_t> pending_commits(GitMirror* mirror, const DaemonStatus& s) {
  if (!s.poll.remote_head || !s.line_head) return std::nullopt;
  if (*s.poll.remote_head == *s.line_head) return 0;
  if (!mirror) return std::nullopt;
  auto range = mirror->first_parent_range(ObjectId{*s.line_head}, ObjectId{*s.poll.remote_head});
  if (!range) return std::nullopt;  // the head moved past what the mirror holds: not fetched yet
  return static_cast<std::int64_t>(range->size());
}

// Healthy: a successful poll or replay within three check intervals, whichever mode wrote the store.
void judge_health(int check_interval_seconds, TimePoint now, DaemonStatus& s) {
  std::int64_t limit = 3LL * check_interval_seconds;
  auto last = s.poll.last_success_time();
  auto success = last ? parse_iso8601_utc(*last) : std::nullopt;
  if (!success) {
    s.health = "stale: no successful poll or replay recorded";
    return;
  }
  const bool by_replay = s.poll.last_replay_result == "ok" && last == s.poll.last_replay_time;
  std::int64_t age = epoch_seconds(now) - *success;
  s.healthy = age <= limit;
  s.health = (s.healthy ? "ok: " : "stale: ") +
             std::string(by_replay ? "last successful replay " : "last successful poll ") +
             std::to_string(age) + " s ago (limit 3 x " + std::to_string(check_interval_seconds) + " s)";
}

// The freshest trouble worth showing: the last poll's error, the last replay's, else a delivery
// being retried.
Result<std::optional<std::string>> last_error(StateStore& store, const DaemonStatus& s) {
  if (s.poll.last_poll_result && *s.poll.last_poll_result != "ok") return s.poll.last_poll_result;
  if (s.poll.last_replay_result && *s.poll.last_replay_result != "ok") return s.poll.last_replay_result;
  auto pending = store.notifications(OutboxState::pending, 1000);
  if (!pending) return pending.error();
  for (const OutboxItem& item : *pending)
    if (!item.last_error.empty()) return std::optional<std::string>(item.last_error);
  return std::optional<std::string>();
}

}  // namespace

Result<DaemonStatus> read_daemon_status(StateStore* store, GitMirror* mirror, int check_interval_seconds,
                                        TimePoint now) {
  DaemonStatus s;
  if (store) {
    auto poll = read_poll_status(*store);
    if (!poll) return poll.error();
    s.poll = std::move(*poll);
    auto line = last_processed_commit(*store, s.poll);
    if (!line) return line.error();
    s.line_head = std::move(*line);
    s.pending_commits = pending_commits(mirror, s);
    auto counts = store->outbox_counts();
    if (!counts) return counts.error();
    s.outbox = *counts;
    auto failed = store->notifications(OutboxState::failed, k_failed_notifications_shown);
    if (!failed) return failed.error();
    s.failed = std::move(*failed);
    auto failed_commits = store->failed_commits();
    if (!failed_commits) return failed_commits.error();
    s.failed_commits = std::move(*failed_commits);
    auto error = last_error(*store, s);
    if (!error) return error.error();
    s.last_error = std::move(*error);
  }
  judge_health(check_interval_seconds, now, s);
  return s;
}

}  // namespace aaw
