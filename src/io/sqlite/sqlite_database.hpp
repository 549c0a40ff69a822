// Internal to src/io/sqlite/ (sqlite_state_store.cpp, sqlite_outbox.cpp): one connection
// with its cache of prepared statements, statement leases, and transactions. This and its .cpp are
// the only places where sqlite3 return codes and messages become aaw::Error.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/model/signature.hpp"
#include "util/result.hpp"

namespace aaw::sqlite {

// Long enough for a reader (`history`, `status`) to wait out one record() of the daemon, or the
// daemon to wait out a reader's checkpoint.
constexpr int k_busy_timeout_ms = 5000;

struct CloseDatabase {
  // close_v2: the connection goes once its last statement is finalized, whatever the order.
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct FinalizeStatement {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using DatabasePtr = std::unique_ptr<sqlite3, CloseDatabase>;
using StatementPtr = std::unique_ptr<sqlite3_stmt, FinalizeStatement>;

// "'<path>'", for messages.
std::string quoted(const std::filesystem::path& path);

// Now, as the store writes times: UTC ISO 8601.
std::string utc_now();

class Database;

// A cached prepared statement, leased for one use: bound, stepped, then reset and unbound when the
// lease ends. One lease of a given SQL at a time (a nested lease would reset the outer one).
class Query {
 public:
  Query(const Database& db, sqlite3_stmt* statement) : m_db(&db), m_statement(statement) {}
  Query(Query&& other) noexcept
      : m_db(other.m_db),
        m_statement(std::exchange(other.m_statement, nullptr)),
        m_bind_rc(other.m_bind_rc) {}
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;
  Query& operator=(Query&&) = delete;
  ~Query() {
    if (m_statement == nullptr) return;
    sqlite3_reset(m_statement);
    sqlite3_clear_bindings(m_statement);
  }

  Query& bind(int index, std::string_view text);
  Query& bind(int index, std::int64_t value) { return keep(sqlite3_bind_int64(m_statement, index, value)); }

  // True when a row is ready, false when the statement is done.
  Result<bool> step();
  // Steps to the end, ignoring rows.
  Result<void> run();

  std::string text(int column) const;
  std::int64_t integer(int column) const { return sqlite3_column_int64(m_statement, column); }
  bool is_null(int column) const { return sqlite3_column_type(m_statement, column) == SQLITE_NULL; }

 private:
  // Bind failures are bugs (bad index, oversized value); report the first one at step().
  Query& keep(int rc) {
    if (m_bind_rc == SQLITE_OK) m_bind_rc = rc;
    return *this;
  }

  const Database* m_db;
  sqlite3_stmt* m_statement;
  int m_bind_rc = SQLITE_OK;
};

// One connection and its statement cache.
class Database {
 public:
  // Opens (creating) the file, with the busy timeout set; io when it cannot be opened.
  static Result<Database> open(const std::filesystem::path& path);
  // Opens an existing file for reading only, writing nothing beside it when it cannot: in a
  // read-only directory a WAL database cannot get its -shm file, and is then read as immutable
  // (which nothing can be writing anyway, for want of the same -shm). io when it cannot be read.
  static Result<Database> open_read_only(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return m_path; }

  // "state store '<path>': <sqlite's message>"; call right after the failure.
  Error error(int rc) const;
  // io: "state store '<path>' is damaged: <what>".
  Error corrupt(std::string_view what) const;

  // Several statements, no parameters: schema scripts and pragmas with a value.
  Result<void> exec_script(const std::string& sql);

  // The statement for `sql`, prepared on first use and kept: record() runs the same few statements
  // for every commit and function.
  Result<Query> query(const char* sql);

  std::int64_t last_insert_id() const { return sqlite3_last_insert_rowid(m_db.get()); }
  int changes() const { return sqlite3_changes(m_db.get()); }
  bool in_transaction() const { return sqlite3_get_autocommit(m_db.get()) == 0; }

  // Parses JSON text stored in the database; a document that does not parse is damage.
  Result<Json> parse(const std::string& text) const;

 private:
  // sqlite3_open_v2(name, flags); `path` is what messages name.
  static Result<Database> open_with(const std::filesystem::path& path, const std::string& name, int flags);
  Database(std::filesystem::path path, DatabasePtr db) : m_path(std::move(path)), m_db(std::move(db)) {}

  std::filesystem::path m_path;
  DatabasePtr m_db;
  // Declared after m_db, so the statements are finalized before the connection closes.
  std::unordered_map<std::string, StatementPtr> m_statements;
};

// Runs one SQL statement without rows to the end.
template <class... Values>
Result<void> run(Database& db, const char* sql, const Values&... values) {
  auto query = db.query(sql);
  if (!query) return query.error();
  int index = 0;
  (query->bind(++index, values), ...);
  return query->run();
}

// BEGIN IMMEDIATE ... COMMIT, rolled back when the guard goes without commit(). IMMEDIATE takes
// the write lock up front, so a transaction never fails half way because another writer came first.
// Begun inside a transaction already open (a batch of records, SqliteStateStore::begin_batch), it is
// a savepoint of it: commit() releases it into the open transaction, and the guard going without
// commit() rolls back only what was written since it began.
class Transaction {
 public:
  static Result<Transaction> begin(Database& db) {
    bool nested = db.in_transaction();
    auto begun = run(db, nested ? "SAVEPOINT aaw_nested" : "BEGIN IMMEDIATE");
    if (!begun) return begun.error();
    return Transaction(db, nested);
  }
  Transaction(Transaction&& other) noexcept
      : m_db(std::exchange(other.m_db, nullptr)), m_nested(other.m_nested) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction() {
    // SQLite may already have rolled back by itself (SQLITE_FULL, SQLITE_IOERR, ...): then no
    // savepoint is left either.
    if (m_db == nullptr || !m_db->in_transaction()) return;
    if (m_nested) {
      (void)run(*m_db, "ROLLBACK TO aaw_nested");
      (void)run(*m_db, "RELEASE aaw_nested");
    } else {
      (void)run(*m_db, "ROLLBACK");
    }
  }

  Result<void> commit() {
    auto committed = run(*m_db, m_nested ? "RELEASE aaw_nested" : "COMMIT");
    if (committed) m_db = nullptr;
    return committed;
  }

 private:
  Transaction(Database& db, bool nested) : m_db(&db), m_nested(nested) {}
  Database* m_db;
  bool m_nested;
};

}  // namespace aaw::sqlite
