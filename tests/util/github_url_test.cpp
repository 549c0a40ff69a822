#include <gtest/gtest.h>

#include "core/ports/github_client.hpp"
#include "util/url.hpp"

namespace aaw {
namespace {

TEST(GithubRepoUrlTest, ReadsHttpsUrls) {
  EXPECT_EQ(github_repo_of("https://github.com/ROCm/aiter"), "ROCm/aiter");
  EXPECT_EQ(github_repo_of("https://github.com/ROCm/aiter.git"), "ROCm/aiter");
  EXPECT_EQ(github_repo_of("https://github.com/ROCm/aiter/"), "ROCm/aiter");
  EXPECT_EQ(github_repo_of("http://github.com/ROCm/aiter.git"), "ROCm/aiter");
  EXPECT_EQ(github_repo_of("https://x-access-token:secret@github.com/ROCm/aiter.git"), "ROCm/aiter");
  EXPECT_EQ(github_repo_of("https://GitHub.com:443/ROCm/aiter"), "ROCm/aiter");
}

TEST(GithubRepoUrlTest, ReadsSshUrls) {
  EXPECT_EQ(github_repo_of("git@github.com:ROCm/aiter.git"), "ROCm/aiter");
  EXPECT_EQ(github_repo_of("github.com:ROCm/aiter"), "ROCm/aiter");
  EXPECT_EQ(github_repo_of("ssh://git@github.com/ROCm/aiter.git"), "ROCm/aiter");
  EXPECT_EQ(github_repo_of("ssh://git@github.com:22/ROCm/my_repo.v2"), "ROCm/my_repo.v2");
}

TEST(GithubRepoUrlTest, RefusesOtherHostsAndShapes) {
  EXPECT_EQ(github_repo_of("https://gitlab.com/ROCm/aiter.git"), std::nullopt);
  EXPECT_EQ(github_repo_of("https://github.com.evil.example/ROCm/aiter"), std::nullopt);
  EXPECT_EQ(github_repo_of("https://github.com/ROCm"), std::nullopt);
  EXPECT_EQ(github_repo_of("https://github.com/ROCm/aiter/tree/main"), std::nullopt);
  EXPECT_EQ(github_repo_of("https://github.com/ROCm/aiter?x=1"), std::nullopt);
  EXPECT_EQ(github_repo_of("/srv/mirrors/aiter.git"), std::nullopt);
  EXPECT_EQ(github_repo_of("file:///srv/github.com/ROCm/aiter"), std::nullopt);
  EXPECT_EQ(github_repo_of("git@github.com:../etc"), std::nullopt);
}

TEST(GithubRepoUrlTest, RepoNamesAreOwnerSlashName) {
  EXPECT_TRUE(is_github_repo_name("ROCm/aiter"));
  EXPECT_TRUE(is_github_repo_name("my-org/my_repo.v2"));
  EXPECT_FALSE(is_github_repo_name("ROCm-aiter"));
  EXPECT_FALSE(is_github_repo_name("ROCm/aiter.git"));
  EXPECT_FALSE(is_github_repo_name("https://github.com/ROCm/aiter"));
  EXPECT_FALSE(is_github_repo_name("ROCm/aiter/issues"));
  EXPECT_FALSE(is_github_repo_name(" ROCm/aiter"));
}

TEST(GithubRepoUrlTest, ReadsAnEnterpriseHost) {
  EXPECT_EQ(github_repo_of("https://ghe.example.com/team/aiter.git", "ghe.example.com"), "team/aiter");
  EXPECT_EQ(github_repo_of("https://github.com/ROCm/aiter.git", "ghe.example.com"), std::nullopt);
}

TEST(GithubRepoUrlTest, CommitUrlOnlyForGithubRepositories) {
  EXPECT_EQ(commit_url("https://github.com/ROCm/aiter.git", "abc"),
            "https://github.com/ROCm/aiter/commit/abc");
  EXPECT_EQ(commit_url("/srv/git/aiter.git", "abc"), std::nullopt);
}

TEST(PullRequestOfSubjectTest, ReadsSquashAndMergeSubjects) {
  const char* url = "https://github.com/ROCm/aiter.git";
  EXPECT_EQ(pull_request_of_subject(url, "Fix moe sorting (#1234)"),
            "https://github.com/ROCm/aiter/pull/1234");
  EXPECT_EQ(pull_request_of_subject(url, "Merge pull request #77 from a/b"),
            "https://github.com/ROCm/aiter/pull/77");
  // Elsewhere, under report.web_url when there is one, else qualified by the repository's name.
  EXPECT_EQ(pull_request_of_subject("/srv/aiter.git", "Fix (#5)"), "aiter#5");
  EXPECT_EQ(pull_request_of_subject("git://127.0.0.1:9418/mirrors/aiter/", "Fix (#5)"), "aiter#5");
  EXPECT_EQ(pull_request_of_subject("/srv/aiter.git", "Fix (#5)", "https://git.example.com/rocm/aiter/"),
            "https://git.example.com/rocm/aiter/pull/5");
  EXPECT_EQ(pull_request_of_subject(url, "Fix (#12) in moe"), std::nullopt);
  EXPECT_EQ(pull_request_of_subject(url, "Fix (#) x"), std::nullopt);
  EXPECT_EQ(pull_request_of_subject(url, "Fix (#1a)"), std::nullopt);
  EXPECT_EQ(pull_request_of_subject(url, ""), std::nullopt);
}

}  // namespace
}  // namespace aaw
