// The API head watch with a scripted GitHub client, a state store (the ETag must survive a
// restart: a new watch over the same store) and a mirror of a one-commit repository (the git
// fallback), both in memory.
#include "core/watch/head_watch.hpp"

#include <gtest/gtest.h>

#include <deque>

#include "support/memory_git_mirror.hpp"
#include "support/memory_state_store.hpp"

namespace aaw {
namespace {

class ScriptedGithub final : public GithubClient {
 public:
  std::deque<Result<HeadPoll>> heads;
  std::vector<std::string> etags_sent;

  Result<HeadPoll> branch_head(std::string_view, std::string_view, std::string_view etag) override {
    etags_sent.emplace_back(etag);
    if (heads.empty()) return Error(ErrorCode::internal, "no scripted answer");
    auto next = std::move(heads.front());
    heads.pop_front();
    return next;
  }
  Result<std::optional<PullRequest>> pull_request_for(std::string_view, std::string_view) override {
    return std::optional<PullRequest>();
  }
  Result<std::optional<IssueRef>> find_issue(std::string_view, std::string_view) override {
    return std::optional<IssueRef>();
  }
  Result<IssueRef> create_issue(std::string_view, std::string_view, std::string_view,
                                const std::vector<std::string>&) override {
    return Error(ErrorCode::internal, "not scripted");
  }
};

class HeadWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_head = m_mirror.commit({{"a.txt", "a"}}, "first").hex;
    ASSERT_TRUE(m_mirror.fetch());
  }
  // What a restart leaves: the store, read by a watch made anew.
  void reopen_store() {}
  GithubHeadWatch watch() { return GithubHeadWatch("ROCm/aiter", m_github, m_mirror, m_store, *m_log); }

  std::string m_head;
  ScriptedGithub m_github;
  std::shared_ptr<Logger> m_log = null_logger();
  test::InMemoryGitMirror m_mirror;
  test::InMemoryStateStore m_store;
};

const std::string k_sha(40, 'b');

TEST_F(HeadWatchTest, SendsTheLastEtagAndTrustsA304) {
  m_github.heads.push_back(HeadPoll{false, k_sha, "\"etag-1\""});
  m_github.heads.push_back(HeadPoll{true, "", ""});
  auto heads = watch();
  EXPECT_EQ(heads.head("main")->hex, k_sha);
  EXPECT_EQ(heads.head("main")->hex, k_sha);
  EXPECT_EQ(m_github.etags_sent, (std::vector<std::string>{"", "\"etag-1\""}));
}

TEST_F(HeadWatchTest, EtagSurvivesARestart) {
  m_github.heads.push_back(HeadPoll{false, k_sha, "\"etag-1\""});
  ASSERT_TRUE(watch().head("main"));
  reopen_store();
  m_github.heads.push_back(HeadPoll{true, "", ""});
  EXPECT_EQ(watch().head("main")->hex, k_sha);
  EXPECT_EQ(m_github.etags_sent.back(), "\"etag-1\"");
}

TEST_F(HeadWatchTest, AnotherBranchStartsWithoutAnEtag) {
  m_github.heads.push_back(HeadPoll{false, k_sha, "\"etag-1\""});
  m_github.heads.push_back(HeadPoll{false, std::string(40, 'c'), "\"etag-2\""});
  auto heads = watch();
  ASSERT_TRUE(heads.head("main"));
  EXPECT_EQ(heads.head("release")->hex, std::string(40, 'c'));
  EXPECT_EQ(m_github.etags_sent.back(), "");
}

TEST_F(HeadWatchTest, FailingApiFallsBackToGit) {
  m_github.heads.push_back(Error(ErrorCode::timeout, "GitHub rate limit: retry after 2026-11-21T10:00:00Z"));
  auto heads = watch();
  auto head = heads.head("main");
  ASSERT_TRUE(head) << head.error().message();
  EXPECT_EQ(head->hex, m_head);
}

TEST_F(HeadWatchTest, MalformedShaIsNotTrusted) {
  m_github.heads.push_back(HeadPoll{false, "not-a-sha", "\"e\""});
  auto head = watch().head("main");
  ASSERT_TRUE(head) << "git answers instead";
  EXPECT_EQ(head->hex, m_head);
}

TEST(ApiPollRepoTest, AutoUsesTheApiOnGithubWithAToken) {
  Config config;
  config.repository_url = "https://github.com/ROCm/aiter.git";
  EXPECT_EQ(*api_poll_repo(config, true), std::optional<std::string>("ROCm/aiter"));
  EXPECT_EQ(*api_poll_repo(config, false), std::nullopt) << "anonymous polling stays on git";
  config.github.poll = "git";
  EXPECT_EQ(*api_poll_repo(config, true), std::nullopt);
}

TEST(ApiPollRepoTest, EnterpriseHostComesFromApiUrl) {
  Config config;
  config.repository_url = "https://ghe.example.com/ml/aiter.git";
  config.github.api_url = "https://ghe.example.com/api/v3";
  EXPECT_EQ(*api_poll_repo(config, true), std::optional<std::string>("ml/aiter"));
}

TEST(ApiPollRepoTest, ApiModeRefusesARemoteElsewhere) {
  Config config;
  config.repository_url = "https://gitlab.example.com/ml/aiter.git";
  config.github.poll = "api";
  auto repo = api_poll_repo(config, true);
  ASSERT_FALSE(repo);
  EXPECT_EQ(repo.error().code(), ErrorCode::invalid_input);
  EXPECT_NE(repo.error().message().find("gitlab.example.com"), std::string::npos);
}

}  // namespace
}  // namespace aaw
