#include "core/watch/event_log.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/temp_dir.hpp"

namespace aaw {
namespace {

class EventLogTest : public ::testing::Test {
 protected:
  std::filesystem::path path() const { return m_dir.path() / "state" / "events.jsonl"; }
  std::vector<Json> lines() const {
    std::ifstream in(path());
    std::vector<Json> out;
    for (std::string line; std::getline(in, line);) out.push_back(Json::parse(line));
    return out;
  }
  static StoredEvent event(std::int64_t id, const std::string& commit) {
    return StoredEvent{id, Json{{"type", "change"}, {"commit", commit}}};
  }
  test::TempDir m_dir;
};

TEST_F(EventLogTest, AppendsOneLinePerEventWithItsId) {
  auto log = EventLog::open(path());
  ASSERT_TRUE(log) << log.error().message();
  ASSERT_TRUE(log->append({event(1, "a"), event(2, "b")}));
  auto all = lines();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0]["event_id"], 1);
  EXPECT_EQ(all[1]["commit"], "b");
  EXPECT_EQ(log->last_id(), 2);
}

TEST_F(EventLogTest, ResumesAfterTheLastIdInTheFile) {
  ASSERT_TRUE(EventLog::open(path())->append({event(1, "a"), event(2, "b")}));
  auto reopened = EventLog::open(path());
  ASSERT_TRUE(reopened);
  EXPECT_EQ(reopened->last_id(), 2);
  ASSERT_TRUE(reopened->append({event(1, "a"), event(2, "b"), event(3, "c")}));
  auto all = lines();
  ASSERT_EQ(all.size(), 3u) << "events already in the file are not written twice";
  EXPECT_EQ(all[2]["event_id"], 3);
}

TEST_F(EventLogTest, CutsALineTornByACrash) {
  ASSERT_TRUE(EventLog::open(path())->append({event(1, "a")}));
  std::ofstream(path(), std::ios::app) << R"({"type": "change", "commit": "b", "eve)";
  auto reopened = EventLog::open(path());
  ASSERT_TRUE(reopened);
  EXPECT_EQ(reopened->last_id(), 1);
  ASSERT_TRUE(reopened->append({event(2, "b")}));
  auto all = lines();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1]["commit"], "b");
}

TEST_F(EventLogTest, NamesAnUnwritableFile) {
  std::filesystem::create_directories(path());  // a directory where the file should be
  auto log = EventLog::open(path());
  if (log) {
    auto appended = log->append({event(1, "a")});
    ASSERT_FALSE(appended);
    EXPECT_NE(appended.error().message().find(path().string()), std::string::npos);
  } else {
    EXPECT_NE(log.error().message().find(path().string()), std::string::npos);
  }
}

}  // namespace
}  // namespace aaw
