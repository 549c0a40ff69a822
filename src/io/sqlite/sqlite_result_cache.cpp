#include "io/sqlite/sqlite_result_cache.hpp"

#include <chrono>

#include "io/sqlite/sqlite_database.hpp"

namespace aaw {
namespace {

std::int64_t days_since_epoch() {
  using namespace std::chrono;
  return duration_cast<hours>(system_clock::now().time_since_epoch()).count() / 24;
}

// synchronous=OFF: a cache lost in a power cut costs one recomputation, and every put stays cheap.
// Each generation's answers apart: a daemon of the previous build still running beside a newer
// command never hands it an answer its code did not make.
constexpr const char* k_schema =
    "PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; "
    "CREATE TABLE IF NOT EXISTS answers (generation TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, "
    "used INTEGER NOT NULL, PRIMARY KEY (generation, key)) WITHOUT ROWID; "
    "CREATE INDEX IF NOT EXISTS answers_used ON answers (used);";

// What other generations stored, what no run used for limits.unused_days, and the least recently
// used past limits.max_entries go.
Result<void> prune(sqlite::Database& db, const std::string& generation,
                   const SqliteResultCache::Limits& limits, std::int64_t today) {
  auto transaction = sqlite::Transaction::begin(db);
  if (!transaction) return transaction.error();
  auto pruned = sqlite::run(db, "DELETE FROM answers WHERE generation <> ?1 OR used < ?2", generation,
                            today - limits.unused_days);
  if (pruned)
    pruned = sqlite::run(
        db,
        "DELETE FROM answers WHERE key IN (SELECT key FROM answers ORDER BY used DESC LIMIT -1 OFFSET ?1)",
        limits.max_entries);
  if (!pruned) return pruned.error();
  return transaction->commit();
}

}  // namespace

SqliteResultCache::SqliteResultCache(std::unique_ptr<sqlite::Database> db, std::string generation,
                                     std::int64_t today)
    : m_db(std::move(db)), m_generation(std::move(generation)), m_today(today) {}

SqliteResultCache::~SqliteResultCache() = default;

Result<std::unique_ptr<SqliteResultCache>> SqliteResultCache::open(const std::filesystem::path& path,
                                                                   const std::string& generation,
                                                                   Limits limits) {
  const std::int64_t day = limits.today ? *limits.today : days_since_epoch();
  auto db = sqlite::Database::open(path);
  if (!db) return db.error();
  auto made = std::make_unique<sqlite::Database>(std::move(*db));
  if (auto ready = made->exec_script(k_schema); !ready) return ready.error();
  if (auto pruned = prune(*made, generation, limits, day); !pruned) return pruned.error();
  return std::unique_ptr<SqliteResultCache>(new SqliteResultCache(std::move(made), generation, day));
}

std::optional<Json> SqliteResultCache::get(const std::string& key) {
  std::string text;
  std::int64_t used = 0;
  {
    auto query = m_db->query("SELECT value, used FROM answers WHERE generation = ?1 AND key = ?2");
    if (!query) return std::nullopt;
    query->bind(1, m_generation).bind(2, key);
    auto row = query->step();
    if (!row || !*row) return std::nullopt;
    text = query->text(0);
    used = query->integer(1);
  }
  auto value = m_db->parse(text);
  if (!value) return std::nullopt;
  if (used < m_today)
    (void)sqlite::run(*m_db, "UPDATE answers SET used = ?3 WHERE generation = ?1 AND key = ?2", m_generation,
                      key, m_today);
  return std::move(*value);
}

void SqliteResultCache::put(const std::string& key, const Json& value) {
  std::string text;
  try {
    text = value.dump();
  } catch (const Json::exception&) {
    return;  // text that is not UTF-8: not kept, computed again next time
  }
  (void)sqlite::run(
      *m_db,
      "INSERT INTO answers (generation, key, value, used) VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT (generation, key) DO UPDATE SET value = excluded.value, used = excluded.used",
      m_generation, key, text, m_today);
}

std::size_t SqliteResultCache::size() {
  auto query = m_db->query("SELECT count(*) FROM answers");
  if (!query) return 0;
  auto row = query->step();
  return row && *row ? static_cast<std::size_t>(query->integer(0)) : 0;
}

}  // namespace aaw
