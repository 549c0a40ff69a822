#include "core/watch/poll_status.hpp"

#include <algorithm>

namespace aaw {
namespace {

constexpr std::string_view k_last_poll_time = "last_poll_time";
constexpr std::string_view k_last_poll_result = "last_poll_result";
constexpr std::string_view k_last_poll_success_time = "last_poll_success_time";
constexpr std::string_view k_remote_head = "remote_head";
constexpr std::string_view k_last_replay_time = "last_replay_time";
constexpr std::string_view k_last_replay_result = "last_replay_result";
constexpr std::string_view k_last_replayed_commit = "last_replayed_commit";

}  // namespace

Result<void> record_poll(StateStore& store, TimePoint time, const std::optional<std::string>& error) {
  const std::string when = iso8601_utc(time);
  if (auto set = store.set_value(k_last_poll_time, when); !set) return set;
  if (auto set = store.set_value(k_last_poll_result, error ? *error : "ok"); !set) return set;
  if (!error) return store.set_value(k_last_poll_success_time, when);
  return {};
}

Result<void> record_replay(StateStore& store, TimePoint time, const std::string& result,
                           const std::optional<ObjectId>& last_commit) {
  if (auto set = store.set_value(k_last_replay_time, iso8601_utc(time)); !set) return set;
  if (auto set = store.set_value(k_last_replay_result, result); !set) return set;
  if (last_commit) return store.set_value(k_last_replayed_commit, last_commit->hex);
  return {};
}

Result<void> record_replayed_commit(StateStore& store, const ObjectId& commit) {
  return store.set_value(k_last_replayed_commit, commit.hex);
}

std::optional<std::string> PollStatus::last_success_time() const {
  std::optional<std::string> replay;
  if (last_replay_result == "ok") replay = last_replay_time;
  if (!replay) return last_poll_success_time;
  if (!last_poll_success_time) return replay;
  // ISO 8601 UTC texts of one format compare as the times they name.
  return std::max(*replay, *last_poll_success_time);
}

Result<std::optional<std::string>> last_processed_commit(StateStore& store, const PollStatus& status) {
  auto line = store.line_head();
  if (!line) return line.error();
  if (*line) return std::optional<std::string>((*line)->hex);
  return status.last_replayed_commit;
}

Result<void> record_remote_head(StateStore& store, const ObjectId& head) {
  return store.set_value(k_remote_head, head.hex);
}

Result<PollStatus> read_poll_status(StateStore& store) {
  PollStatus status;
  for (auto [key, field] : {std::pair{k_last_poll_time, &status.last_poll_time},
                            std::pair{k_last_poll_result, &status.last_poll_result},
                            std::pair{k_last_poll_success_time, &status.last_poll_success_time},
                            std::pair{k_remote_head, &status.remote_head},
                            std::pair{k_last_replay_time, &status.last_replay_time},
                            std::pair{k_last_replay_result, &status.last_replay_result},
                            std::pair{k_last_replayed_commit, &status.last_replayed_commit}}) {
    auto value = store.value(key);
    if (!value) return value.error();
    *field = std::move(*value);
  }
  return status;
}

}  // namespace aaw
