// Internal to src/io/sqlite/: the outbox table (schema version 2; `kind`, version 5), one row per
// (target, commit, function, kind) with its delivery state. The store writes rows inside record()'s
// transaction and hands the outbox queries to this class.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/ports/state_store.hpp"
#include "io/sqlite/sqlite_database.hpp"

namespace aaw::sqlite {

// The migration from schema version 1 to 2.
extern const char* const k_outbox_schema;
// The migration from schema version 4 to 5: the kind of notification in the row's identity ('change',
// or 'rewrite' for a function a force-push took back, queued with the first new commit, which
// may change that same function itself).
extern const char* const k_outbox_kinds;

class SqliteOutbox {
 public:
  explicit SqliteOutbox(Database& db) : m_db(db) {}

  // Inserts a pending row due at once, unless one exists for the same (target, commit, function,
  // kind); the kind is the payload's: 'rewrite' for a history_rewritten one, else 'change'.
  // REQUIRES: inside record()'s transaction, `commit_sequence` and `function_id` rows exist.
  Result<void> add(std::int64_t commit_sequence, std::int64_t function_id, const Notification& notification);

  Result<std::vector<OutboxItem>> due(TimePoint now, std::size_t limit);
  Result<std::optional<TimePoint>> next_due();
  Result<void> update(const OutboxItem& item);
  // Sets "pull_request" in the payloads of the commit's rows. REQUIRES: inside a transaction.
  Result<void> set_pull_request(std::int64_t commit_sequence, std::string_view url);
  Result<OutboxCounts> counts();
  Result<std::vector<OutboxItem>> in_state(OutboxState state, std::size_t limit);

 private:
  Result<std::vector<OutboxItem>> read_items(Query& query);

  Database& m_db;
};

}  // namespace aaw::sqlite
