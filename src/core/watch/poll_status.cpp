#include "core/watch/poll_status.hpp"

namespace aaw {
namespace {

constexpr std::string_view k_last_poll_time = "last_poll_time";
constexpr std::string_view k_last_poll_result = "last_poll_result";
constexpr std::string_view k_last_poll_success_time = "last_poll_success_time";
constexpr std::string_view k_remote_head = "remote_head";

}  // namespace

Result<void> record_poll(StateStore& store, TimePoint time, const std::optional<std::string>& error) {
  const std::string when = iso8601_utc(time);
  if (auto set = store.set_value(k_last_poll_time, when); !set) return set;
  if (auto set = store.set_value(k_last_poll_result, error ? *error : "ok"); !set) return set;
  if (!error) return store.set_value(k_last_poll_success_time, when);
  return {};
}

Result<void> record_remote_head(StateStore& store, const ObjectId& head) {
  return store.set_value(k_remote_head, head.hex);
}

Result<PollStatus> read_poll_status(StateStore& store) {
  PollStatus status;
  for (auto [key, field] : {std::pair{k_last_poll_time, &status.last_poll_time},
                            std::pair{k_last_poll_result, &status.last_poll_result},
                            std::pair{k_last_poll_success_time, &status.last_poll_success_time},
                            std::pair{k_remote_head, &status.remote_head}}) {
    auto value = store.value(key);
    if (!value) return value.error();
    *field = std::move(*value);
  }
  return status;
}

}  // namespace aaw
