// The outbox: notifications written in the same transaction as the change they announce, so none
// is lost to a crash between recording and queueing; their delivery state lives beside them, so
// backoff and failure survive restarts.
#include "io/sqlite/sqlite_outbox.hpp"

#include <chrono>
#include <string>
#include <utility>

namespace aaw::sqlite {
namespace {

// Times are milliseconds since the epoch: backoffs in tests are a fraction of a second.
std::int64_t to_millis(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
TimePoint from_millis(std::int64_t ms) {
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(std::chrono::milliseconds(ms)));
}

std::optional<OutboxState> parse_state(std::string_view text) {
  for (OutboxState s : {OutboxState::pending, OutboxState::delivered, OutboxState::failed})
    if (to_string(s) == text) return s;
  return std::nullopt;
}

constexpr const char* k_columns =
    "id, target, payload, state, attempts, client_errors, next_attempt_at, last_error, delivered_ref, "
    "created_at, updated_at";

}  // namespace

// (target, commit, function) is the identity of a notification (with its kind from version 5 on):
// recording a commit again finds its rows by it. function_id stands for (import_statement, function_path).
const char* const k_outbox_schema = R"sql(
CREATE TABLE outbox(
  id INTEGER PRIMARY KEY,
  target TEXT NOT NULL,
  commit_sequence INTEGER NOT NULL REFERENCES commits(sequence),
  function_id INTEGER NOT NULL REFERENCES functions(id),
  payload TEXT NOT NULL,
  state TEXT NOT NULL CHECK(state IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  client_errors INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL DEFAULT 0,
  last_error TEXT NOT NULL DEFAULT '',
  delivered_ref TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE(target, commit_sequence, function_id));
CREATE INDEX outbox_due ON outbox(next_attempt_at) WHERE state = 'pending';
)sql";

// SQLite cannot change a table's UNIQUE constraint: the table is made again with the rows it had.
const char* const k_outbox_kinds = R"sql(
CREATE TABLE outbox_with_kinds(
  id INTEGER PRIMARY KEY,
  target TEXT NOT NULL,
  commit_sequence INTEGER NOT NULL REFERENCES commits(sequence),
  function_id INTEGER NOT NULL REFERENCES functions(id),
  kind TEXT NOT NULL DEFAULT 'change' CHECK(kind IN ('change', 'rewrite')),
  payload TEXT NOT NULL,
  state TEXT NOT NULL CHECK(state IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  client_errors INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL DEFAULT 0,
  last_error TEXT NOT NULL DEFAULT '',
  delivered_ref TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE(target, commit_sequence, function_id, kind));
INSERT INTO outbox_with_kinds(id, target, commit_sequence, function_id, payload, state, attempts, client_errors,
                              next_attempt_at, last_error, delivered_ref, created_at, updated_at)
  SELECT id, target, commit_sequence, function_id, payload, state, attempts, client_errors, next_attempt_at,
         last_error, delivered_ref, created_at, updated_at FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_with_kinds RENAME TO outbox;
CREATE INDEX outbox_due ON outbox(next_attempt_at) WHERE state = 'pending';
)sql";

Result<void> SqliteOutbox::add(std::int64_t commit_sequence, std::int64_t function_id,
                               const Notification& notification) {
  std::string now = utc_now();
  const bool rewrite = is_history_rewrite(notification.payload);
  return run(m_db,
             "INSERT INTO outbox(target, commit_sequence, function_id, kind, payload, state, created_at, "
             "  updated_at) "
             "VALUES(?1, ?2, ?3, ?4, ?5, 'pending', ?6, ?6) "
             "ON CONFLICT(target, commit_sequence, function_id, kind) DO NOTHING",
             notification.target, commit_sequence, function_id, std::string(rewrite ? "rewrite" : "change"),
             compact(notification.payload), now);
}

Result<std::vector<OutboxItem>> SqliteOutbox::due(TimePoint now, std::size_t limit) {
  static const std::string sql = std::string("SELECT ") + k_columns +
                                 " FROM outbox WHERE state = 'pending' AND next_attempt_at <= ?1 "
                                 "ORDER BY next_attempt_at, id LIMIT ?2";
  auto query = m_db.query(sql.c_str());
  if (!query) return query.error();
  query->bind(1, to_millis(now)).bind(2, static_cast<std::int64_t>(limit));
  return read_items(*query);
}

Result<std::optional<TimePoint>> SqliteOutbox::next_due() {
  auto query = m_db.query("SELECT min(next_attempt_at) FROM outbox WHERE state = 'pending'");
  if (!query) return query.error();
  auto row = query->step();
  if (!row) return row.error();
  if (!*row || query->is_null(0)) return std::optional<TimePoint>();
  return std::optional<TimePoint>(from_millis(query->integer(0)));
}

Result<void> SqliteOutbox::update(const OutboxItem& item) {
  auto updated =
      run(m_db,
          "UPDATE outbox SET state = ?2, attempts = ?3, client_errors = ?4, next_attempt_at = ?5, "
          "  last_error = ?6, delivered_ref = ?7, updated_at = ?8 WHERE id = ?1",
          item.id, to_string(item.state), std::int64_t{item.attempts}, std::int64_t{item.client_errors},
          to_millis(item.next_attempt_at), item.last_error, item.delivered_ref, utc_now());
  if (!updated) return updated;
  if (m_db.changes() == 0) {
    return Error(ErrorCode::not_found,
                 "no notification " + std::to_string(item.id) + " in state store " + quoted(m_db.path()));
  }
  return {};
}

Result<void> SqliteOutbox::set_pull_request(std::int64_t commit_sequence, std::string_view url) {
  std::vector<std::pair<std::int64_t, Json>> payloads;
  {
    auto query = m_db.query("SELECT id, payload FROM outbox WHERE commit_sequence = ?1");
    if (!query) return query.error();
    query->bind(1, commit_sequence);
    for (;;) {
      auto row = query->step();
      if (!row) return row.error();
      if (!*row) break;
      auto payload = m_db.parse(query->text(1));
      if (!payload) return payload.error();
      payloads.emplace_back(query->integer(0), std::move(*payload));
    }
  }
  for (auto& [id, payload] : payloads) {
    payload["pull_request"] = std::string(url);
    auto written = run(m_db, "UPDATE outbox SET payload = ?2 WHERE id = ?1", id, compact(payload));
    if (!written) return written;
  }
  return {};
}

Result<OutboxCounts> SqliteOutbox::counts() {
  auto query = m_db.query("SELECT state, count(*) FROM outbox GROUP BY state");
  if (!query) return query.error();
  OutboxCounts counts;
  for (;;) {
    auto row = query->step();
    if (!row) return row.error();
    if (!*row) return counts;
    auto state = parse_state(query->text(0));
    if (state == OutboxState::pending) counts.pending = query->integer(1);
    if (state == OutboxState::delivered) counts.delivered = query->integer(1);
    if (state == OutboxState::failed) counts.failed = query->integer(1);
  }
}

Result<std::vector<OutboxItem>> SqliteOutbox::in_state(OutboxState state, std::size_t limit) {
  static const std::string sql = std::string("SELECT ") + k_columns +
                                 " FROM outbox WHERE state = ?1 ORDER BY updated_at DESC, id DESC LIMIT ?2";
  auto query = m_db.query(sql.c_str());
  if (!query) return query.error();
  query->bind(1, to_string(state)).bind(2, static_cast<std::int64_t>(limit));
  return read_items(*query);
}

Result<std::vector<OutboxItem>> SqliteOutbox::read_items(Query& query) {
  std::vector<OutboxItem> items;
  for (;;) {
    auto row = query.step();
    if (!row) return row.error();
    if (!*row) return items;
    OutboxItem item;
    item.id = query.integer(0);
    item.target = query.text(1);
    auto payload = m_db.parse(query.text(2));
    if (!payload) return payload.error();
    item.payload = std::move(*payload);
    auto state = parse_state(query.text(3));
    if (!state)
      return m_db.corrupt("outbox row " + std::to_string(item.id) + " has state '" + query.text(3) + "'");
    item.state = *state;
    item.attempts = static_cast<int>(query.integer(4));
    item.client_errors = static_cast<int>(query.integer(5));
    item.next_attempt_at = from_millis(query.integer(6));
    item.last_error = query.text(7);
    item.delivered_ref = query.text(8);
    item.created_at = query.text(9);
    item.updated_at = query.text(10);
    items.push_back(std::move(item));
  }
}

}  // namespace aaw::sqlite
