// select_history and parse_history_date: the filters of `history`.
#include "core/report/history_query.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace aaw {
namespace {

Json change(const std::string& commit, const std::string& date, const std::string& severity) {
  return {{"commit", commit}, {"commit_date", date}, {"severity", severity}, {"function_path", "f"}};
}

std::vector<std::string> commits_of(const Result<std::vector<Json>>& changes) {
  EXPECT_TRUE(changes) << changes.error().message();
  std::vector<std::string> out;
  if (changes)
    for (const Json& c : *changes) out.push_back(c["commit"]);
  return out;
}

const std::vector<Json> k_changes = {change("a", "2025-01-10T10:00:00+00:00", "compatible"),
                                     change("b", "2025-01-20T23:30:00-02:00", "breaking"),
                                     change("c", "2025-02-01T00:00:00+00:00", "annotation"),
                                     change("d", "2025-02-15T12:00:00+01:00", "behavioural")};

TEST(HistoryQueryTest, NoFilterKeepsEverythingOldestFirst) {
  EXPECT_EQ(commits_of(select_history(k_changes, {})), (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(HistoryQueryTest, SinceAndUntilCompareTheCommitDateInItsOwnZone) {
  HistoryQuery query;
  query.since = *parse_iso8601("2025-01-21T00:00:00Z");  // b is 2025-01-21T01:30Z
  query.until = *parse_iso8601("2025-02-01");
  EXPECT_EQ(commits_of(select_history(k_changes, query)), (std::vector<std::string>{"b", "c"}));
}

TEST(HistoryQueryTest, SeverityIsTheLeastOneKept) {
  HistoryQuery query;
  query.min_severity = Severity::behavioural;
  EXPECT_EQ(commits_of(select_history(k_changes, query)), (std::vector<std::string>{"b", "d"}));
}

TEST(HistoryQueryTest, LimitKeepsTheNewestStillOldestFirst) {
  HistoryQuery query;
  query.limit = 2;
  EXPECT_EQ(commits_of(select_history(k_changes, query)), (std::vector<std::string>{"c", "d"}));
  query.min_severity = Severity::compatible;
  EXPECT_EQ(commits_of(select_history(k_changes, query)), (std::vector<std::string>{"b", "d"}))
      << "the limit applies after the other filters";
}

TEST(HistoryQueryTest, RangeAsksThePredicateAndPassesItsErrorsOn) {
  HistoryQuery query;
  query.in_range = [](const ObjectId& c) -> Result<bool> { return c.hex == "b" || c.hex == "d"; };
  EXPECT_EQ(commits_of(select_history(k_changes, query)), (std::vector<std::string>{"b", "d"}));
  query.in_range = [](const ObjectId&) -> Result<bool> { return Error(ErrorCode::not_found, "gone"); };
  auto failed = select_history(k_changes, query);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message(), "gone");
}

TEST(HistoryQueryTest, DatesAreIsoOrAgo) {
  TimePoint now = std::chrono::system_clock::from_time_t(1700000000);
  EXPECT_EQ(*parse_history_date("2023-11-14", now, false), 1699920000);
  EXPECT_EQ(*parse_history_date("2023-11-14", now, true), 1699920000 + 86399) << "--until includes the day";
  EXPECT_EQ(*parse_history_date("2023-11-14T10:00Z", now, true), 1699956000);
  EXPECT_EQ(*parse_history_date("3 days ago", now, false), 1700000000 - 3 * 86400);
  EXPECT_EQ(*parse_history_date("1 week ago", now, false), 1700000000 - 7 * 86400);
  EXPECT_EQ(*parse_history_date("90 minutes ago", now, false), 1700000000 - 90 * 60);
  auto bad = parse_history_date("last tuesday", now, false);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::invalid_input);
  EXPECT_NE(bad.error().message().find("'last tuesday' is not a date"), std::string::npos);
  EXPECT_FALSE(parse_history_date("3 fortnights ago", now, false));
  // Further back than any date: before every change, never past the integers' end.
  for (const char* far : {"9223372036854775807 days ago", "99999999999999999999 weeks ago"})
    EXPECT_LT(*parse_history_date(far, now, false), 0) << far;
}

}  // namespace
}  // namespace aaw
