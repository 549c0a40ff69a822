// The result cache in a SQLite file of the state dir (cache.db). Every answer is stored with the
// generation of the code that made it (this build's version and embedded Python sources): a store
// of another generation is dropped when the cache is opened, as are answers unused for a month and,
// past 100,000, the least recently used, so the file stays small for months.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "core/ports/result_cache.hpp"
#include "util/result.hpp"

namespace aaw {

namespace sqlite {
class Database;
}

class SqliteResultCache final : public ResultCache {
 public:
  struct Limits {
    std::int64_t unused_days = 30;
    std::int64_t max_entries = 100000;
    std::optional<std::int64_t> today;  // days since 1970 (default: now)
  };

  // Opens (creating) the cache at `path` for code of `generation`, pruned to `limits`; io when the
  // file cannot be opened or written (a read-only state dir): callers go on without a cache.
  static Result<std::unique_ptr<SqliteResultCache>> open(const std::filesystem::path& path,
                                                         const std::string& generation, Limits limits);
  static Result<std::unique_ptr<SqliteResultCache>> open(const std::filesystem::path& path,
                                                         const std::string& generation) {
    return open(path, generation, Limits());
  }
  ~SqliteResultCache() override;

  std::optional<Json> get(const std::string& key) override;
  void put(const std::string& key, const Json& value) override;

  // The answers stored, of every generation.
  std::size_t size();

 private:
  SqliteResultCache(std::unique_ptr<sqlite::Database> db, std::string generation, std::int64_t today);
  std::unique_ptr<sqlite::Database> m_db;
  std::string m_generation;
  std::int64_t m_today;
};

}  // namespace aaw
