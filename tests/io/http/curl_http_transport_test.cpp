// The libcurl transport against a real HTTP server on 127.0.0.1 (the GitHub emulator): what goes
// out, what comes back, and what a failure says (and never says).
#include "io/http/curl_http_transport.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "core/ports/http_transport.hpp"
#include "support/github_emulator.hpp"
#include "support/sample_values.hpp"

namespace aaw {
namespace {

using test::k_sample_sha;

using namespace std::chrono_literals;
using test::GithubEmulator;

constexpr const char* k_transport_token = "ghp_transportSecret0123456789";

class CurlHttpTransportTest : public ::testing::Test {
 protected:
  HttpRequest get(const std::string& path) const {
    HttpRequest request;
    request.url = m_server.url() + path;
    return request;
  }

  GithubEmulator m_server;
  std::unique_ptr<HttpTransport> m_http = make_curl_transport();
};

TEST_F(CurlHttpTransportTest, ReturnsStatusHeadersAndBody) {
  m_server.set_branch("o/n", "main", k_sample_sha);
  auto response = m_http->perform(get("/repos/o/n/commits/main"));
  ASSERT_TRUE(response) << response.error().message();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->header("ETAG"), "W/\"" + std::string(k_sample_sha) + "-json\"");
  EXPECT_EQ(response->header("content-type"), "application/json; charset=utf-8");
  EXPECT_NE(response->body.find(k_sample_sha), std::string::npos);
}

TEST_F(CurlHttpTransportTest, SendsMethodHeadersAndBody) {
  HttpRequest request = get("/hooks/slack?channel=x");
  request.method = "POST";
  request.headers["Content-Type"] = "application/json";
  request.headers["X-Custom"] = "yes";
  request.body = R"({"text": "hello"})";
  auto response = m_http->perform(request);
  ASSERT_TRUE(response) << response.error().message();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "ok");
  const auto seen = m_server.requests();
  ASSERT_EQ(seen.size(), 1U);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].target, "/hooks/slack?channel=x");
  EXPECT_EQ(seen[0].header("x-custom"), "yes");
  EXPECT_EQ(seen[0].header("content-type"), "application/json");
  EXPECT_EQ(seen[0].header("expect"), "");  // no 100-continue round trip
  EXPECT_EQ(seen[0].body, R"({"text": "hello"})");
  EXPECT_EQ(m_server.hook_bodies("slack"), std::vector<std::string>{R"({"text": "hello"})"});
}

TEST_F(CurlHttpTransportTest, AnErrorStatusIsAResponse) {
  auto response = m_http->perform(get("/repos/nobody/nothing/commits/main"));
  ASSERT_TRUE(response) << response.error().message();
  EXPECT_EQ(response->status, 404);
  EXPECT_NE(response->body.find("Not Found"), std::string::npos);
}

TEST_F(CurlHttpTransportTest, RefusedConnectionIsANetworkErrorNamingTheUrlWithoutSecrets) {
  m_server.go_down();
  HttpRequest request;
  request.url = "http://user:" + std::string(k_transport_token) +
                "@127.0.0.1:" + std::to_string(m_server.port()) +
                "/repos/o/n/issues?access_token=querySecret";
  request.headers["Authorization"] = "Bearer " + std::string(k_transport_token);
  auto response = m_http->perform(request);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().code(), ErrorCode::network);
  const std::string& message = response.error().message();
  EXPECT_NE(message.find("http://127.0.0.1:" + std::to_string(m_server.port()) + "/repos/o/n/issues"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find(k_transport_token), std::string::npos) << message;
  EXPECT_EQ(message.find("querySecret"), std::string::npos) << message;
  EXPECT_EQ(message.find("user:"), std::string::npos) << message;
  EXPECT_EQ(m_server.request_count(), 0U);
}

TEST_F(CurlHttpTransportTest, ServerBackUpOnTheSamePortAnswersAgain) {
  m_server.go_down();
  ASSERT_FALSE(m_http->perform(get("/hooks/a")));
  m_server.go_up();
  auto response = m_http->perform(get("/repos/o/n/commits/main"));
  ASSERT_TRUE(response) << response.error().message();
  EXPECT_EQ(response->status, 404);
}

TEST_F(CurlHttpTransportTest, SlowReplyTimesOut) {
  m_server.set_branch("o/n", "main", k_sample_sha);
  m_server.delay_next(5s);
  HttpRequest request = get("/repos/o/n/commits/main");
  request.total_timeout = 300ms;
  request.headers["Authorization"] = "Bearer " + std::string(k_transport_token);
  const auto start = std::chrono::steady_clock::now();
  auto response = m_http->perform(request);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().code(), ErrorCode::timeout);
  EXPECT_EQ(response.error().message().find(k_transport_token), std::string::npos);
  EXPECT_LT(elapsed, 3s);
  // The emulator noticed the client hung up and serves the next request at once.
  auto next = m_http->perform(get("/repos/o/n/commits/main"));
  ASSERT_TRUE(next) << next.error().message();
  EXPECT_EQ(next->status, 200);
}

TEST_F(CurlHttpTransportTest, DroppedConnectionIsANetworkError) {
  m_server.drop_next();
  auto response = m_http->perform(get("/hooks/a"));
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().code(), ErrorCode::network);
  EXPECT_EQ(m_server.request_count(), 1U);
}

TEST_F(CurlHttpTransportTest, RedirectsAreAnswersNotFollowed) {
  GithubEmulator elsewhere;
  m_server.redirect_next(elsewhere.url() + "/hooks/stolen", 1, 302);
  HttpRequest request = get("/repos/o/n/commits/main");
  request.headers["Authorization"] = "Bearer " + std::string(k_transport_token);
  auto response = m_http->perform(request);
  ASSERT_TRUE(response) << response.error().message();
  EXPECT_EQ(response->status, 302);
  EXPECT_EQ(response->header("location"), elsewhere.url() + "/hooks/stolen");
  EXPECT_EQ(elsewhere.request_count(), 0U);
}

}  // namespace
}  // namespace aaw
