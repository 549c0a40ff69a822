// The real StateStore: one SQLite database in WAL mode. sqlite3 return codes become aaw::Error in
// sqlite_database.cpp, and nlohmann parse errors of stored JSON become io errors (a stored document
// that does not parse means a damaged file).
//
// Schema (version 5; see k_migrations):
//   meta           the store's own facts: repository_url (redacted), created_at
//   named_values   set_value() / value(), apart from meta so no key can overwrite repository_url
//   functions      each monitored function once: (import_statement, function_path)
//   states         each distinct STATE once, keyed by its compact JSON text, which is canonical
//                  (nlohmann sorts object keys); machinery_failure lets baseline() filter in SQL
//   commits        one row per recorded commit; `sequence` (the rowid) is the processing order and
//                  the key the other tables use, so a re-recorded commit keeps its place;
//                  `bisected` (version 3) marks a commit not built, its states inferred by bisection;
//                  `keyframe` (version 4), when set, is the sequence of a commit with every
//                  function's row, and this commit's states are that commit's with the rows of the
//                  commits after it up to this one on top: each of them was recorded right after
//                  the one before (sequence + 1), so a state is written once per change, not once
//                  per commit
//   commit_states  (commit, function) -> state, with the function's position in the record; for
//                  a commit with a keyframe (version 4) only the functions whose state differs
//                  from the commit right before it
//   changes        FUNCTION_CHANGE objects, at most one per (commit, function)
//   events         lines for events.jsonl; AUTOINCREMENT ids never go back, so a reader's cursor
//                  (events_after) stays valid
//   outbox         (version 2) notifications and their delivery state, at most one per
//                  (target, commit, function, kind: version 5); see sqlite_outbox.cpp
#include "io/sqlite/sqlite_state_store.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <system_error>
#include <unordered_map>
#include <utility>

#include "core/model/function_change.hpp"
#include "core/ports/state_store.hpp"
#include "io/sqlite/sqlite_database.hpp"
#include "io/sqlite/sqlite_outbox.hpp"
#include "util/url.hpp"

namespace aaw {

namespace {

using namespace sqlite;

// The named value holding the last processed commit of the watched branch.
constexpr std::string_view k_line_head = "line_head";

namespace fs = std::filesystem;

// ---- schema ------------------------------------------------------------------------------------

// Migration i takes the schema from version i to i + 1. Each runs in its own transaction together
// with the user_version bump, so a crash mid-migration leaves the previous version intact. Never
// edit a released entry: append one.
const std::array<const char*, 5> k_migrations = {
    R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE named_values(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE functions(
  id INTEGER PRIMARY KEY,
  import_statement TEXT NOT NULL,
  function_path TEXT NOT NULL,
  UNIQUE(import_statement, function_path));
CREATE INDEX functions_by_path ON functions(function_path);
CREATE TABLE states(
  id INTEGER PRIMARY KEY,
  json TEXT NOT NULL UNIQUE,
  machinery_failure INTEGER NOT NULL CHECK(machinery_failure IN (0, 1)));
CREATE TABLE commits(
  sequence INTEGER PRIMARY KEY,
  sha TEXT NOT NULL UNIQUE,
  outcome TEXT NOT NULL CHECK(outcome IN ('processed', 'failed')),
  error TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  author_name TEXT NOT NULL,
  author_email TEXT NOT NULL,
  author_time INTEGER NOT NULL,
  author_offset_minutes INTEGER NOT NULL,
  subject TEXT NOT NULL,
  advances_line INTEGER NOT NULL CHECK(advances_line IN (0, 1)));
CREATE INDEX commits_on_line ON commits(sequence) WHERE advances_line = 1;
CREATE TABLE commit_states(
  commit_sequence INTEGER NOT NULL REFERENCES commits(sequence),
  function_id INTEGER NOT NULL REFERENCES functions(id),
  state_id INTEGER NOT NULL REFERENCES states(id),
  position INTEGER NOT NULL,
  PRIMARY KEY(commit_sequence, function_id)) WITHOUT ROWID;
CREATE TABLE changes(
  id INTEGER PRIMARY KEY,
  commit_sequence INTEGER NOT NULL REFERENCES commits(sequence),
  function_id INTEGER NOT NULL REFERENCES functions(id),
  json TEXT NOT NULL,
  UNIQUE(commit_sequence, function_id));
CREATE INDEX changes_by_function ON changes(function_id, commit_sequence);
CREATE TABLE events(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  dedupe_key TEXT NOT NULL UNIQUE,
  json TEXT NOT NULL);
)sql", k_outbox_schema,
    R"sql(
ALTER TABLE commits ADD COLUMN bisected INTEGER NOT NULL DEFAULT 0 CHECK(bisected IN (0, 1));
)sql",
    R"sql(
ALTER TABLE commits ADD COLUMN keyframe INTEGER REFERENCES commits(sequence);
)sql", k_outbox_kinds,
};

// A keyframe every this many commits of a chain: reading the states of any commit costs one
// keyframe's rows and at most this many commits' changed rows.
constexpr std::int64_t k_keyframe_period = 128;
const int k_schema_version = static_cast<int>(k_migrations.size());

// ---- opening -------------------------------------------------------------------------------------

Result<void> make_parent_directories(const fs::path& path) {
  if (!path.has_parent_path()) return {};
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) {
    return Error(ErrorCode::io,
                 "cannot create directory " + quoted(path.parent_path()) + ": " + ec.message());
  }
  return {};
}

Result<int> schema_version(Database& db) {
  auto query = db.query("PRAGMA user_version");
  if (!query) return query.error();
  auto row = query->step();
  if (!row) return row.error();
  return static_cast<int>(query->integer(0));
}

// Reading the version is also the first read of the file: a file that is not a database fails here
// (io, "file is not a database") before anything is written to it.
Result<int> check_schema_version(Database& db) {
  auto version = schema_version(db);
  if (!version) return version.error();
  if (*version > k_schema_version) {
    return Error(
        ErrorCode::invalid_input,
        "state store " + quoted(db.path()) + " has schema version " + std::to_string(*version) +
            ", newer than version " + std::to_string(k_schema_version) +
            " that this aiter-api-watcher knows: use a newer aiter-api-watcher or another state_dir");
  }
  return *version;
}

// WAL: readers (`history`, `status`) never block the daemon's writer nor see half a commit. With
// WAL, synchronous=NORMAL still makes every commit atomic, and a committed transaction survives a
// crash of the process (it is in the OS's page cache); only a power loss or kernel crash may lose
// the last few commits, never corrupt the file, and the watcher then processes them again.
// temp_store=MEMORY: a record inside a batch is a savepoint, whose journal SQLite otherwise spills
// to a temporary file past 64 KiB and keeps writing there until the batch commits (tens of
// thousands of writes in a replay); it holds one record's pages, and what this store sorts is small.
Result<void> configure(Database& db) {
  return db.exec_script(
      "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; "
      "PRAGMA temp_store = MEMORY;");
}

// Every step in one transaction: a reader (`status` while the daemon starts) sees the store as it
// was or at the current version, never half-way; a new store is empty until it is complete.
Result<void> migrate(Database& db, int version) {
  if (version >= k_schema_version) return {};
  auto transaction = Transaction::begin(db);
  if (!transaction) return transaction.error();
  // Read again under the write lock: another process may have migrated since we looked.
  auto current = schema_version(db);
  if (!current) return current.error();
  for (int v = *current; v < k_schema_version; ++v) {
    auto applied = db.exec_script(k_migrations[static_cast<std::size_t>(v)]);
    if (applied) applied = db.exec_script("PRAGMA user_version = " + std::to_string(v + 1));
    if (!applied) return applied.error().context("migrating to schema version " + std::to_string(v + 1));
  }
  return transaction->commit();
}

// A database with no table at all: a file a writer has created and not yet committed its schema to.
Result<bool> holds_no_table(Database& db) {
  auto query = db.query("SELECT count(*) FROM sqlite_schema");
  if (!query) return query.error();
  auto row = query->step();
  if (!row) return row.error();
  return query->integer(0) == 0;
}

Result<std::optional<std::string>> meta_value(Database& db, std::string_view key) {
  auto query = db.query("SELECT value FROM meta WHERE key = ?1");
  if (!query) return query.error();
  auto row = query->bind(1, key).step();
  if (!row) return row.error();
  if (!*row) return std::optional<std::string>();
  return std::optional<std::string>(query->text(0));
}

Error belongs_to_another(const fs::path& path, const std::string& owner, const std::string& url) {
  return Error(ErrorCode::invalid_input, "state store " + quoted(path) + " belongs to '" + owner +
                                             "', not '" + url + "': use another state_dir");
}

// A state store belongs to one repository: the states of two histories must never mix.
Result<void> claim_repository(Database& db, const std::string& url) {
  auto owner = meta_value(db, "repository_url");
  if (!owner) return owner.error();
  if (!*owner) {
    // Only a new store is written to here, so that readers (`history`, `status`) open without
    // waiting for the daemon's write lock. Two processes may race to create it: the first wins.
    auto claimed = run(db,
                       "INSERT INTO meta(key, value) VALUES('repository_url', ?1), ('created_at', ?2) "
                       "ON CONFLICT(key) DO NOTHING",
                       url, utc_now());
    if (!claimed) return claimed;
    owner = meta_value(db, "repository_url");
    if (!owner) return owner.error();
    if (!*owner) return db.corrupt("no repository_url");
  }
  if (**owner != url) return belongs_to_another(db.path(), **owner, url);
  return {};
}

// ---- the store -----------------------------------------------------------------------------------

class SqliteStateStore final : public StateStore {
 public:
  explicit SqliteStateStore(Database db) : m_db(std::move(db)) {}
  SqliteStateStore(const SqliteStateStore&) = delete;
  SqliteStateStore& operator=(const SqliteStateStore&) = delete;

  Result<void> record(const CommitRecord& record) override {
    auto transaction = Transaction::begin(m_db);
    Result<void> done = transaction ? write_record(record) : Result<void>(transaction.error());
    if (done) done = transaction->commit();
    if (!done) {
      forget_written();
      return done.error().context("cannot record commit '" + record.commit.id.hex + "'");
    }
    carry_baseline(m_recorded_sequence, record, m_written_since);
    return {};
  }

  Result<void> begin_batch() override {
    if (m_batch) return {};
    auto begun = Transaction::begin(m_db);
    if (!begun) return begun.error().context("cannot begin a batch of records");
    m_batch.emplace(std::move(*begun));
    return {};
  }

  Result<void> end_batch() override {
    if (!m_batch) return {};
    auto committed = m_batch->commit();
    m_batch.reset();  // rolls back what the commit did not take
    if (!committed) {
      forget_written();
      return committed.error().context("cannot commit a batch of records");
    }
    return {};
  }

  Result<std::optional<CommitStatus>> commit_status(const ObjectId& commit) override {
    auto query =
        m_db.query("SELECT sequence, outcome, error, recorded_at, bisected FROM commits WHERE sha = ?1");
    if (!query) return query.error();
    auto row = query->bind(1, commit.hex).step();
    if (!row) return row.error();
    if (!*row) return std::optional<CommitStatus>();
    CommitOutcome outcome =
        query->text(1) == to_string(CommitOutcome::failed) ? CommitOutcome::failed : CommitOutcome::processed;
    return std::optional<CommitStatus>(CommitStatus{commit, outcome, query->text(2), query->integer(0),
                                                    query->text(3), query->integer(4) != 0});
  }

  Result<std::vector<FunctionState>> states_at(const ObjectId& commit) override {
    auto status = commit_status(commit);
    if (!status) return status.error();
    if (!*status) return std::vector<FunctionState>{};
    auto rows = rows_at((*status)->sequence);
    if (!rows) return rows.error();
    auto names = function_names();
    if (!names) return names.error();
    std::vector<FunctionState> states;
    states.reserve(rows->size());
    for (const auto& [function, state] : *rows) {
      auto named = names->find(function);
      if (named == names->end()) return m_db.corrupt("no function " + std::to_string(function));
      auto parsed = state_by_id(state);
      if (!parsed) return parsed.error();
      states.push_back(FunctionState{named->second, **parsed});
    }
    return states;
  }

  Result<std::vector<FunctionState>> baseline(const std::optional<ObjectId>& up_to) override {
    auto bound = sequence_bound(up_to);
    if (!bound) return bound.error();
    if (m_baseline && up_to && m_baseline->sequence == *bound) return cached_baseline();
    auto states = query_baseline(*bound);
    if (states && up_to) remember_baseline(*bound, *states);
    return states;
  }

  Result<std::vector<FunctionState>> query_baseline(std::int64_t bound) {
    // Per function, commit_states is walked backwards from the bound to the first usable state,
    // which is nearly always in the last commit or, along a keyframe chain (whose commits follow
    // one another in sequence, each holding only what changed), in the last commit that changed
    // it. Going back row by row through a chain is going back commit by commit. There is deliberately no
    // index by function: it would make every record() write one index page per function, several times
    // the cost of a record; only a function without any usable state makes this read the whole table.
    auto query = m_db.query(
        "SELECT f.import_statement, f.function_path, "
        "  (SELECT cs.state_id FROM commit_states cs JOIN states s ON s.id = cs.state_id "
        "   WHERE cs.function_id = f.id AND cs.commit_sequence <= ?1 AND s.machinery_failure = 0 "
        "   ORDER BY cs.commit_sequence DESC LIMIT 1) AS state_id "
        "FROM functions f ORDER BY f.id");
    if (!query) return query.error();
    query->bind(1, bound);
    return read_function_states(*query);
  }

  // The watcher asks for the baseline of the commit it recorded last before each commit, and the
  // query above reads every function's rows: the baseline of one sequence is kept in memory and
  // carried forward by each record() of the sequence right after it (carry_baseline).
  struct CachedBaseline {
    std::int64_t sequence = 0;
    std::map<std::int64_t, FunctionState> states;  // by function id, the order baseline() gives
  };

  std::vector<FunctionState> cached_baseline() const {
    std::vector<FunctionState> out;
    out.reserve(m_baseline->states.size());
    for (const auto& [id, state] : m_baseline->states) out.push_back(state);
    return out;
  }

  void remember_baseline(std::int64_t sequence, const std::vector<FunctionState>& states) {
    CachedBaseline cached{sequence, {}};
    for (const FunctionState& state : states) {
      auto known = known_function(state.function);
      if (!known) return;  // not kept: the next call asks the database again
      cached.states.emplace((*known)->id, state);
    }
    m_baseline = std::move(cached);
  }

  // After `record` was committed at `sequence`: the baseline there is the one before it with the
  // record's usable states on top. A rewrite at or before the cached sequence invalidates it; a
  // commit further on leaves it as it is.
  // `since`: the record's states were written from its Since hint, so only its changed positions
  // can differ from the states of the commit before, which the cached baseline already holds.
  void carry_baseline(std::int64_t sequence, const CommitRecord& record, bool since) {
    if (!m_baseline) return;
    if (sequence <= m_baseline->sequence) {
      m_baseline.reset();
      return;
    }
    if (sequence != m_baseline->sequence + 1) return;
    auto carry = [&](const FunctionState& state) {
      if (is_machinery_failure(state.state.status)) return true;
      auto known = known_function(state.function);
      if (!known) return false;
      auto [kept, added] = m_baseline->states.try_emplace((*known)->id, state);
      if (!added && !(kept->second == state)) kept->second = state;  // most states are as they were
      return true;
    };
    bool carried = true;
    if (since) {
      for (std::size_t position : record.since->changed) carried = carried && carry(record.states[position]);
    } else {
      for (const FunctionState& state : record.states) carried = carried && carry(state);
    }
    if (!carried) {
      m_baseline.reset();
      return;
    }
    m_baseline->sequence = sequence;
  }

  // Kept as a named value written with the commit that moved it, not derived from sequence
  // numbers: a commit replayed earlier and reached by the line later keeps its old sequence, and
  // must still become the head.
  Result<std::optional<ObjectId>> line_head() override {
    auto head = value(k_line_head);
    if (!head) return head.error();
    if (!*head) return std::optional<ObjectId>();
    return std::optional<ObjectId>(ObjectId{**head});
  }

  Result<std::vector<Json>> history(const std::optional<std::string>& function_path) override {
    auto query = m_db.query(
        "SELECT c.json FROM changes c JOIN functions f ON f.id = c.function_id "
        "WHERE ?1 IS NULL OR f.function_path = ?1 ORDER BY c.commit_sequence, c.id");
    if (!query) return query.error();
    if (function_path) query->bind(1, *function_path);
    std::vector<Json> changes;
    for (;;) {
      auto row = query->step();
      if (!row) return row.error();
      if (!*row) return changes;
      auto change = parse(query->text(0));
      if (!change) return change.error();
      changes.push_back(std::move(*change));
    }
  }

  Result<std::vector<StoredEvent>> events_after(std::int64_t after) override {
    auto query = m_db.query("SELECT id, json FROM events WHERE id > ?1 ORDER BY id");
    if (!query) return query.error();
    query->bind(1, after);
    std::vector<StoredEvent> events;
    for (;;) {
      auto row = query->step();
      if (!row) return row.error();
      if (!*row) return events;
      auto event = parse(query->text(1));
      if (!event) return event.error();
      events.push_back(StoredEvent{query->integer(0), std::move(*event)});
    }
  }

  Result<std::int64_t> commit_count() override {
    auto query = m_db.query("SELECT count(*) FROM commits");
    if (!query) return query.error();
    auto row = query->step();
    if (!row) return row.error();
    return query->integer(0);
  }

  Result<FailedCommits> failed_commits() override {
    auto query = m_db.query(
        "SELECT count(*) OVER (), sha, error, sequence, recorded_at FROM commits WHERE outcome = 'failed' "
        "ORDER BY sequence DESC LIMIT 1");
    if (!query) return query.error();
    auto row = query->step();
    if (!row) return row.error();
    if (!*row) return FailedCommits{};
    return FailedCommits{query->integer(0), CommitStatus{ObjectId{query->text(1)}, CommitOutcome::failed,
                                                         query->text(2), query->integer(3), query->text(4)}};
  }

  Result<std::vector<ObjectId>> processed_commits() override {
    auto query = m_db.query("SELECT sha FROM commits WHERE outcome = 'processed' ORDER BY sequence");
    if (!query) return query.error();
    std::vector<ObjectId> out;
    for (;;) {
      auto row = query->step();
      if (!row) return row.error();
      if (!*row) return out;
      out.push_back(ObjectId{query->text(0)});
    }
  }

  Result<void> set_value(std::string_view key, std::string_view value) override {
    return run(m_db,
               "INSERT INTO named_values(key, value) VALUES(?1, ?2) "
               "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
               key, value);
  }

  Result<std::optional<std::string>> value(std::string_view key) override {
    auto query = m_db.query("SELECT value FROM named_values WHERE key = ?1");
    if (!query) return query.error();
    auto row = query->bind(1, key).step();
    if (!row) return row.error();
    if (!*row) return std::optional<std::string>();
    return std::optional<std::string>(query->text(0));
  }

  Result<std::vector<OutboxItem>> due_notifications(TimePoint now, std::size_t limit) override {
    return m_outbox.due(now, limit);
  }

  Result<std::optional<TimePoint>> next_notification_due() override { return m_outbox.next_due(); }

  Result<void> update_notification(const OutboxItem& item) override { return m_outbox.update(item); }

  // One transaction: history and the outbox never disagree about a commit's pull request.
  Result<void> set_pull_request(const ObjectId& commit, std::string_view url) override {
    auto transaction = Transaction::begin(m_db);
    if (!transaction) return transaction.error();
    auto status = commit_status(commit);
    if (!status) return status.error();
    if (!*status) return {};
    std::int64_t sequence = (*status)->sequence;
    auto changes = changes_of(sequence);
    if (!changes) return changes.error();
    for (auto& [id, change] : *changes) {
      change["pull_request"] = std::string(url);
      auto written = run(m_db, "UPDATE changes SET json = ?2 WHERE id = ?1", id, compact(change));
      if (!written) return written;
    }
    if (auto written = m_outbox.set_pull_request(sequence, url); !written) return written;
    return transaction->commit();
  }

  Result<OutboxCounts> outbox_counts() override { return m_outbox.counts(); }

  Result<std::vector<OutboxItem>> notifications(OutboxState state, std::size_t limit) override {
    return m_outbox.in_state(state, limit);
  }

 private:
  // (row id, FUNCTION_CHANGE) of every change recorded at the commit `sequence`.
  Result<std::vector<std::pair<std::int64_t, Json>>> changes_of(std::int64_t sequence) {
    auto query = m_db.query("SELECT id, json FROM changes WHERE commit_sequence = ?1");
    if (!query) return query.error();
    query->bind(1, sequence);
    std::vector<std::pair<std::int64_t, Json>> changes;
    for (;;) {
      auto row = query->step();
      if (!row) return row.error();
      if (!*row) return changes;
      auto change = parse(query->text(1));
      if (!change) return change.error();
      changes.emplace_back(query->integer(0), std::move(*change));
    }
  }

  // What record() learnt about a function: its row, and the row of the state it had last.
  struct KnownFunction {
    std::int64_t id = 0;
    std::optional<SignatureState> last_state;
    std::int64_t last_state_id = 0;
  };

  Result<void> write_record(const CommitRecord& record) {
    auto known = commit_status(record.commit.id);
    if (!known) return known.error();
    if (*known) {  // recorded again: the commits whose states are told from its rows get their own
      if (auto kept = materialize_after((*known)->sequence); !kept) return kept;
    }
    auto sequence = write_commit(record);
    if (!sequence) return sequence.error();
    m_recorded_sequence = *sequence;
    if (record.advances_line) {
      if (auto moved = set_value(k_line_head, record.commit.id.hex); !moved) return moved;
    }
    if (auto written = write_states(*sequence, record, !*known); !written) return written;
    for (std::size_t i = 0; i < record.changes.size(); ++i) {
      auto written = write_change(*sequence, record.commit.id, record.changes[i]);
      if (!written) return written.error().context("change " + std::to_string(i));
    }
    for (std::size_t i = 0; i < record.events.size(); ++i) {
      auto written = write_event(record.events[i]);
      if (!written) return written.error().context("event " + std::to_string(i));
    }
    for (std::size_t i = 0; i < record.notifications.size(); ++i) {
      auto written = write_notification(*sequence, record.commit.id, record.notifications[i]);
      if (!written) return written.error().context("notification " + std::to_string(i));
    }
    return {};
  }

  Result<void> write_notification(std::int64_t sequence, const ObjectId& commit,
                                  const Notification& notification) {
    auto function = function_of_change(notification.payload, commit);
    if (!function) return function.error();
    auto known = known_function(*function);
    if (!known) return known.error();
    return m_outbox.add(sequence, (*known)->id, notification);
  }

  // A new commit goes after every other; a known one keeps its sequence, and once it has advanced
  // the line it keeps doing so (replaying an old commit must not move line_head back). `bisected` is
  // the latest record's: a commit built later is no longer inferred.
  Result<std::int64_t> write_commit(const CommitRecord& record) {
    auto query = m_db.query(
        "INSERT INTO commits(sequence, sha, outcome, error, recorded_at, author_name, author_email, "
        "  author_time, author_offset_minutes, subject, advances_line, bisected) "
        "VALUES((SELECT coalesce(max(sequence), 0) + 1 FROM commits), ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
        "?10, ?11) "
        "ON CONFLICT(sha) DO UPDATE SET outcome = excluded.outcome, error = excluded.error, "
        "  recorded_at = excluded.recorded_at, author_name = excluded.author_name, "
        "  author_email = excluded.author_email, author_time = excluded.author_time, "
        "  author_offset_minutes = excluded.author_offset_minutes, subject = excluded.subject, "
        "  advances_line = max(advances_line, excluded.advances_line), bisected = excluded.bisected "
        "RETURNING sequence");
    if (!query) return query.error();
    const CommitInfo& commit = record.commit;
    query->bind(1, commit.id.hex).bind(2, to_string(record.outcome)).bind(3, record.error).bind(4, utc_now());
    query->bind(5, commit.author_name).bind(6, commit.author_email).bind(7, commit.author_time);
    query->bind(8, std::int64_t{commit.author_offset_minutes}).bind(9, commit.subject);
    query->bind(10, std::int64_t{record.advances_line ? 1 : 0})
        .bind(11, std::int64_t{record.bisected ? 1 : 0});
    auto row = query->step();
    if (!row) return row.error();
    if (!*row) return Error(ErrorCode::internal, "no sequence returned for commit '" + commit.id.hex + "'");
    return query->integer(0);
  }

  // One row per function, or, for a new commit recorded right after the one written last with a
  // Since hint from it, one per changed function (a chain from a keyframe; see the schema). With
  // the hint only the changed positions are looked up; the others keep that commit's rows.
  Result<void> write_states(std::int64_t sequence, const CommitRecord& record, bool is_new) {
    const std::vector<FunctionState>& states = record.states;
    m_written_since = record.since && m_written && m_written->commit == record.since->commit &&
                      m_written->rows.size() == states.size() && m_written->sequence != sequence;
    WrittenStates written{record.commit.id, sequence, std::nullopt, {}};
    if (m_written_since) {
      written.rows = std::move(m_written->rows);
      for (std::size_t position : record.since->changed) {
        auto row = row_of(states[position]);
        if (!row) return row.error();
        written.rows[position] = *row;
      }
      std::int64_t keyframe = m_written->keyframe.value_or(m_written->sequence);
      if (is_new && sequence == m_written->sequence + 1 && sequence - keyframe < k_keyframe_period)
        written.keyframe = keyframe;
    } else {
      written.rows.reserve(states.size());
      for (const FunctionState& state : states) {
        auto row = row_of(state);
        if (!row) return row.error();
        written.rows.push_back(*row);
      }
    }
    m_written.reset();  // set again once every row is written
    if (auto cleared = clear_rows(sequence, written.keyframe); !cleared) return cleared;
    auto insert = [&](std::size_t position) -> Result<void> {
      auto inserted = insert_row(sequence, position, written.rows[position]);
      if (!inserted)
        return inserted.error().context("function '" + states[position].function.function_path + "'");
      return {};
    };
    if (written.keyframe) {
      for (std::size_t position : record.since->changed)
        if (auto done = insert(position); !done) return done;
    } else {
      for (std::size_t position = 0; position < states.size(); ++position)
        if (auto done = insert(position); !done) return done;
    }
    m_written = std::move(written);
    return {};
  }

  // (function id, state id) of each function at the commit `sequence`, in recording order.
  using Rows = std::vector<std::pair<std::int64_t, std::int64_t>>;
  Result<Rows> rows_at(std::int64_t sequence) {
    std::optional<std::int64_t> keyframe;
    {
      auto query = m_db.query("SELECT keyframe FROM commits WHERE sequence = ?1");
      if (!query) return query.error();
      auto row = query->bind(1, sequence).step();
      if (!row) return row.error();
      if (*row && !query->is_null(0)) keyframe = query->integer(0);
    }
    auto query = m_db.query(
        "SELECT function_id, state_id, position FROM commit_states "
        "WHERE commit_sequence BETWEEN ?1 AND ?2 ORDER BY commit_sequence, position");
    if (!query) return query.error();
    query->bind(1, keyframe.value_or(sequence)).bind(2, sequence);
    Rows rows;
    for (;;) {
      auto row = query->step();
      if (!row) return row.error();
      if (!*row) return rows;
      auto position = static_cast<std::size_t>(query->integer(2));
      std::pair<std::int64_t, std::int64_t> value{query->integer(0), query->integer(1)};
      if (position < rows.size() && rows[position].first == value.first) {
        rows[position] = value;  // a change in the chain
      } else if (position == rows.size()) {
        rows.push_back(value);
      } else {
        return m_db.corrupt("commit " + std::to_string(sequence) + ": a row at position " +
                            std::to_string(position) + " that its keyframe does not have");
      }
    }
  }

  // Before the commit `sequence` is recorded again: every commit whose states are told from its
  // rows (a chain through it) gets all of its rows, as they are now.
  Result<void> materialize_after(std::int64_t sequence) {
    std::vector<std::int64_t> dependents;
    {
      auto query = m_db.query(
          "SELECT sequence FROM commits WHERE keyframe IS NOT NULL AND keyframe <= ?1 AND sequence > ?1 "
          "ORDER BY sequence");
      if (!query) return query.error();
      query->bind(1, sequence);
      for (;;) {
        auto row = query->step();
        if (!row) return row.error();
        if (!*row) break;
        dependents.push_back(query->integer(0));
      }
    }
    std::vector<Rows> rows;
    for (std::int64_t dependent : dependents) {
      auto at = rows_at(dependent);
      if (!at) return at.error();
      rows.push_back(std::move(*at));
    }
    for (std::size_t i = 0; i < dependents.size(); ++i) {
      if (auto cleared = clear_rows(dependents[i], std::nullopt); !cleared) return cleared;
      for (std::size_t position = 0; position < rows[i].size(); ++position)
        if (auto inserted = insert_row(dependents[i], position, rows[i][position]); !inserted)
          return inserted;
    }
    if (!dependents.empty() && m_written &&
        std::find(dependents.begin(), dependents.end(), m_written->sequence) != dependents.end())
      m_written->keyframe.reset();
    return {};
  }

  // Every function recorded, by id (a few hundred rows at most: read whole).
  Result<std::unordered_map<std::int64_t, MonitoredFunction>> function_names() {
    auto query = m_db.query("SELECT id, import_statement, function_path FROM functions");
    if (!query) return query.error();
    std::unordered_map<std::int64_t, MonitoredFunction> names;
    for (;;) {
      auto row = query->step();
      if (!row) return row.error();
      if (!*row) return names;
      names.emplace(query->integer(0), MonitoredFunction{query->text(1), query->text(2)});
    }
  }

  // Makes the commit `sequence` hold no row yet, as a keyframe (nullopt) or a chain from one.
  Result<void> clear_rows(std::int64_t sequence, std::optional<std::int64_t> keyframe) {
    auto cleared = run(m_db, "DELETE FROM commit_states WHERE commit_sequence = ?1", sequence);
    if (!cleared) return cleared;
    if (keyframe)
      return run(m_db, "UPDATE commits SET keyframe = ?2 WHERE sequence = ?1", sequence, *keyframe);
    return run(m_db, "UPDATE commits SET keyframe = NULL WHERE sequence = ?1", sequence);
  }

  Result<void> insert_row(std::int64_t sequence, std::size_t position,
                          std::pair<std::int64_t, std::int64_t> row) {
    return run(
        m_db,
        "INSERT INTO commit_states(commit_sequence, function_id, state_id, position) VALUES(?1, ?2, ?3, ?4)",
        sequence, row.first, row.second, static_cast<std::int64_t>(position));
  }

  // (function id, state id) of one state to record.
  Result<std::pair<std::int64_t, std::int64_t>> row_of(const FunctionState& state) {
    auto function = known_function(state.function);
    if (!function) return function.error();
    auto id = state_id(**function, state.state);
    if (!id) return id.error();
    return std::make_pair((*function)->id, *id);
  }

  // A change recorded again for the same (commit, function) replaces the old text in place: it keeps
  // its place in history, and a better extraction on a re-run wins.
  Result<void> write_change(std::int64_t sequence, const ObjectId& commit, const Json& change) {
    auto function = function_of_change(change, commit);
    if (!function) return function.error();
    auto known = known_function(*function);
    if (!known) return known.error();
    return run(m_db,
               "INSERT INTO changes(commit_sequence, function_id, json) VALUES(?1, ?2, ?3) "
               "ON CONFLICT(commit_sequence, function_id) DO UPDATE SET json = excluded.json",
               sequence, (*known)->id, compact(change));
  }

  // An event recorded once stays as it was: it may already be in events.jsonl or on its way to a
  // notification.
  Result<void> write_event(const Json& event) {
    if (!event.is_object()) return Error(ErrorCode::invalid_input, "an event must be a JSON object");
    return run(m_db, "INSERT INTO events(dedupe_key, json) VALUES(?1, ?2) ON CONFLICT(dedupe_key) DO NOTHING",
               event_identity(event), compact(event));
  }

  Result<KnownFunction*> known_function(const MonitoredFunction& function) {
    std::string key = function.import_statement + '\n' + function.function_path;
    auto found = m_known.find(key);
    if (found != m_known.end()) return &found->second;
    auto id = function_id(function);
    if (!id) return id.error();
    return &m_known.emplace(std::move(key), KnownFunction{*id, std::nullopt, 0}).first->second;
  }

  // Most functions keep their state from one commit to the next: comparing with the last one is
  // far cheaper than serializing it to find its row.
  Result<std::int64_t> state_id(KnownFunction& function, const SignatureState& state) {
    if (function.last_state && *function.last_state == state) return function.last_state_id;
    auto id = state_id(state);
    if (!id) return id.error();
    function.last_state = state;
    function.last_state_id = *id;
    return *id;
  }

  Result<std::int64_t> function_id(const MonitoredFunction& function) {
    {
      auto query = m_db.query("SELECT id FROM functions WHERE import_statement = ?1 AND function_path = ?2");
      if (!query) return query.error();
      auto row = query->bind(1, function.import_statement).bind(2, function.function_path).step();
      if (!row) return row.error();
      if (*row) return query->integer(0);
    }
    auto inserted = run(m_db, "INSERT INTO functions(import_statement, function_path) VALUES(?1, ?2)",
                        function.import_statement, function.function_path);
    if (!inserted) return inserted.error();
    return m_db.last_insert_id();
  }

  Result<std::int64_t> state_id(const SignatureState& state) {
    std::string json = compact(to_json(state));
    {
      auto query = m_db.query("SELECT id FROM states WHERE json = ?1");
      if (!query) return query.error();
      auto row = query->bind(1, json).step();
      if (!row) return row.error();
      if (*row) return query->integer(0);
    }
    std::int64_t machinery_failure = is_machinery_failure(state.status) ? 1 : 0;
    auto inserted =
        run(m_db, "INSERT INTO states(json, machinery_failure) VALUES(?1, ?2)", json, machinery_failure);
    if (!inserted) return inserted.error();
    return m_db.last_insert_id();
  }

  // The highest sequence baseline() may look at; not_found for a commit never recorded (a caller
  // asking for the baseline of an unknown point has lost track, and "everything" would be wrong).
  Result<std::int64_t> sequence_bound(const std::optional<ObjectId>& up_to) {
    if (!up_to) return std::numeric_limits<std::int64_t>::max();
    auto status = commit_status(*up_to);
    if (!status) return status.error();
    if (!*status) {
      return Error(ErrorCode::not_found,
                   "commit '" + up_to->hex + "' is not recorded in state store " + quoted(m_db.path()));
    }
    return (*status)->sequence;
  }

  // Rows of (import_statement, function_path, state id or NULL); NULL rows are skipped.
  Result<std::vector<FunctionState>> read_function_states(Query& query) {
    std::vector<FunctionState> states;
    for (;;) {
      auto row = query.step();
      if (!row) return row.error();
      if (!*row) return states;
      if (query.is_null(2)) continue;
      auto state = state_by_id(query.integer(2));
      if (!state) return state.error();
      states.push_back(FunctionState{MonitoredFunction{query.text(0), query.text(1)}, **state});
    }
  }

  // The watcher asks for a baseline before every commit: parsing its 50 STATE objects each time
  // would cost more than the query. A state row never changes once committed.
  Result<const SignatureState*> state_by_id(std::int64_t id) {
    auto cached = m_parsed.find(id);
    if (cached != m_parsed.end()) return &cached->second;
    auto query = m_db.query("SELECT json FROM states WHERE id = ?1");
    if (!query) return query.error();
    auto row = query->bind(1, id).step();
    if (!row) return row.error();
    if (!*row) return m_db.corrupt("no state " + std::to_string(id));
    auto json = parse(query->text(0));
    if (!json) return json.error();
    auto state = state_from_json(*json);
    if (!state) return m_db.corrupt(state.error().message());
    return &m_parsed.emplace(id, std::move(*state)).first->second;
  }

  Result<Json> parse(const std::string& text) const { return m_db.parse(text); }

  // After a rollback: what was cached of the rows written may name ids it took back.
  void forget_written() {
    m_known.clear();
    m_parsed.clear();
    m_baseline.reset();
    m_written.reset();
  }

  Database m_db;
  SqliteOutbox m_outbox{m_db};
  // Keyed by "import_statement\nfunction_path". record() sees the same functions, mostly in the
  // same states, commit after commit; this spares it a lookup and a JSON dump for each. Rows are
  // never deleted, so an id stays valid, except one written by a transaction that rolled back.
  std::unordered_map<std::string, KnownFunction> m_known;
  // STATE rows read back, by id (see state_by_id).
  std::unordered_map<std::int64_t, SignatureState> m_parsed;
  std::optional<CachedBaseline> m_baseline;  // see carry_baseline
  std::int64_t m_recorded_sequence = 0;      // of the commit write_record() wrote last
  // The rows write_states() wrote last, for the next record's Since hint; reset by a rollback.
  struct WrittenStates {
    ObjectId commit;
    std::int64_t sequence = 0;
    std::optional<std::int64_t> keyframe;                     // when written as a chain from it
    std::vector<std::pair<std::int64_t, std::int64_t>> rows;  // (function id, state id) by position
  };
  std::optional<WrittenStates> m_written;
  bool m_written_since = false;  // whether the last write_states() used the hint
  // The transaction of a batch (begin_batch); after m_db, so it goes first.
  std::optional<Transaction> m_batch;
};

}  // namespace

Result<std::unique_ptr<StateStore>> open_state_store(const fs::path& path, std::string_view repository_url) {
  if (auto made = make_parent_directories(path); !made) return made.error();
  auto db = Database::open(path);
  if (!db) return db.error();
  auto version = check_schema_version(*db);
  if (!version) return version.error();
  if (auto configured = configure(*db); !configured) return configured.error();
  if (auto migrated = migrate(*db, *version); !migrated) return migrated.error();
  // Redacted: the store must never hold a password embedded in a URL.
  if (auto claimed = claim_repository(*db, redact_url(repository_url)); !claimed) return claimed.error();
  return std::unique_ptr<StateStore>(std::make_unique<SqliteStateStore>(std::move(*db)));
}

Result<std::unique_ptr<StateStore>> open_state_store_read_only(const fs::path& path,
                                                               std::string_view repository_url) {
  auto db = Database::open_read_only(path);
  if (!db) return db.error();
  auto version = check_schema_version(*db);
  if (!version) return version.error();
  if (*version == 0) {
    auto empty = holds_no_table(*db);
    if (!empty) return empty.error();
    if (*empty) return std::unique_ptr<StateStore>();  // being created: nothing recorded yet
  }
  if (*version < k_schema_version) {
    return Error(ErrorCode::invalid_input,
                 "state store " + quoted(path) + " has schema version " + std::to_string(*version) +
                     ", older than version " + std::to_string(k_schema_version) +
                     ", and cannot be migrated while it is read-only: run `watch` once where it can write");
  }
  auto owner = meta_value(*db, "repository_url");
  if (!owner) return owner.error();
  const std::string url = redact_url(repository_url);
  if (*owner && **owner != url) return belongs_to_another(path, **owner, url);
  return std::unique_ptr<StateStore>(std::make_unique<SqliteStateStore>(std::move(*db)));
}

}  // namespace aaw
