#include "aaw/util/time.hpp"

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

}  // namespace
}  // namespace aaw
