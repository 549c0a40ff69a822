#include "io/sqlite/sqlite_database.hpp"

#include <chrono>

#include "util/time.hpp"

namespace aaw::sqlite {
namespace {

ErrorCode error_code_of(int rc) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return ErrorCode::timeout;
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_TOOBIG:
      return ErrorCode::invalid_input;
    case SQLITE_IOERR:
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_CANTOPEN:
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_PROTOCOL:
    case SQLITE_NOLFS:
      return ErrorCode::io;
    default:
      return ErrorCode::internal;
  }
}

// SQLITE_TRANSIENT is an old-style cast in a macro; this is the same value without the warning.
sqlite3_destructor_type transient() {
  return reinterpret_cast<sqlite3_destructor_type>(static_cast<std::intptr_t>(-1));
}

}  // namespace

std::string quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

std::string utc_now() { return iso8601_utc(std::chrono::system_clock::now()); }

Query& Query::bind(int index, std::string_view text) {
  // A null pointer would bind SQL NULL; an empty string_view may well have one.
  const char* data = text.data() != nullptr ? text.data() : "";
  return keep(sqlite3_bind_text64(m_statement, index, data, text.size(), transient(), SQLITE_UTF8));
}

std::string Query::text(int column) const {
  const auto* data = sqlite3_column_text(m_statement, column);
  if (data == nullptr) return {};
  auto size = static_cast<std::size_t>(sqlite3_column_bytes(m_statement, column));
  return std::string(reinterpret_cast<const char*>(data), size);
}

Result<bool> Query::step() {
  if (m_bind_rc != SQLITE_OK) return m_db->error(m_bind_rc);
  int rc = sqlite3_step(m_statement);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return m_db->error(rc);
}

Result<void> Query::run() {
  for (;;) {
    auto row = step();
    if (!row) return row.error();
    if (!*row) return {};
  }
}

namespace {

// A file: URI for sqlite3_open_v2: the characters URIs give a meaning to are escaped.
std::string immutable_uri(const std::filesystem::path& path) {
  std::string uri = "file:";
  for (const char c : std::filesystem::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#') {
      static constexpr char k_hex[] = "0123456789ABCDEF";
      const auto byte = static_cast<unsigned char>(c);
      uri += {'%', k_hex[byte >> 4], k_hex[byte & 0xf]};
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

}  // namespace

Result<Database> Database::open_with(const std::filesystem::path& path, const std::string& name, int flags) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(name.c_str(), &raw, flags, nullptr);
  Database db(path, DatabasePtr(raw));  // owns the handle even when opening failed
  if (rc != SQLITE_OK) return db.error(rc);
  sqlite3_busy_timeout(raw, k_busy_timeout_ms);
  return db;
}

Result<Database> Database::open(const std::filesystem::path& path) {
  return open_with(path, path.string(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
}

Result<Database> Database::open_read_only(const std::filesystem::path& path) {
  auto db = open_with(path, path.string(), SQLITE_OPEN_READONLY);
  // SQLite opens lazily: the first read is where a WAL file without its -shm fails.
  if (db && db->exec_script("SELECT count(*) FROM sqlite_schema")) return db;
  return open_with(path, immutable_uri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
}

Error Database::error(int rc) const {
  const char* message = m_db ? sqlite3_errmsg(m_db.get()) : sqlite3_errstr(rc);
  return Error(error_code_of(rc), "state store " + quoted(m_path) + ": " + message);
}

Error Database::corrupt(std::string_view what) const {
  return Error(ErrorCode::io, "state store " + quoted(m_path) + " is damaged: " + std::string(what));
}

Result<void> Database::exec_script(const std::string& sql) {
  int rc = sqlite3_exec(m_db.get(), sql.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return error(rc);
  return {};
}

Result<Query> Database::query(const char* sql) {
  auto cached = m_statements.find(sql);
  if (cached == m_statements.end()) {
    sqlite3_stmt* raw = nullptr;
    int rc = sqlite3_prepare_v3(m_db.get(), sql, -1, SQLITE_PREPARE_PERSISTENT, &raw, nullptr);
    if (rc != SQLITE_OK) return error(rc);
    cached = m_statements.emplace(sql, StatementPtr(raw)).first;
  }
  return Query(*this, cached->second.get());
}

Result<Json> Database::parse(const std::string& text) const {
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    return corrupt(e.what());
  }
}

}  // namespace aaw::sqlite
