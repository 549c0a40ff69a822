#include "util/time.hpp"

#include <gtest/gtest.h>

namespace aaw {
namespace {

TEST(TimeTest, AuthorDateKeepsItsOffset) {
  EXPECT_EQ(iso8601(1745682114, 120), "2025-04-26T17:41:54+02:00");
  EXPECT_EQ(iso8601(1745682114, -330), "2025-04-26T10:11:54-05:30");
}

TEST(TimeTest, UtcFromSecondsAndFromATimePoint) {
  EXPECT_EQ(iso8601_utc(std::int64_t{0}), "1970-01-01T00:00:00Z");
  EXPECT_EQ(iso8601_utc(TimePoint(std::chrono::milliseconds(1'763'705'243'999))), "2025-11-21T06:07:23Z");
  EXPECT_EQ(epoch_seconds(TimePoint(std::chrono::milliseconds(-1))), -1) << "rounds down";
}

TEST(TimeTest, ParsesOnlyWhatItWrites) {
  EXPECT_EQ(parse_iso8601_utc("2025-11-21T06:07:23Z"), 1763705243);
  EXPECT_EQ(parse_iso8601_utc(iso8601_utc(std::int64_t{1'700'000'000})), 1'700'000'000);
  EXPECT_EQ(parse_iso8601_utc("2025-11-21T06:07:23+00:00"), std::nullopt);
  EXPECT_EQ(parse_iso8601_utc("2025-11-21T06:07:23Zjunk"), std::nullopt);
  EXPECT_EQ(parse_iso8601_utc("never"), std::nullopt);
}

TEST(TimeTest, ParsesTheIsoDatesPeopleAndGitWrite) {
  EXPECT_EQ(parse_iso8601("2023-11-14"), 1699920000);
  EXPECT_EQ(parse_iso8601("2023-11-14T22:13:20Z"), 1700000000);
  EXPECT_EQ(parse_iso8601("2023-11-14 22:13:20"), 1700000000) << "no zone: UTC";
  EXPECT_EQ(parse_iso8601("2023-11-14T22:13"), 1700000000 - 20);
  EXPECT_EQ(parse_iso8601("2023-11-15T00:13:20+02:00"), 1700000000) << "as history's commit_date";
  EXPECT_EQ(parse_iso8601("2023-11-14T16:43:20-0530"), 1700000000);
  for (const char* bad :
       {"", "yesterday", "2023-13-01", "2023-11-14T25:00", "2023-11-14X", "2023-11-14T22:13:20+2",
        "2023-11-14T22:13:20Zjunk", "20231114", "2025-02-30", "2025-04-31", "2025-02-29", "1900-02-29"})
    EXPECT_EQ(parse_iso8601(bad), std::nullopt) << bad;
  EXPECT_EQ(parse_iso8601("2024-02-29"), 1709164800) << "a leap day";
  EXPECT_EQ(parse_iso8601("2000-02-29"), 951782400);
}

}  // namespace
}  // namespace aaw
