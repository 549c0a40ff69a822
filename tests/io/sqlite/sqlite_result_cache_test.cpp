// The result cache in a real SQLite file: answers outlive the process, each generation sees only
// its own, and what is old, of another generation or past the limit is pruned when it is opened.
#include "io/sqlite/sqlite_result_cache.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "support/temp_dir.hpp"

namespace aaw {
namespace {

using Limits = SqliteResultCache::Limits;

class SqliteResultCacheTest : public ::testing::Test {
 protected:
  std::unique_ptr<SqliteResultCache> open(const std::string& generation = "g1", Limits limits = {}) {
    if (!limits.today) limits.today = 20000;
    auto cache = SqliteResultCache::open(m_dir.path() / "cache.db", generation, limits);
    EXPECT_TRUE(cache) << cache.error().message();
    return cache ? std::move(*cache) : nullptr;
  }
  test::TempDir m_dir{"aaw-result-cache"};
};

TEST_F(SqliteResultCacheTest, AnAnswerOutlivesTheConnectionThatStoredIt) {
  const Json value = {{"events", {{"note_use", "aiter.x", "a.py", "module"}}}, {"n", 3}, {"s", "é\n"}};
  {
    auto cache = open();
    EXPECT_FALSE(cache->get("k").has_value());
    cache->put("k", value);
    cache->put("k2", Json::array());
    cache->put("k2", 5);  // replaced
  }
  auto cache = open();
  EXPECT_EQ(cache->get("k"), value);
  EXPECT_EQ(cache->get("k2"), Json(5));
  EXPECT_FALSE(cache->get("k3").has_value());
}

TEST_F(SqliteResultCacheTest, AGenerationSeesOnlyItsOwnAnswersAndDropsTheOthersWhenOpened) {
  auto old = open("g1");
  old->put("k", "old");
  auto current = open("g2");
  EXPECT_FALSE(current->get("k").has_value());
  EXPECT_EQ(current->size(), 0u);
  current->put("k", "new");
  old->put("k", "old again");  // a daemon of the previous build still running
  EXPECT_EQ(current->get("k"), Json("new"));
  EXPECT_EQ(old->get("k"), Json("old again"));
}

TEST_F(SqliteResultCacheTest, AnswersUnusedForLongerThanTheLimitArePruned) {
  {
    auto cache = open("g", {30, 100000, 20000});
    cache->put("kept", 1);
    cache->put("forgotten", 2);
  }
  {
    auto cache = open("g", {30, 100000, 20020});
    EXPECT_EQ(cache->get("kept"), Json(1));  // used on day 20020
  }
  auto cache = open("g", {30, 100000, 20040});
  EXPECT_EQ(cache->get("kept"), Json(1));
  EXPECT_FALSE(cache->get("forgotten").has_value());
  EXPECT_EQ(cache->size(), 1u);
}

TEST_F(SqliteResultCacheTest, PastTheMostAnswersTheLeastRecentlyUsedGo) {
  for (int day = 0; day < 5; ++day) open("g", {30, 100, 20000 + day})->put("k" + std::to_string(day), day);
  auto cache = open("g", {30, 3, 20005});
  EXPECT_EQ(cache->size(), 3u);
  EXPECT_FALSE(cache->get("k0").has_value());
  EXPECT_FALSE(cache->get("k1").has_value());
  EXPECT_EQ(cache->get("k4"), Json(4));
}

TEST_F(SqliteResultCacheTest, TextThatIsNotUtf8IsNotKeptAndADamagedAnswerIsAMiss) {
  auto cache = open();
  cache->put("bad", std::string("\xff\xfe"));
  EXPECT_FALSE(cache->get("bad").has_value());
  cache->put("k", 1);
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open((m_dir.path() / "cache.db").c_str(), &raw), SQLITE_OK);
    sqlite3_busy_timeout(raw, 5000);
    EXPECT_EQ(sqlite3_exec(raw, "UPDATE answers SET value = '{not json'", nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(raw);
  }
  EXPECT_FALSE(cache->get("k").has_value());
}

TEST_F(SqliteResultCacheTest, ACacheThatCannotBeOpenedIsAnErrorNamingIt) {
  const auto path = m_dir.path() / "no" / "such" / "dir" / "cache.db";
  auto cache = SqliteResultCache::open(path, "g");
  ASSERT_FALSE(cache);
  EXPECT_NE(cache.error().message().find(path.string()), std::string::npos) << cache.error().message();
}

}  // namespace
}  // namespace aaw
