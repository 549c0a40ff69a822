// The notifier on the real SQLite store, with a fake GitHub client and a fake HTTP transport for
// the webhook (the real ones, against the GitHub emulator on 127.0.0.1, are exercised by
// tests/integration/notify_cli_test.cpp).
#include "notify/notifier.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/model/function_change.hpp"
#include "io/sqlite/sqlite_state_store.hpp"
#include "notify/channel_registry.hpp"
#include "notify/github_issue_channel.hpp"
#include "notify/notification_message.hpp"
#include "notify/webhook_channel.hpp"
#include "support/fake_clock.hpp"
#include "support/fake_github.hpp"
#include "support/fake_http.hpp"
#include "support/sample_values.hpp"
#include "support/temp_dir.hpp"

namespace aaw {
namespace {

using test::sha;

using namespace std::chrono_literals;

constexpr const char* k_repository = "https://github.com/ROCm/aiter.git";
constexpr const char* k_secret_hook = "https://hooks.slack.com/services/T0AAA/B0BBB/s3cr3tPart";

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Commit n removed parameter 'b' of `function_path`: a breaking FUNCTION_CHANGE.
FunctionChange breaking_change(int n, const std::string& function_path) {
  FunctionChange change;
  change.commit.id = sha(n);
  change.commit.author_name = "Ada";
  change.commit.author_email = "ada@example.com";
  change.commit.author_time = 1700000000;
  change.commit.subject = "Drop b from " + function_path;
  change.function = {"import aiter", function_path};
  Signature before;
  before.parameters = {Parameter{"a", ParameterKind::positional_or_keyword, {}, {}},
                       Parameter{"b", ParameterKind::positional_or_keyword, {}, {}}};
  Signature after;
  after.parameters = {before.parameters[0]};
  change.before = SignatureState::ok(before);
  change.after = SignatureState::ok(after);
  change.changes = diff_states(change.before, change.after);
  return change;
}

class NotifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = open_state_store(m_dir.path() / "state.db", k_repository);
    ASSERT_TRUE(store) << store.error().message();
    m_store = std::move(*store);
    LogConfig log;
    log.file = (m_dir.path() / "watcher.log").string();
    m_log = *make_logger(log, ConsoleStream::none);
    m_options.source_repo = "ROCm/aiter";
    m_notify["github_issue"] = {{"repo", "vllm/aiter-watch"}, {"labels", {"aiter", "api-change"}}};
    m_notify["webhook"] = {{"url", k_secret_hook}};
    m_options.backoff_base = 1000ms;
    m_options.backoff_cap = 8000ms;
    m_options.jitter_seed = 42;
    m_transport.otherwise([](const HttpRequest&) {
      return Result<HttpResponse>(HttpResponse{200, {}, "ok"});
    });
  }

  Notifier& notifier() {
    if (!m_notifier) {
      NotifyConfig notify;
      for (const auto& [name, section] : m_notify.items()) notify.sections[name] = section;
      m_context =
          std::make_unique<ChannelContext>(ChannelContext{k_repository, m_transport, m_github, *m_log});
      m_notifier = std::make_unique<Notifier>(m_options, builtin_channels().make_channels(notify, *m_context),
                                              *m_store, m_github, *m_log);
    }
    return *m_notifier;
  }

  // Records commit n with a breaking change of each function, queued for `targets`.
  void record(int n, const std::vector<std::string_view>& targets,
              const std::vector<std::string>& functions = {"aiter.fmoe"}) {
    CommitRecord record;
    record.commit = breaking_change(n, functions[0]).commit;
    for (const std::string& f : functions) {
      Json change = to_json(breaking_change(n, f));
      record.changes.push_back(change);
      for (std::string_view target : targets) record.notifications.push_back({std::string(target), change});
    }
    auto recorded = m_store->record(record);
    ASSERT_TRUE(recorded) << recorded.error().message();
  }

  DeliveryReport deliver(TimePoint now) {
    auto report = notifier().deliver_due(now);
    EXPECT_TRUE(report) << report.error().message();
    return report ? *report : DeliveryReport{};
  }

  std::vector<OutboxItem> in_state(OutboxState state) { return *m_store->notifications(state, 100); }
  OutboxItem only_pending() {
    auto pending = in_state(OutboxState::pending);
    EXPECT_EQ(pending.size(), 1u);
    return pending.empty() ? OutboxItem{} : pending[0];
  }

  test::TempDir m_dir{"aaw-notifier"};
  TimePoint m_now = TimePoint(std::chrono::seconds(1'800'000'000));
  std::unique_ptr<StateStore> m_store;
  std::shared_ptr<Logger> m_log;
  NotifierOptions m_options;
  Json m_notify = Json::object();
  test::FakeGithub m_github;
  test::FakeHttp m_transport;
  std::unique_ptr<ChannelContext> m_context;
  std::unique_ptr<Notifier> m_notifier;
};

// ---- GitHub issues ------------------------------------------------------------------------------

TEST_F(NotifierTest, CreatesOneIssueAndRecordsItsUrl) {
  record(1, {k_target_github_issue});
  auto report = deliver(m_now);
  EXPECT_EQ(report.delivered, 1);
  ASSERT_EQ(m_github.issues.size(), 1u);
  const auto& issue = m_github.issues[0];
  EXPECT_EQ(issue.repo, "vllm/aiter-watch");
  EXPECT_EQ(issue.title, "API Change Detected: aiter.fmoe");
  EXPECT_EQ(issue.labels, (std::vector<std::string>{"aiter", "api-change"}));
  EXPECT_NE(issue.body.find(issue_marker(to_json(breaking_change(1, "aiter.fmoe")))), std::string::npos);
  auto delivered = in_state(OutboxState::delivered);
  ASSERT_EQ(delivered.size(), 1u);
  EXPECT_EQ(delivered[0].delivered_ref, "https://github.com/vllm/aiter-watch/issues/1");
  EXPECT_EQ(delivered[0].attempts, 1);

  EXPECT_EQ(deliver(m_now + 1h).attempted(), 0);
  EXPECT_EQ(m_github.create_calls, 1);
}

TEST_F(NotifierTest, IssueCarryingTheMarkerAlreadyIsNotCreatedAgain) {
  record(1, {k_target_github_issue});
  std::string marker = issue_marker(to_json(breaking_change(1, "aiter.fmoe")));
  m_github.issues.push_back({"vllm/aiter-watch",
                             "API Change Detected: aiter.fmoe",
                             "text\n" + marker,
                             {},
                             {7, "https://github.com/vllm/aiter-watch/issues/7"}});
  EXPECT_EQ(deliver(m_now).delivered, 1);
  EXPECT_EQ(m_github.create_calls, 0);
  EXPECT_EQ(in_state(OutboxState::delivered)[0].delivered_ref,
            "https://github.com/vllm/aiter-watch/issues/7");
}

// The state after a crash between GitHub creating the issue and the store marking it delivered:
// the issue exists and the row is still pending. Delivering again finds it by its marker.
TEST_F(NotifierTest, NoSecondIssueAfterACrashBetweenCreatingAndMarkingDelivered) {
  record(1, {k_target_github_issue});
  deliver(m_now);
  OutboxItem item = in_state(OutboxState::delivered)[0];
  item.state = OutboxState::pending;
  item.delivered_ref.clear();
  ASSERT_TRUE(m_store->update_notification(item));

  EXPECT_EQ(deliver(m_now + 1s).delivered, 1);
  EXPECT_EQ(m_github.issues.size(), 1u);
  EXPECT_EQ(m_github.create_calls, 1);
  EXPECT_EQ(in_state(OutboxState::delivered)[0].delivered_ref,
            "https://github.com/vllm/aiter-watch/issues/1");
}

TEST_F(NotifierTest, TwoFunctionsOfOneCommitGetTwoIssues) {
  record(1, {k_target_github_issue}, {"aiter.fmoe", "aiter.asm_moe"});
  EXPECT_EQ(deliver(m_now).delivered, 2);
  ASSERT_EQ(m_github.issues.size(), 2u);
  EXPECT_EQ(m_github.issues[1].title, "API Change Detected: aiter.asm_moe");
}

TEST_F(NotifierTest, GithubRefusalCountsAndNetworkErrorDoesNot) {
  record(1, {k_target_github_issue});
  m_github.find_errors.push_back(
      Error(ErrorCode::invalid_input, "GitHub answered 404 to GET /repos/x/issues: Not Found"));
  m_github.find_errors.push_back(Error(ErrorCode::network, "cannot reach https://api.github.com: refused"));
  EXPECT_EQ(deliver(m_now).retrying, 1);
  OutboxItem item = only_pending();
  EXPECT_EQ(item.client_errors, 1);
  EXPECT_EQ(item.last_error, "GitHub answered 404 to GET /repos/x/issues: Not Found");
  EXPECT_EQ(deliver(item.next_attempt_at).retrying, 1);
  item = only_pending();
  EXPECT_EQ(item.client_errors, 1) << "a network error neither counts nor resets";
  EXPECT_EQ(item.attempts, 2);
  EXPECT_EQ(deliver(item.next_attempt_at).delivered, 1);
  EXPECT_EQ(in_state(OutboxState::delivered)[0].client_errors, 0);
}

TEST_F(NotifierTest, RateLimitedGithubIsRetriedLater) {
  record(1, {k_target_github_issue});
  m_github.create_errors.push_back(
      Error(ErrorCode::timeout, "GitHub rate limit: retry after 2027-01-01T00:00:00Z"));
  EXPECT_EQ(deliver(m_now).retrying, 1);
  OutboxItem item = only_pending();
  EXPECT_EQ(item.client_errors, 0);
  EXPECT_GT(item.next_attempt_at, m_now);
  EXPECT_EQ(deliver(item.next_attempt_at).delivered, 1);
  EXPECT_EQ(m_github.issues.size(), 1u);
}

// ---- webhook ------------------------------------------------------------------------------------

TEST_F(NotifierTest, WebhookGetsTheChangeAsJsonWithText) {
  record(1, {k_target_webhook});
  EXPECT_EQ(deliver(m_now).delivered, 1);
  ASSERT_EQ(m_transport.requests().size(), 1u);
  const HttpRequest request = m_transport.requests()[0];
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.url, k_secret_hook);
  EXPECT_EQ(request.headers.at("content-type"), "application/json");
  EXPECT_EQ(request.total_timeout, m_context->total_timeout);
  Json body = Json::parse(request.body);
  Json expected = webhook_payload(to_json(breaking_change(1, "aiter.fmoe")), k_repository);
  EXPECT_EQ(body, expected);
  EXPECT_TRUE(body["text"].is_string());
  EXPECT_EQ(in_state(OutboxState::delivered).size(), 1u);
}

TEST_F(NotifierTest, ServerErrorsAreRetriedWithCappedJitteredExponentialBackoff) {
  record(1, {k_target_webhook});
  for (int i = 0; i < 5; ++i) m_transport.respond(503, "busy");
  TimePoint now = m_now;
  for (Duration full : {1000ms, 2000ms, 4000ms, 8000ms, 8000ms}) {
    ASSERT_EQ(deliver(now).retrying, 1);
    OutboxItem item = only_pending();
    Duration delay = std::chrono::duration_cast<Duration>(item.next_attempt_at - now);
    EXPECT_GE(delay, full / 2) << "attempt " << item.attempts;
    EXPECT_LE(delay, full) << "attempt " << item.attempts;
    EXPECT_EQ(item.client_errors, 0);
    EXPECT_NE(item.last_error.find("answered 503: busy"), std::string::npos) << item.last_error;
    std::size_t sent = m_transport.requests().size();
    EXPECT_EQ(deliver(item.next_attempt_at - 1ms).attempted(), 0) << "not before its time";
    EXPECT_EQ(m_transport.requests().size(), sent);
    now = item.next_attempt_at;
  }
  EXPECT_EQ(deliver(now).delivered, 1);
  EXPECT_EQ(in_state(OutboxState::delivered)[0].attempts, 6);
}

TEST_F(NotifierTest, WebhookAnswering502IsTriedAgainWithinTheRound) {
  test::FakeClock clock(m_now);
  m_options.clock = &clock;
  record(1, {k_target_webhook});
  m_transport.respond(502, "bad gateway");
  m_transport.respond(502, "bad gateway");
  EXPECT_EQ(deliver(m_now).delivered, 1);
  EXPECT_EQ(m_transport.requests().size(), 3u);
  EXPECT_EQ(clock.sleeps(), (std::vector<Duration>{1000ms, 2000ms}));
  EXPECT_EQ(in_state(OutboxState::delivered)[0].attempts, 1) << "one attempt of the schedule";
}

TEST_F(NotifierTest, QuickRetriesEndInTheBackoffWhenTheTargetStaysDown) {
  test::FakeClock clock(m_now);
  m_options.clock = &clock;
  record(1, {k_target_webhook});
  for (int i = 0; i < 3; ++i) m_transport.respond(503, "busy");
  EXPECT_EQ(deliver(m_now).retrying, 1);
  EXPECT_EQ(m_transport.requests().size(), 3u);
  EXPECT_GT(only_pending().next_attempt_at, clock.now());
}

TEST_F(NotifierTest, ATargetFoundDownIsNotTriedQuicklyAgainForTheRestOfTheRound) {
  test::FakeClock clock(m_now);
  m_options.clock = &clock;
  record(1, {k_target_webhook});
  record(2, {k_target_webhook});
  for (int i = 0; i < 4; ++i) m_transport.respond(503, "busy");
  EXPECT_EQ(deliver(m_now).retrying, 2);
  EXPECT_EQ(m_transport.requests().size(), 4u) << "three tries of the first, one of the second";
  EXPECT_EQ(clock.sleeps().size(), 2u);
}

TEST_F(NotifierTest, QuickRetryOfAnIssueLooksItsMarkerUpFirst) {
  test::FakeClock clock(m_now);
  m_options.clock = &clock;
  record(1, {k_target_github_issue});
  // The issue was made but the answer was lost (a 502 from a proxy): the retry finds it.
  m_github.create_errors.push_back(Error(ErrorCode::network, "GitHub answered 502 to POST /issues"));
  m_github.issues.push_back({"vllm/aiter-watch",
                             "API Change Detected: aiter.fmoe",
                             issue_marker(to_json(breaking_change(1, "aiter.fmoe"))),
                             {},
                             IssueRef{7, "https://github.com/vllm/aiter-watch/issues/7"}});
  m_github.find_errors.push_back(Error(ErrorCode::network, "GitHub answered 502 to GET /search/issues"));
  EXPECT_EQ(deliver(m_now).delivered, 1);
  EXPECT_EQ(m_github.find_calls, 2);
  EXPECT_EQ(m_github.create_calls, 0);
  EXPECT_EQ(in_state(OutboxState::delivered)[0].delivered_ref,
            "https://github.com/vllm/aiter-watch/issues/7");
}

TEST_F(NotifierTest, RateLimitAskingForALongerWaitIsNotTriedAgainAtOnce) {
  test::FakeClock clock(m_now);
  m_options.clock = &clock;
  record(1, {k_target_webhook});
  m_transport.respond(429, "slow down", {{"retry-after", "60"}});
  EXPECT_EQ(deliver(m_now).retrying, 1);
  EXPECT_EQ(m_transport.requests().size(), 1u);
  EXPECT_TRUE(clock.sleeps().empty());
}

TEST_F(NotifierTest, BackoffIsJitteredAcrossItems) {
  std::set<Duration::rep> delays;
  for (int i = 0; i < 20; ++i) delays.insert(notifier().backoff(3).count());
  EXPECT_GT(delays.size(), 10u);
  for (auto d : delays) {
    EXPECT_GE(d, 2000);
    EXPECT_LE(d, 4000);
  }
}

TEST_F(NotifierTest, TooManyRequestsWaitsAtLeastRetryAfter) {
  record(1, {k_target_webhook});
  m_transport.respond(429, "slow down", {{"Retry-After", "120"}});
  EXPECT_EQ(deliver(m_now).retrying, 1);
  OutboxItem item = only_pending();
  EXPECT_GE(item.next_attempt_at, m_now + 120s);
  EXPECT_EQ(item.client_errors, 0) << "a rate limit is no refusal";
}

TEST_F(NotifierTest, NetworkErrorIsRetried) {
  record(1, {k_target_webhook});
  m_transport.fail(ErrorCode::network, "connection refused");
  EXPECT_EQ(deliver(m_now).retrying, 1);
  OutboxItem item = only_pending();
  EXPECT_EQ(item.client_errors, 0);
  EXPECT_EQ(item.last_error, "webhook https://hooks.slack.com: connection refused");
}

TEST_F(NotifierTest, FiveRefusalsInARowFailTheNotification) {
  record(1, {k_target_webhook});
  for (int i = 0; i < 5; ++i) m_transport.respond(404, "no_service");
  TimePoint now = m_now;
  for (int i = 1; i <= 4; ++i) {
    ASSERT_EQ(deliver(now).retrying, 1);
    OutboxItem item = only_pending();
    EXPECT_EQ(item.client_errors, i);
    now = item.next_attempt_at;
  }
  EXPECT_EQ(deliver(now).failed, 1);
  auto failed = in_state(OutboxState::failed);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].client_errors, 5);
  EXPECT_EQ(failed[0].last_error, "webhook https://hooks.slack.com answered 404: no_service");
  EXPECT_EQ(deliver(now + 24h).attempted(), 0);
  EXPECT_EQ(m_transport.requests().size(), 5u);
  EXPECT_EQ(m_store->outbox_counts()->failed, 1);
}

TEST_F(NotifierTest, SuccessEndsTheRefusalCount) {
  record(1, {k_target_webhook});
  for (int i = 0; i < 4; ++i) m_transport.respond(400, "invalid_payload");
  TimePoint now = m_now;
  for (int i = 0; i < 4; ++i) {
    deliver(now);
    now = only_pending().next_attempt_at;
  }
  EXPECT_EQ(deliver(now).delivered, 1);
  auto delivered = in_state(OutboxState::delivered);
  ASSERT_EQ(delivered.size(), 1u);
  EXPECT_EQ(delivered[0].client_errors, 0);
  EXPECT_EQ(delivered[0].last_error, "");
}

TEST_F(NotifierTest, WebhookSecretIsInNoLogLineAndNoStoredError) {
  record(1, {k_target_webhook});
  m_transport.fail(ErrorCode::network, std::string("cannot POST ") + k_secret_hook + ": timed out");
  m_transport.respond(404, "no such hook /services/T0AAA/B0BBB/s3cr3tPart");
  deliver(m_now);
  OutboxItem item = only_pending();
  EXPECT_EQ(item.last_error,
            "webhook https://hooks.slack.com: cannot POST https://hooks.slack.com/…: timed out");
  deliver(item.next_attempt_at);
  EXPECT_EQ(only_pending().last_error, "webhook https://hooks.slack.com answered 404: no such hook /…");
  m_notifier.reset();
  m_store.reset();
  std::string log = read_all(m_dir.path() / "watcher.log");
  EXPECT_NE(log.find("https://hooks.slack.com"), std::string::npos) << log;
  for (const auto& entry : std::filesystem::directory_iterator(m_dir.path())) {
    std::string bytes = read_all(entry.path());
    EXPECT_EQ(bytes.find("s3cr3tPart"), std::string::npos) << entry.path();
    EXPECT_EQ(bytes.find("B0BBB"), std::string::npos) << entry.path();
  }
}

TEST_F(NotifierTest, WebhookUserinfoIsRedactedToo) {
  m_notify["webhook"]["url"] = "https://bot:pa55word@hooks.example.com/in";
  record(1, {k_target_webhook});
  m_transport.fail(ErrorCode::network, "cannot reach bot:pa55word@hooks.example.com");
  deliver(m_now);
  EXPECT_EQ(only_pending().last_error, "webhook https://hooks.example.com: cannot reach hooks.example.com");
}

// ---- enrichment, targets, flush -----------------------------------------------------------------

TEST_F(NotifierTest, PullRequestFoundIsWrittenBackAndAnnouncedOnEveryTarget) {
  record(1, {k_target_github_issue, k_target_webhook});
  m_github.pulls[sha(1).hex] = PullRequest{42, "Drop b", "https://github.com/ROCm/aiter/pull/42"};
  EXPECT_EQ(deliver(m_now).delivered, 2);
  EXPECT_EQ(m_github.pull_calls, 1) << "one lookup per commit and round";
  EXPECT_NE(m_github.issues[0].body.find("https://github.com/ROCm/aiter/pull/42"), std::string::npos);
  EXPECT_EQ(Json::parse(m_transport.requests()[0].body)["pull_request"],
            "https://github.com/ROCm/aiter/pull/42");
  auto history = *m_store->history(std::nullopt);
  EXPECT_EQ(history[0]["pull_request"], "https://github.com/ROCm/aiter/pull/42");
}

TEST_F(NotifierTest, FailedPullRequestLookupDoesNotHoldDeliveryBack) {
  record(1, {k_target_webhook});
  m_github.pull_errors.push_back(Error(ErrorCode::network, "cannot reach https://api.github.com"));
  EXPECT_EQ(deliver(m_now).delivered, 1);
  EXPECT_TRUE(Json::parse(m_transport.requests()[0].body)["pull_request"].is_null());
  EXPECT_TRUE((*m_store->history(std::nullopt))[0]["pull_request"].is_null());
}

TEST_F(NotifierTest, NoPullRequestLookupOffGithub) {
  m_options.source_repo.reset();
  record(1, {k_target_webhook});
  EXPECT_EQ(deliver(m_now).delivered, 1);
  EXPECT_EQ(m_github.pull_calls, 0);
}

TEST_F(NotifierTest, NotificationForAnUnconfiguredTargetFailsAtOnce) {
  m_notify["github_issue"]["repo"] = "";
  record(1, {k_target_github_issue});
  EXPECT_EQ(deliver(m_now).failed, 1);
  EXPECT_EQ(in_state(OutboxState::failed)[0].last_error, "notify.github_issue.repo is not configured");
  EXPECT_EQ(m_github.find_calls + m_github.create_calls, 0);
}

TEST_F(NotifierTest, FlushDeliversWhatIsDueAndLeavesTheRestToItsBackoff) {
  m_options.batch_size = 2;
  record(1, {k_target_webhook}, {"f1", "f2", "f3", "f4", "f5"});
  m_transport.respond(500);
  test::FakeClock clock(m_now);
  auto report = notifier().flush(clock, 10);
  ASSERT_TRUE(report) << report.error().message();
  EXPECT_EQ(report->delivered, 4);
  EXPECT_EQ(report->retrying, 1);
  EXPECT_EQ(m_transport.requests().size(), 5u) << "the failed one is not tried again within the flush";
  EXPECT_TRUE(clock.sleeps().empty());
}

TEST_F(NotifierTest, FlushStopsWhenAsked) {
  record(1, {k_target_webhook}, {"f1", "f2", "f3"});
  test::FakeClock clock(m_now);
  int asked = 0;
  auto report = notifier().flush(clock, 10, [&] { return ++asked > 2; });
  ASSERT_TRUE(report);
  EXPECT_EQ(report->delivered, 1);
  EXPECT_EQ(m_store->outbox_counts()->pending, 2);
}

TEST(WebhookDisplayTest, KeepsOnlySchemeAndHost) {
  EXPECT_EQ(webhook_display("https://hooks.slack.com/services/T/B/X"), "https://hooks.slack.com");
  EXPECT_EQ(webhook_display("http://u:p@127.0.0.1:8080/hook?k=v"), "http://127.0.0.1:8080");
  EXPECT_EQ(webhook_display("not a url"), "(webhook)");
}

}  // namespace
}  // namespace aaw
