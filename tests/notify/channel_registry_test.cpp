// The channel registry: config sections, targets and channels from one table, and a channel that
// exists only in this test plugged in with one registration.
#include "notify/channel_registry.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "io/sqlite/sqlite_state_store.hpp"
#include "notify/github_issue_channel.hpp"
#include "notify/notifier.hpp"
#include "notify/webhook_channel.hpp"
#include "support/fake_github.hpp"
#include "support/fake_http.hpp"
#include "support/temp_dir.hpp"

namespace aaw {
namespace {

NotifyConfig notify_of(const Json& sections) {
  NotifyConfig notify;
  for (const auto& [name, section] : sections.items()) notify.sections[name] = section;
  return notify;
}

// Parses a config whose `notify` is `notify`, with the schema `channels` contributes.
Result<LoadedConfig> parse_with(const ChannelRegistry& channels, const Json& notify) {
  Json config = {{"repository_url", "https://example.invalid/r.git"},
                 {"functions_to_monitor", {{{"import_statement", "import a"}, {"function_path", "a.f"}}}},
                 {"notify", notify}};
  return parse_config(config.dump(), "config.json", {{"static"}, channels.config_sections()});
}

TEST(ChannelRegistryTest, ConfiguredTargetsOnlyWithTheirSeverities) {
  ChannelRegistry channels = builtin_channels();
  EXPECT_TRUE(channels.targets(notify_of(Json::object())).empty());
  Json sections = {{"webhook", {{"url", "https://hooks.example.com/x"}, {"min_severity", "behavioural"}}}};
  std::vector<NotificationTarget> expected = {{std::string(k_target_webhook), Severity::behavioural}};
  EXPECT_EQ(channels.targets(notify_of(sections)), expected);
  sections["github_issue"] = {{"repo", "o/r"}};
  expected.insert(expected.begin(), {std::string(k_target_github_issue), Severity::breaking});
  EXPECT_EQ(channels.targets(notify_of(sections)), expected);
}

TEST(ChannelRegistryTest, DefaultSeveritiesAreBreakingForIssuesAndCompatibleForWebhooks) {
  auto targets = builtin_channels().targets(
      notify_of({{"github_issue", {{"repo", "o/r"}}}, {"webhook", {{"url", "http://127.0.0.1:9/h"}}}}));
  ASSERT_EQ(targets.size(), 2u);
  EXPECT_EQ(targets[0].min_severity, Severity::breaking);
  EXPECT_EQ(targets[1].min_severity, Severity::compatible);
}

TEST(ChannelRegistryTest, SectionWithoutItsEnablingKeyIsNoTargetAndSaysWhy) {
  ChannelRegistry channels = builtin_channels();
  NotifyConfig notify = notify_of({{"github_issue", {{"labels", {"x"}}}}});
  EXPECT_TRUE(channels.targets(notify).empty());
  test::FakeHttp transport;
  test::FakeGithub github;
  auto log = null_logger();
  ChannelContext context{"https://github.com/ROCm/aiter.git", transport, github, *log};
  ChannelSet set = channels.make_channels(notify, context);
  EXPECT_TRUE(set.active.empty());
  EXPECT_EQ(set.unconfigured.at("github_issue"), "notify.github_issue.repo is not configured");
  EXPECT_EQ(set.unconfigured.at("webhook"), "notify.webhook.url is not configured");
}

TEST(ChannelRegistryTest, ConfigSectionsAreValidatedWithTheirJsonPath) {
  ChannelRegistry channels = builtin_channels();
  auto bad_labels = parse_with(channels, {{"github_issue", {{"repo", "o/r"}, {"labels", "api"}}}});
  ASSERT_FALSE(bad_labels);
  EXPECT_EQ(bad_labels.error().message(),
            "config.json: notify.github_issue.labels: expected an array of strings");
  auto bad_severity = parse_with(channels, {{"webhook", {{"url", "u"}, {"min_severity", "loud"}}}});
  ASSERT_FALSE(bad_severity);
  EXPECT_NE(bad_severity.error().message().find("notify.webhook.min_severity: expected one of"),
            std::string::npos);
  auto unknown = parse_with(
      channels, {{"teams", {{"url", "u"}}}, {"webhook", {{"url", "https://hooks.example/u"}, {"ur", "v"}}}});
  ASSERT_TRUE(unknown) << unknown.error().message();
  EXPECT_EQ(unknown->warnings,
            (std::vector<std::string>{"config.json: unknown key 'notify.webhook.ur', did you mean 'url'?",
                                      "config.json: unknown key 'notify.teams'"}));
}

TEST(ChannelRegistryTest, TargetsThatCannotBeDeliveredToAreRefusedAtConfigTime) {
  ChannelRegistry channels = builtin_channels();
  auto not_a_url = parse_with(channels, {{"webhook", {{"url", "hooks.slack.com/services/T0/B0/t0ps3cr3t"}}}});
  ASSERT_FALSE(not_a_url);
  EXPECT_NE(not_a_url.error().message().find("notify.webhook.url: expected an http:// or https:// URL"),
            std::string::npos)
      << not_a_url.error().message();
  EXPECT_EQ(not_a_url.error().message().find("t0ps3cr3t"), std::string::npos) << "a webhook URL is a secret";
  auto dash = parse_with(channels, {{"github_issue", {{"repo", "ROCm-aiter"}}}});
  ASSERT_FALSE(dash);
  EXPECT_EQ(dash.error().message(),
            "config.json: notify.github_issue.repo: expected 'owner/name', got 'ROCm-aiter'");
  auto url = parse_with(channels, {{"github_issue", {{"repo", "https://github.com/ROCm/aiter"}}}});
  ASSERT_FALSE(url);
  EXPECT_NE(url.error().message().find("did you mean 'ROCm/aiter'?"), std::string::npos)
      << url.error().message();
  EXPECT_TRUE(parse_with(channels, {{"github_issue", {{"repo", ""}}}, {"webhook", {{"url", ""}}}}))
      << "empty: not configured";
}

// A channel kind that exists only here: registering it is all it takes for the config to accept
// its section, for changes to be queued for it, and for the notifier to deliver through it.
class RecordingChannel final : public NotificationChannel {
 public:
  explicit RecordingChannel(std::vector<Json>& sent) : m_sent(sent) {}
  std::string_view name() const override { return "pager"; }
  DeliveryAttempt deliver(const Json& change) override {
    m_sent.push_back(change);
    return DeliveryAttempt::delivered_at("page-1");
  }

 private:
  std::vector<Json>& m_sent;
};

TEST(ChannelRegistryTest, TestOnlyChannelPlugsInWithOneRegistration) {
  std::vector<Json> sent;
  ChannelRegistry channels = builtin_channels();
  channels.add({"pager", "service", Severity::breaking,
                [](JsonReader& r) {
                  int urgency = 1;
                  r.integer("urgency", urgency, 1);
                },
                [&sent](const Json&, ChannelContext&) -> std::unique_ptr<NotificationChannel> {
                  return std::make_unique<RecordingChannel>(sent);
                }});

  auto loaded = parse_with(channels, {{"pager", {{"service", "oncall"}, {"urgency", 3}}}});
  ASSERT_TRUE(loaded) << loaded.error().message();
  EXPECT_TRUE(loaded->warnings.empty());
  auto targets = channels.targets(loaded->config.notify);
  ASSERT_EQ(targets.size(), 1u);
  EXPECT_EQ(targets[0].name, "pager");
  EXPECT_FALSE(parse_with(channels, {{"pager", {{"urgency", 0}}}}));

  test::TempDir dir{"aaw-channels"};
  auto store = open_state_store(dir.path() / "state.db", "https://example.invalid/r.git");
  ASSERT_TRUE(store) << store.error().message();
  CommitRecord record;
  record.commit.id = ObjectId{std::string(40, 'a')};
  Json change = {
      {"commit", record.commit.id.hex}, {"function_path", "a.f"}, {"import_statement", "import a"}};
  record.notifications.push_back({"pager", change});
  ASSERT_TRUE((*store)->record(record));

  test::FakeHttp transport;
  test::FakeGithub github;
  auto log = null_logger();
  ChannelContext context{"https://example.invalid/r.git", transport, github, *log};
  Notifier notifier({}, channels.make_channels(loaded->config.notify, context), **store, github, *log);
  auto report = notifier.deliver_due(TimePoint(std::chrono::seconds(2'000'000'000)));
  ASSERT_TRUE(report) << report.error().message();
  EXPECT_EQ(report->delivered, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["function_path"], "a.f");
  EXPECT_EQ((*(*store)->notifications(OutboxState::delivered, 10))[0].delivered_ref, "page-1");
}

}  // namespace
}  // namespace aaw
