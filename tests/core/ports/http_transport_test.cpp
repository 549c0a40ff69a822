#include "core/ports/http_transport.hpp"

#include <gtest/gtest.h>

namespace aaw {
namespace {

TEST(HttpTransportTest, HeaderNamesCompareWithoutCase) {
  HttpResponse response;
  response.headers["ETag"] = "W/\"abc\"";
  response.headers["x-ratelimit-remaining"] = "0";
  EXPECT_EQ(response.header("etag"), "W/\"abc\"");
  EXPECT_EQ(response.header("X-RateLimit-Remaining"), "0");
  EXPECT_EQ(response.header("retry-after"), std::nullopt);
}

TEST(HttpTransportTest, OneEntryPerNameWhateverItsCase) {
  HttpHeaders headers;
  headers["Accept"] = "a";
  headers["accept"] = "b";
  EXPECT_EQ(headers.size(), 1U);
  EXPECT_EQ(headers.at("ACCEPT"), "b");
  EXPECT_TRUE(CaseInsensitiveLess()("accept", "Content-Type"));
  EXPECT_FALSE(CaseInsensitiveLess()("Content-Type", "accept"));
}

}  // namespace
}  // namespace aaw
