#include "util/url.hpp"

#include <gtest/gtest.h>

namespace aaw {
namespace {

TEST(UrlTest, HostOfSchemeUrls) {
  EXPECT_EQ(url_host("https://github.com/ROCm/aiter.git"), "github.com");
  EXPECT_EQ(url_host("https://x-access-token:secret@GitHub.com/ROCm/aiter"), "github.com");
  EXPECT_EQ(url_host("http://127.0.0.1:8080/api/v3"), "127.0.0.1");
  EXPECT_EQ(url_host("ssh://git@ghe.example.com:2222/o/n.git"), "ghe.example.com");
  EXPECT_EQ(url_host("https://api.github.com"), "api.github.com");
  EXPECT_EQ(url_host("git://host?x"), "host");
  EXPECT_EQ(url_host("http://[::1]:8080/x"), "[::1]");
}

TEST(UrlTest, HostOfScpLikeUrls) { EXPECT_EQ(url_host("git@github.com:ROCm/aiter.git"), "github.com"); }

TEST(UrlTest, LocalPathsHaveNoHost) {
  EXPECT_EQ(url_host("/srv/git/aiter.git"), "");
  EXPECT_EQ(url_host("./aiter"), "");
  EXPECT_EQ(url_host("dir/with:colon"), "");
}

TEST(UrlTest, HttpUrlsNeedTheSchemeAndAHost) {
  EXPECT_TRUE(is_http_url("https://hooks.slack.com/services/T0/B0/x"));
  EXPECT_TRUE(is_http_url("HTTP://127.0.0.1:8080/hook"));
  EXPECT_FALSE(is_http_url("not a url"));
  EXPECT_FALSE(is_http_url("hooks.slack.com/services/T0"));
  EXPECT_FALSE(is_http_url("ftp://example.com/x"));
  EXPECT_FALSE(is_http_url("https:///path-only"));
  EXPECT_FALSE(is_http_url("https://host/with space"));
}

}  // namespace
}  // namespace aaw
