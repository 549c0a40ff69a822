// The GitHub client over the real libcurl transport against the GitHub emulator on 127.0.0.1,
// with a fake clock: every backoff and rate-limit wait is a recorded sleep that takes no time.
// A few cases the emulator cannot produce (GitHub echoing the token) use FakeHttp.
#include "io/http/github_rest_client.hpp"

#include <gtest/gtest.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <numeric>

#include "core/ports/github_client.hpp"
#include "io/http/curl_http_transport.hpp"
#include "support/fake_clock.hpp"
#include "support/fake_http.hpp"
#include "support/github_emulator.hpp"
#include "support/sample_values.hpp"

namespace aaw {
namespace {

using test::k_sample_sha;

using namespace std::chrono_literals;
using test::EmulatedPull;
using test::FakeClock;
using test::GithubEmulator;

constexpr const char* k_client_token = "ghp_clientSecret0123456789abcdef";
constexpr const char* k_repo = "ROCm/aiter";
constexpr const char* k_sha2 = "89abcdef0123456789abcdef0123456789abcdef";

// Keeps what was logged, to count warnings and to look for the token (never for wording).
class MemorySink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  int warnings() const { return m_warnings; }
  const std::string& text() const { return m_text; }

 protected:
  void sink_it_(const spdlog::details::log_msg& message) override {
    if (message.level == spdlog::level::warn) ++m_warnings;
    m_text.append(message.payload.data(), message.payload.size());
    m_text += '\n';
  }
  void flush_() override {}

 private:
  int m_warnings = 0;
  std::string m_text;
};

std::int64_t epoch(TimePoint time) {
  return std::chrono::duration_cast<std::chrono::seconds>(time.time_since_epoch()).count();
}

class GithubClientTest : public ::testing::Test {
 protected:
  GithubClientTest() : m_log(std::make_shared<spdlog::logger>("test", m_sink)) {
    m_log->set_level(spdlog::level::trace);
  }

  GithubClientOptions options() const {
    GithubClientOptions options;
    options.api_url = m_github.url();
    options.token = k_client_token;
    options.backoff_base = 100ms;
    options.backoff_cap = 1s;
    options.total_timeout = 5s;
    return options;
  }

  GithubClient& client() {
    if (!m_client) m_client = make_github_client(options(), *m_http, m_clock, *m_log);
    return *m_client;
  }

  Duration slept() const {
    const auto& sleeps = m_clock.sleeps();
    return std::accumulate(sleeps.begin(), sleeps.end(), Duration(0));
  }

  // Every request the emulator saw carried the token, and nothing logged or returned shows it.
  void expect_no_token_in(const std::string& text) const {
    EXPECT_EQ(text.find(k_client_token), std::string::npos) << text;
    EXPECT_EQ(m_sink->text().find(k_client_token), std::string::npos) << m_sink->text();
  }

  GithubEmulator m_github;
  std::unique_ptr<HttpTransport> m_http = make_curl_transport();
  FakeClock m_clock;
  std::shared_ptr<MemorySink> m_sink = std::make_shared<MemorySink>();
  std::shared_ptr<spdlog::logger> m_log;
  std::unique_ptr<GithubClient> m_client;
};

// ---- branch head and ETag ----------------------------------------------------------------------

TEST_F(GithubClientTest, BranchHeadSendsGithubHeadersAndReturnsShaAndEtag) {
  m_github.set_branch(k_repo, "main", k_sample_sha);
  auto head = client().branch_head(k_repo, "main", "");
  ASSERT_TRUE(head) << head.error().message();
  EXPECT_FALSE(head->not_modified);
  EXPECT_EQ(head->sha, k_sample_sha);
  EXPECT_FALSE(head->etag.empty());
  const auto seen = m_github.requests();
  ASSERT_EQ(seen.size(), 1U);
  EXPECT_EQ(seen[0].target, "/repos/ROCm/aiter/commits/main");
  EXPECT_EQ(seen[0].header("authorization"), "Bearer " + std::string(k_client_token));
  EXPECT_EQ(seen[0].header("x-github-api-version"), "2022-11-28");
  EXPECT_EQ(seen[0].header("user-agent"), "aiter-api-watcher");
  EXPECT_EQ(seen[0].header("if-none-match"), "");
}

TEST_F(GithubClientTest, SecondPollSendsTheEtagAndAn304CostsNoRateLimit) {
  m_github.set_branch(k_repo, "main", k_sample_sha);
  auto first = client().branch_head(k_repo, "main", "");
  ASSERT_TRUE(first) << first.error().message();
  auto second = client().branch_head(k_repo, "main", first->etag);
  ASSERT_TRUE(second) << second.error().message();
  EXPECT_TRUE(second->not_modified);
  EXPECT_EQ(second->etag, first->etag);
  EXPECT_EQ(m_github.requests().at(1).header("if-none-match"), first->etag);
  EXPECT_EQ(m_github.rate_limit_used(), 1);

  m_github.set_branch(k_repo, "main", k_sha2);
  auto moved = client().branch_head(k_repo, "main", first->etag);
  ASSERT_TRUE(moved) << moved.error().message();
  EXPECT_FALSE(moved->not_modified);
  EXPECT_EQ(moved->sha, k_sha2);
  EXPECT_NE(moved->etag, first->etag);
}

TEST_F(GithubClientTest, BranchNamesWithSlashesStayPaths) {
  m_github.set_branch(k_repo, "release/v1", k_sample_sha);
  auto head = client().branch_head(k_repo, "release/v1", "");
  ASSERT_TRUE(head) << head.error().message();
  EXPECT_EQ(head->sha, k_sample_sha);
}

TEST_F(GithubClientTest, UnknownBranchIsInvalidInputWithGithubsMessage) {
  m_github.set_branch(k_repo, "main", k_sample_sha);
  auto head = client().branch_head(k_repo, "nope", "");
  ASSERT_FALSE(head);
  EXPECT_EQ(head.error().code(), ErrorCode::invalid_input);
  EXPECT_NE(head.error().message().find("422"), std::string::npos) << head.error().message();
  EXPECT_NE(head.error().message().find("GET /repos/ROCm/aiter/commits/nope"), std::string::npos);
  EXPECT_NE(head.error().message().find("No commit found for SHA: nope"), std::string::npos);
  EXPECT_EQ(m_github.request_count(), 1U);  // a 4xx is not retried
}

TEST_F(GithubClientTest, MalformedRepositorySendsNothing) {
  auto head = client().branch_head("not a repo", "main", "");
  ASSERT_FALSE(head);
  EXPECT_EQ(head.error().code(), ErrorCode::invalid_input);
  auto pulls = client().pull_request_for("../x/y", k_sample_sha);
  ASSERT_FALSE(pulls);
  EXPECT_EQ(m_github.request_count(), 0U);
}

// ---- retries -----------------------------------------------------------------------------------

TEST_F(GithubClientTest, RetriesServerErrorsWithCappedBackoffThenSucceeds) {
  m_github.set_branch(k_repo, "main", k_sample_sha);
  m_github.fail_next(2, 500);
  auto head = client().branch_head(k_repo, "main", "");
  ASSERT_TRUE(head) << head.error().message();
  EXPECT_EQ(head->sha, k_sample_sha);
  EXPECT_EQ(m_github.request_count(), 3U);
  EXPECT_LE(m_clock.sleeps().size(), 2U);
  EXPECT_LE(slept(), 100ms + 200ms);  // full jitter: up to base, then up to 2 * base
}

TEST_F(GithubClientTest, GivesUpAfterMaxAttemptsAsNetworkError) {
  m_github.set_branch(k_repo, "main", k_sample_sha);
  m_github.fail_next(10, 502);
  auto head = client().branch_head(k_repo, "main", "");
  ASSERT_FALSE(head);
  EXPECT_EQ(head.error().code(), ErrorCode::network);
  EXPECT_NE(head.error().message().find("502"), std::string::npos) << head.error().message();
  EXPECT_EQ(m_github.request_count(), 4U);  // max_attempts
  EXPECT_LE(slept(), 100ms + 200ms + 400ms);
  expect_no_token_in(head.error().message());
}

TEST_F(GithubClientTest, DroppedConnectionIsRetried) {
  m_github.set_branch(k_repo, "main", k_sample_sha);
  m_github.drop_next(1);
  auto head = client().branch_head(k_repo, "main", "");
  ASSERT_TRUE(head) << head.error().message();
  EXPECT_EQ(m_github.request_count(), 2U);
}

TEST_F(GithubClientTest, UnreachableApiIsANetworkErrorAfterTheRetries) {
  m_github.go_down();
  auto head = client().branch_head(k_repo, "main", "");
  ASSERT_FALSE(head);
  EXPECT_EQ(head.error().code(), ErrorCode::network);
  EXPECT_NE(head.error().message().find("4 attempts"), std::string::npos) << head.error().message();
  expect_no_token_in(head.error().message());

  m_github.go_up();
  m_github.set_branch(k_repo, "main", k_sample_sha);
  auto again = client().branch_head(k_repo, "main", "");
  ASSERT_TRUE(again) << again.error().message();
}

TEST_F(GithubClientTest, JitteredBackoffStaysUnderTheCap) {
  test::FakeHttp http;
  for (int i = 0; i < 5; ++i) http.fail(ErrorCode::network, "connection reset");
  GithubClientOptions o = options();
  o.max_attempts = 6;
  o.backoff_base = 1000ms;
  o.backoff_cap = 1500ms;
  http.respond(200, k_sample_sha);
  auto github = make_github_client(o, http, m_clock, *m_log);
  auto head = github->branch_head(k_repo, "main", "");
  ASSERT_TRUE(head) << head.error().message();
  EXPECT_EQ(http.requests().size(), 6U);
  for (const Duration sleep : m_clock.sleeps()) EXPECT_LE(sleep, 1500ms);
  EXPECT_LE(slept(), 1000ms + 4 * 1500ms);
}

// ---- rate limits -------------------------------------------------------------------------------

TEST_F(GithubClientTest, PrimaryLimitWithNearResetWaitsThenSucceeds) {
  m_github.set_branch(k_repo, "main", k_sample_sha);
  const TimePoint start = m_clock.now();
  m_github.rate_limit_next(epoch(start) + 30);
  auto head = client().branch_head(k_repo, "main", "");
  ASSERT_TRUE(head) << head.error().message();
  EXPECT_EQ(m_github.request_count(), 2U);
  EXPECT_GE(m_clock.now() - start, 30s);
  EXPECT_LE(m_clock.now() - start, 32s);
  EXPECT_EQ(m_sink->warnings(), 1);
}

TEST_F(GithubClientTest, PrimaryLimitWithFarResetFailsFastAndLaterCallsSendNothing) {
  m_github.set_branch(k_repo, "main", k_sample_sha);
  const TimePoint start = m_clock.now();
  m_github.rate_limit_next(epoch(start) + 7200);
  auto head = client().branch_head(k_repo, "main", "");
  ASSERT_FALSE(head);
  EXPECT_EQ(head.error().code(), ErrorCode::timeout);
  EXPECT_NE(head.error().message().find("GitHub rate limit: retry after 2023-11-15T00:13:21Z"),
            std::string::npos)
      << head.error().message();
  EXPECT_EQ(m_clock.now(), start);  // no sleeping through two hours

  for (int i = 0; i < 3; ++i) {
    auto later = client().pull_request_for(k_repo, k_sample_sha);
    ASSERT_FALSE(later);
    EXPECT_EQ(later.error().code(), ErrorCode::timeout);
  }
  EXPECT_EQ(m_github.request_count(), 1U);
  EXPECT_EQ(m_sink->warnings(), 1);  // logged once, not per call

  m_clock.advance(2h + 1s);
  auto after = client().branch_head(k_repo, "main", "");
  ASSERT_TRUE(after) << after.error().message();
}

TEST_F(GithubClientTest, RetryAfterIsHonoured) {
  m_github.set_branch(k_repo, "main", k_sample_sha);
  m_github.retry_after_next(20);
  auto head = client().branch_head(k_repo, "main", "");
  ASSERT_TRUE(head) << head.error().message();
  EXPECT_EQ(m_clock.sleeps(), std::vector<Duration>{20s});
  EXPECT_EQ(m_github.request_count(), 2U);
}

TEST_F(GithubClientTest, SecondaryLimitWithoutHeadersWaitsAtLeastAMinute) {
  m_github.set_branch(k_repo, "main", k_sample_sha);
  m_github.secondary_limit_next(1, 403);
  auto head = client().branch_head(k_repo, "main", "");
  ASSERT_TRUE(head) << head.error().message();
  ASSERT_EQ(m_clock.sleeps().size(), 1U);
  EXPECT_GE(m_clock.sleeps()[0], 60s);
  EXPECT_EQ(m_sink->warnings(), 1);
}

TEST_F(GithubClientTest, PersistentSecondaryLimitBacksOffBeyondTheWaitAndStops) {
  m_github.set_branch(k_repo, "main", k_sample_sha);
  m_github.secondary_limit_next(5, 429);
  auto head = client().branch_head(k_repo, "main", "");
  ASSERT_FALSE(head);
  EXPECT_EQ(head.error().code(), ErrorCode::timeout);
  EXPECT_EQ(m_github.request_count(), 2U);  // 60 s slept, then 120 s is longer than allowed
  EXPECT_EQ(m_clock.sleeps(), std::vector<Duration>{60s});
  EXPECT_EQ(m_sink->warnings(), 1);
}

TEST_F(GithubClientTest, ForbiddenWithoutRateLimitIsAPermissionError) {
  test::FakeHttp http;
  http.respond(403, R"({"message": "Resource not accessible by integration"})");
  auto github = make_github_client(options(), http, m_clock, *m_log);
  auto created = github->create_issue(k_repo, "t", "b", {});
  ASSERT_FALSE(created);
  EXPECT_EQ(created.error().code(), ErrorCode::invalid_input);
  EXPECT_NE(created.error().message().find("Resource not accessible by integration"), std::string::npos);
  EXPECT_TRUE(m_clock.sleeps().empty());
}

TEST_F(GithubClientTest, QuotaUsedUpOnASuccessfulAnswerHoldsTheNextRequest) {
  m_github.set_branch(k_repo, "main", k_sample_sha);
  const TimePoint start = m_clock.now();
  m_github.set_rate_limit(1, epoch(start) + 40);
  std::size_t requests_when_waiting = 99;
  m_clock.on_sleep([&](std::size_t) {
    requests_when_waiting = m_github.request_count();
    m_github.set_rate_limit(5000, epoch(m_clock.now()) + 3600);  // the window reset
  });
  ASSERT_TRUE(client().branch_head(k_repo, "main", ""));
  auto second = client().branch_head(k_repo, "main", "");
  ASSERT_TRUE(second) << second.error().message();
  EXPECT_EQ(requests_when_waiting, 1U);  // nothing was sent into the exhausted quota
  EXPECT_GE(m_clock.now() - start, 40s);
  EXPECT_EQ(m_github.request_count(), 2U);
  EXPECT_EQ(m_sink->warnings(), 1);
}

TEST_F(GithubClientTest, QuotaUsedUpForHoursFailsTheNextCallWithoutARequest) {
  m_github.set_branch(k_repo, "main", k_sample_sha);
  m_github.set_rate_limit(1, epoch(m_clock.now()) + 3 * 3600);
  ASSERT_TRUE(client().branch_head(k_repo, "main", ""));
  auto second = client().branch_head(k_repo, "main", "");
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code(), ErrorCode::timeout);
  EXPECT_EQ(m_github.request_count(), 1U);
}

// ---- where the token goes ----------------------------------------------------------------------

TEST_F(GithubClientTest, TokenIsInNoErrorAndNoLogLine) {
  m_github.set_branch(k_repo, "main", k_sample_sha);
  m_github.require_token("ghp_theRightOne");
  auto refused = client().branch_head(k_repo, "main", "");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), ErrorCode::invalid_input);
  EXPECT_NE(refused.error().message().find("Bad credentials"), std::string::npos);
  expect_no_token_in(refused.error().message());

  m_github.rate_limit_next(epoch(m_clock.now()) + 7200);
  m_github.require_token(k_client_token);
  auto limited = client().branch_head(k_repo, "main", "");
  ASSERT_FALSE(limited);
  EXPECT_EQ(m_sink->warnings(), 1);
  expect_no_token_in(limited.error().message());
}

TEST_F(GithubClientTest, TokenEchoedByTheServerIsScrubbed) {
  test::FakeHttp http;
  http.respond(400,
               R"({"message": "bad header Authorization: Bearer )" + std::string(k_client_token) + R"("})");
  auto github = make_github_client(options(), http, m_clock, *m_log);
  auto head = github->branch_head(k_repo, "main", "");
  ASSERT_FALSE(head);
  EXPECT_NE(head.error().message().find("Bearer ***"), std::string::npos) << head.error().message();
  expect_no_token_in(head.error().message());
}

TEST_F(GithubClientTest, NoAuthorizationWithoutAToken) {
  m_github.set_branch(k_repo, "main", k_sample_sha);
  GithubClientOptions anonymous = options();
  anonymous.token.clear();
  auto github = make_github_client(anonymous, *m_http, m_clock, *m_log);
  ASSERT_TRUE(github->branch_head(k_repo, "main", ""));
  EXPECT_EQ(m_github.requests().at(0).header("authorization"), "");
}

TEST_F(GithubClientTest, RedirectToAnotherHostIsNotFollowed) {
  GithubEmulator elsewhere;
  elsewhere.set_branch(k_repo, "main", k_sample_sha);
  m_github.set_branch(k_repo, "main", k_sample_sha);
  m_github.redirect_next(elsewhere.url() + "/repos/ROCm/aiter/commits/main");
  auto head = client().branch_head(k_repo, "main", "");
  ASSERT_FALSE(head);
  EXPECT_EQ(head.error().code(), ErrorCode::invalid_input);
  EXPECT_NE(head.error().message().find("301"), std::string::npos) << head.error().message();
  EXPECT_EQ(elsewhere.request_count(), 0U);
}

TEST_F(GithubClientTest, RedirectWithinTheApiIsFollowed) {
  m_github.set_branch("ROCm/aiter-renamed", "main", k_sample_sha);
  m_github.redirect_next(m_github.url() + "/repos/ROCm/aiter-renamed/commits/main");
  auto head = client().branch_head(k_repo, "main", "");
  ASSERT_TRUE(head) << head.error().message();
  EXPECT_EQ(head->sha, k_sample_sha);
  const auto seen = m_github.requests();
  ASSERT_EQ(seen.size(), 2U);
  EXPECT_EQ(seen[1].target, "/repos/ROCm/aiter-renamed/commits/main");
  EXPECT_EQ(seen[1].header("authorization"), "Bearer " + std::string(k_client_token));
}

// ---- pull requests -----------------------------------------------------------------------------

TEST_F(GithubClientTest, PullRequestPrefersTheMergedOne) {
  m_github.set_pulls(k_repo, k_sample_sha, {{5, "open one", false}, {7, "merged one", true}});
  auto pull = client().pull_request_for(k_repo, k_sample_sha);
  ASSERT_TRUE(pull) << pull.error().message();
  ASSERT_TRUE(pull->has_value());
  EXPECT_EQ((*pull)->number, 7);
  EXPECT_EQ((*pull)->title, "merged one");
  EXPECT_EQ((*pull)->url, "https://github.com/ROCm/aiter/pull/7");
  EXPECT_EQ(m_github.requests().at(0).target,
            "/repos/ROCm/aiter/commits/" + std::string(k_sample_sha) + "/pulls");
}

TEST_F(GithubClientTest, PullRequestFallsBackToTheFirstOrNone) {
  m_github.set_pulls(k_repo, k_sample_sha, {{5, "open one", false}, {6, "another", false}});
  m_github.set_pulls(k_repo, k_sha2, {});
  auto first = client().pull_request_for(k_repo, k_sample_sha);
  ASSERT_TRUE(first) << first.error().message();
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->number, 5);
  auto none = client().pull_request_for(k_repo, k_sha2);
  ASSERT_TRUE(none) << none.error().message();
  EXPECT_FALSE(none->has_value());
}

TEST_F(GithubClientTest, PullRequestOfAnUnknownCommitIsAnError) {
  m_github.set_pulls(k_repo, k_sample_sha, {});
  auto pull = client().pull_request_for(k_repo, k_sha2);
  ASSERT_FALSE(pull);
  EXPECT_EQ(pull.error().code(), ErrorCode::invalid_input);
}

// ---- issues ------------------------------------------------------------------------------------

TEST_F(GithubClientTest, FindIssueReadsFurtherPagesAndSkipsPullRequests) {
  m_github.add_issue(k_repo, "the one", "body\n<!-- aiter-api-watcher:abc -->\n");
  for (int i = 0; i < 149; ++i) m_github.add_issue(k_repo, "other " + std::to_string(i), "nothing here");
  m_github.add_issue(k_repo, "a PR quoting it", "<!-- aiter-api-watcher:abc -->", true);
  auto found = client().find_issue(k_repo, "<!-- aiter-api-watcher:abc -->");
  ASSERT_TRUE(found) << found.error().message();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->number, 1);
  EXPECT_EQ((*found)->url, "https://github.com/ROCm/aiter/issues/1");
  const auto seen = m_github.requests();
  ASSERT_EQ(seen.size(), 2U);
  EXPECT_EQ(seen[0].target,
            "/repos/ROCm/aiter/issues?state=all&per_page=100&sort=created&direction=desc&page=1");
  EXPECT_NE(seen[1].target.find("page=2"), std::string::npos);
}

TEST_F(GithubClientTest, FindIssueFindsClosedIssuesAndNothingInPullRequests) {
  const auto closed = m_github.add_issue(k_repo, "closed", "marker-1");
  m_github.close_issue(k_repo, closed);
  m_github.add_issue(k_repo, "pr", "marker-2", true);
  auto found = client().find_issue(k_repo, "marker-1");
  ASSERT_TRUE(found) << found.error().message();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->number, closed);
  auto none = client().find_issue(k_repo, "marker-2");
  ASSERT_TRUE(none) << none.error().message();
  EXPECT_FALSE(none->has_value());
  EXPECT_EQ(m_github.request_count(), 2U);  // one page each: the Link header has no next
}

TEST_F(GithubClientTest, FindIssueReadsABoundedNumberOfPages) {
  m_github.add_issue(k_repo, "ancient", "marker");
  for (int i = 0; i < 1050; ++i) m_github.add_issue(k_repo, "filler", "filler");
  auto found = client().find_issue(k_repo, "marker");
  ASSERT_TRUE(found) << found.error().message();
  EXPECT_FALSE(found->has_value());
  EXPECT_EQ(m_github.request_count(), 10U);
}

TEST_F(GithubClientTest, CreateIssuePostsTitleBodyAndLabels) {
  m_github.add_issue(k_repo, "existing", "x");
  auto created =
      client().create_issue(k_repo, "API Change Detected: aiter.fmoe", "the body", {"api", "breaking"});
  ASSERT_TRUE(created) << created.error().message();
  EXPECT_EQ(created->number, 2);
  EXPECT_EQ(created->url, "https://github.com/ROCm/aiter/issues/2");
  const auto issues = m_github.issues(k_repo);
  ASSERT_EQ(issues.size(), 2U);
  EXPECT_EQ(issues[1].title, "API Change Detected: aiter.fmoe");
  EXPECT_EQ(issues[1].body, "the body");
  EXPECT_EQ(issues[1].labels, (std::vector<std::string>{"api", "breaking"}));
  const auto request = m_github.requests().at(0);
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.header("content-type"), "application/json");
  EXPECT_EQ(request.header("authorization"), "Bearer " + std::string(k_client_token));
}

TEST_F(GithubClientTest, CreateIssueRejectedIsInvalidInputWithGithubsMessage) {
  m_github.add_issue(k_repo, "existing", "x");
  auto created = client().create_issue(k_repo, "", "body", {});
  ASSERT_FALSE(created);
  EXPECT_EQ(created.error().code(), ErrorCode::invalid_input);
  const std::string& message = created.error().message();
  EXPECT_NE(message.find("GitHub answered 422 to POST /repos/ROCm/aiter/issues: Validation Failed"),
            std::string::npos)
      << message;
}

TEST_F(GithubClientTest, CreateIssueIsNotResentAfterAServerError) {
  m_github.add_issue(k_repo, "existing", "x");
  m_github.fail_next(1, 502);
  auto created = client().create_issue(k_repo, "t", "b", {});
  ASSERT_FALSE(created);
  EXPECT_EQ(created.error().code(), ErrorCode::network);
  EXPECT_EQ(m_github.request_count(), 1U);
}

TEST_F(GithubClientTest, CreateIssueIsResentAfterARateLimit) {
  m_github.add_issue(k_repo, "existing", "x");
  m_github.retry_after_next(5, 1, 403);
  auto created = client().create_issue(k_repo, "t", "b", {});
  ASSERT_TRUE(created) << created.error().message();
  EXPECT_EQ(m_github.issues(k_repo).size(), 2U);
  EXPECT_EQ(m_github.request_count(), 2U);
}

}  // namespace
}  // namespace aaw
