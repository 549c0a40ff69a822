// state_dir/events.jsonl: one JSON object a line, appended after each commit's transaction from
// the events the state store holds. Every line carries its "event_id"; on open, the last id in the
// file tells where to resume, and a line torn by a crash is cut off, so after any crash and
// restart every event is in the file exactly once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "core/ports/state_store.hpp"
#include "util/result.hpp"

namespace aaw {

class EventLog {
 public:
  // Opens (creating) `path`; io when it cannot be read or written.
  static Result<EventLog> open(const std::filesystem::path& path);

  // The id of the last event in the file (0 when none).
  std::int64_t last_id() const { return m_last_id; }

  // Appends the events with an id above last_id(), in order, and makes them durable.
  Result<void> append(const std::vector<StoredEvent>& events);

 private:
  explicit EventLog(std::filesystem::path path, std::int64_t last_id)
      : m_path(std::move(path)), m_last_id(last_id) {}

  std::filesystem::path m_path;
  std::int64_t m_last_id = 0;
};

}  // namespace aaw
