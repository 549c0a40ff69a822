// `watch` polling through GitHub's REST API (github.poll): the binary against the GitHub API
// emulator and a git http-backend server, both on 127.0.0.1. As on GitHub, both live on one host
// (here the ports differ), so the remote counts as a GitHub repository of the api_url's host.
#include <gtest/gtest.h>

#include <fstream>

#include "support/git_http_server.hpp"
#include "support/github_emulator.hpp"
#include "support/process.hpp"
#include "support/synthetic_aiter.hpp"
#include "support/temp_dir.hpp"

namespace aaw::test {
namespace {

constexpr const char* k_poll_token = "ghp_PollTestToken0123456789abcdef";
constexpr const char* k_repo = "ROCm/aiter";

class ApiPollCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_commits = SyntheticAiter::build(m_repo);
    m_repo.bare_clone(m_dir.path() / "served" / "ROCm" / "aiter.git");
    m_git = std::make_unique<GitHttpServer>(m_dir.path() / "served");
    m_github.set_branch(k_repo, "main", m_repo.rev_parse("main"));
    m_github.require_token(k_poll_token);
  }

  std::filesystem::path config(const std::string& poll) {
    auto path = m_dir.path() / "config.json";
    std::string extra = "\"start_commit\": \"" + m_commits.base + "\", \"github\": {\"api_url\": \"" +
                        m_github.url() + "\", \"poll\": \"" + poll + "\"}";
    std::ofstream(path) << SyntheticAiter::config_json(m_git->url("ROCm/aiter.git"), m_dir.path(), extra);
    return path;
  }
  ProcessResult watch_once(const std::filesystem::path& cfg, bool with_token = true) {
    RunOptions options;
    options.cwd = m_dir.path();
    if (with_token) {
      options.env = {{"GITHUB_TOKEN", k_poll_token}};
    } else {
      options.unset_env = {"GITHUB_TOKEN"};
    }
    return run_process({AAW_BINARY, "watch", "--config", cfg.string(), "--once"}, options);
  }
  std::vector<RecordedRequest> head_requests() const {
    std::vector<RecordedRequest> out;
    std::string head_path = "/repos/";
    head_path.append(k_repo).append("/commits/main");
    for (const RecordedRequest& r : m_github.requests())
      if (r.path() == head_path) out.push_back(r);
    return out;
  }
  std::size_t git_requests() const { return m_git->requests().size(); }

  TempDir m_dir{"aaw-api-poll"};
  GitFixture m_repo{m_dir.path() / "work"};
  SyntheticAiterCommits m_commits;
  std::unique_ptr<GitHttpServer> m_git;
  GithubEmulator m_github;
};

TEST_F(ApiPollCliTest, UnmovedHeadCostsOne304AndNoGitTraffic) {
  auto cfg = config("auto");
  auto first = watch_once(cfg);
  ASSERT_EQ(first.exit_code, 0) << first.err << first.out;
  ASSERT_EQ(head_requests().size(), 1u);
  EXPECT_EQ(head_requests()[0].header("If-None-Match"), "") << "nothing known yet";
  int used = m_github.rate_limit_used();
  std::size_t git_before = git_requests();

  auto second = watch_once(cfg);
  ASSERT_EQ(second.exit_code, 0) << second.err << second.out;
  ASSERT_EQ(head_requests().size(), 2u);
  EXPECT_NE(head_requests()[1].header("If-None-Match"), "") << "the stored ETag is sent after a restart";
  EXPECT_EQ(m_github.rate_limit_used(), used) << "a 304 costs no rate limit";
  EXPECT_EQ(git_requests(), git_before) << "no ls-remote, no fetch when the head has not moved";
}

TEST_F(ApiPollCliTest, MovedHeadIsFetchedAndProcessed) {
  auto cfg = config("api");
  ASSERT_EQ(watch_once(cfg).exit_code, 0);
  m_repo.write_file("aiter/new_module.py", "def brand_new(x):\n    return x\n");
  std::string moved = m_repo.commit("a new commit");
  m_repo.push_mirror(m_dir.path() / "served" / "ROCm" / "aiter.git");
  m_github.set_branch(k_repo, "main", moved);

  auto second = watch_once(cfg);
  ASSERT_EQ(second.exit_code, 0) << second.err << second.out;
  RunOptions in_dir;
  in_dir.cwd = m_dir.path();
  auto shown = run_process({AAW_BINARY, "show", "--config", cfg.string(), moved, "--format", "json"}, in_dir);
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find(moved), std::string::npos);
}

TEST_F(ApiPollCliTest, FailingApiFallsBackToGit) {
  auto cfg = config("auto");
  m_github.go_down();
  auto result = watch_once(cfg);
  EXPECT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_GT(git_requests(), 0u);
}

TEST_F(ApiPollCliTest, WithoutATokenAutoPollsWithGit) {
  auto result = watch_once(config("auto"), false);
  EXPECT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_TRUE(head_requests().empty());
}

TEST_F(ApiPollCliTest, ApiPollOfARemoteElsewhereIsAConfigError) {
  auto path = m_dir.path() / "config.json";
  std::ofstream(path) << SyntheticAiter::config_json((m_dir.path() / "work").string(), m_dir.path(),
                                                     "\"github\": {\"poll\": \"api\"}");
  auto result = watch_once(path);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("github.poll 'api'"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace aaw::test
