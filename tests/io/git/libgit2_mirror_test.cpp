// The libgit2 mirror against real repositories built with the git CLI, served from the local
// filesystem, by `git daemon` (git://) and by `git http-backend` (http://) on 127.0.0.1.
#include "io/git/libgit2_mirror.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "core/ports/git_mirror.hpp"
#include "io/git/libgit2_repack.hpp"
#include "support/git_daemon.hpp"
#include "support/git_fixture.hpp"
#include "support/git_http_server.hpp"
#include "support/process.hpp"
#include "support/sample_values.hpp"
#include "support/silent_listener.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"
#include "util/url.hpp"

namespace aaw {
namespace {

using test::read_text;
using test::value_of;

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::GitFixture;
using test::TempDir;

class Libgit2MirrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_origin.write_file("README.md", "hello\n");
    m_origin.write_file("aiter/__init__.py", "from .ops.gemm import *\n");
    m_origin.write_file("aiter/ops/gemm.py", "def gemm(a, b):\n    pass\n");
    m_first = m_origin.commit("first commit");
    m_origin.write_file("aiter/ops/gemm.py", "def gemm(a, b, c=1):\n    pass\n");
    m_second = m_origin.commit("add c to gemm\n\nA longer explanation.\n");
  }

  fs::path mirrors_dir() const { return m_tmp / "mirrors"; }

  // Through the git helper, as the daemon does (the built binary's `__git`).
  std::unique_ptr<GitMirror> open(const std::string& url, MirrorOptions options = {}) {
    return value_of(open_mirror(url, mirrors_dir(), with_helper(std::move(options))));
  }
  static MirrorOptions with_token(const std::string& token) {
    MirrorOptions options;
    options.https_token = token;
    return options;
  }
  static MirrorOptions with_helper(MirrorOptions options, std::chrono::seconds stall = 60s) {
    options.network_helper = AAW_BINARY;
    options.stall_timeout = stall;
    return options;
  }
  std::unique_ptr<GitMirror> open_origin() { return open(m_origin.path().string()); }

  std::vector<fs::path> mirrors_dir_entries() const {
    std::vector<fs::path> entries;
    if (!fs::exists(mirrors_dir())) return entries;
    for (const auto& entry : fs::directory_iterator(mirrors_dir())) entries.push_back(entry.path());
    return entries;
  }

  // Unpacks the mirror's pack into loose objects, so that single objects can be deleted.
  void explode_pack(const fs::path& mirror) {
    for (const auto& entry : fs::directory_iterator(mirror / "objects" / "pack")) {
      if (entry.path().extension() != ".pack") continue;
      const fs::path moved = m_tmp / entry.path().filename();
      fs::rename(entry.path(), moved);
      test::RunOptions options = test::isolated_git_options();
      options.cwd = mirror;
      options.stdin_text = read_text(moved);
      const auto result = test::run_process({"git", "unpack-objects", "-q"}, options);
      ASSERT_TRUE(result.ok()) << result.err;
    }
    for (const auto& entry : fs::directory_iterator(mirror / "objects" / "pack")) fs::remove(entry.path());
  }

  void delete_loose_object(const fs::path& mirror, const std::string& id) {
    ASSERT_TRUE(fs::remove(mirror / "objects" / id.substr(0, 2) / id.substr(2))) << id;
  }

  // A 4-hex prefix that two objects of the origin share; the commit of many small files makes
  // one certain (the file contents are fixed, so is the collision).
  std::string ambiguous_prefix() {
    for (int i = 0; i < 300; ++i) {
      m_origin.write_file("many/f" + std::to_string(i), "value = " + std::to_string(i) + "\n");
    }
    m_origin.commit("many files");
    std::map<std::string, int> counts;
    std::istringstream objects(m_origin.git({"rev-list", "--objects", "--all"}));
    for (std::string line; std::getline(objects, line);) {
      if (++counts[line.substr(0, 4)] == 2) return line.substr(0, 4);
    }
    throw std::runtime_error("no two objects share a 4-hex prefix");
  }

  TempDir m_tmp;
  GitFixture m_origin{m_tmp / "served" / "origin"};
  std::string m_first;
  std::string m_second;
};

// ---- cloning -----------------------------------------------------------------------------------

TEST_F(Libgit2MirrorTest, ClonesFromLocalPath) {
  auto mirror = open_origin();
  EXPECT_EQ(value_of(mirror->resolve("main")).hex, m_second);
  EXPECT_EQ(mirror->path().parent_path(), mirrors_dir());
  EXPECT_TRUE(fs::exists(mirror->path() / "HEAD"));
}

TEST_F(Libgit2MirrorTest, ClonesFromFileUrl) {
  auto mirror = open(m_origin.file_url());
  EXPECT_EQ(value_of(mirror->resolve("main")).hex, m_second);
}

TEST_F(Libgit2MirrorTest, ClonesFromGitDaemon) {
  test::GitDaemon daemon(m_tmp / "served");
  auto mirror = open(daemon.url("origin"));
  EXPECT_EQ(value_of(mirror->resolve("main")).hex, m_second);
}

TEST_F(Libgit2MirrorTest, ClonesFromHttpServer) {
  test::GitHttpServer server(m_tmp / "served");
  auto mirror = open(server.url("origin"));
  EXPECT_EQ(value_of(mirror->resolve("main")).hex, m_second);
}

TEST_F(Libgit2MirrorTest, ClonesEveryBranchAndTag) {
  m_origin.branch("side");
  m_origin.tag("v1");
  auto mirror = open_origin();
  EXPECT_EQ(value_of(mirror->resolve("side")).hex, m_second);
  EXPECT_EQ(value_of(mirror->resolve("v1")).hex, m_second);
}

TEST_F(Libgit2MirrorTest, NamesMirrorDirectoryAfterUrl) {
  auto mirror = open_origin();
  EXPECT_EQ(mirror->path().filename().string(), mirror_directory_name(m_origin.path().string()));
  EXPECT_EQ(mirror->display_url(), m_origin.path().string());
}

TEST_F(Libgit2MirrorTest, ReusesExistingMirror) {
  const fs::path first_path = open_origin()->path();
  fs::remove_all(m_origin.path());  // a second clone would now fail
  auto mirror = open(m_origin.path().string());
  EXPECT_EQ(mirror->path(), first_path);
  EXPECT_EQ(value_of(mirror->resolve("main")).hex, m_second);
}

TEST_F(Libgit2MirrorTest, ExistingMirrorTakesChangedCredentialsOfUrl) {
  test::GitHttpServer server(m_tmp / "served");
  const std::string plain = server.url("origin");
  const fs::path first_path = open(plain)->path();
  const std::string with_user = "http://someone@" + plain.substr(std::string("http://").size());
  auto mirror = open(with_user);
  EXPECT_EQ(mirror->path(), first_path);
  test::RunOptions options = test::isolated_git_options();
  options.cwd = first_path;
  EXPECT_EQ(test::run_process({"git", "config", "remote.origin.url"}, options).out, with_user + "\n");
}

TEST_F(Libgit2MirrorTest, OpeningExistingMirrorDoesNotFetch) {
  open_origin();
  m_origin.commit("third");
  auto mirror = open_origin();
  EXPECT_EQ(value_of(mirror->resolve("main")).hex, m_second);
}

TEST_F(Libgit2MirrorTest, UnreachableRemoteIsNetworkErrorNamingUrl) {
  const std::string url = "git://127.0.0.1:" + std::to_string(test::free_loopback_port()) + "/x";
  const auto mirror = open_mirror(url, mirrors_dir(), {});
  ASSERT_FALSE(mirror);
  EXPECT_EQ(mirror.error().code(), ErrorCode::network);
  EXPECT_NE(mirror.error().message().find("cannot clone '" + url + "': "), std::string::npos)
      << mirror.error().message();
}

TEST_F(Libgit2MirrorTest, FailedCloneLeavesNothingBehind) {
  const std::string url = "git://127.0.0.1:" + std::to_string(test::free_loopback_port()) + "/x";
  ASSERT_FALSE(open_mirror(url, mirrors_dir(), {}));
  EXPECT_TRUE(mirrors_dir_entries().empty());
}

TEST_F(Libgit2MirrorTest, ACloneRemovesTheStagingLeftByAKilledOne) {
  fs::path mirror_dir = open_origin()->path();
  fs::remove_all(mirror_dir);
  const std::string prefix = "." + mirror_dir.filename().string() + ".tmp-";
  const fs::path killed = mirrors_dir() / (prefix + "2147483646-aB3dE9");  // no such process
  const fs::path running = mirrors_dir() / (prefix + std::to_string(::getppid()) + "-aB3dE9");
  const fs::path unnamed = mirrors_dir() / (prefix + "aB3dE9");  // whose it is, nothing says
  for (const fs::path& dir : {killed, running, unnamed}) fs::create_directories(dir / "objects");
  ASSERT_TRUE(open_origin());
  EXPECT_FALSE(fs::exists(killed));
  EXPECT_TRUE(fs::exists(running)) << "a clone still under way is left alone";
  EXPECT_TRUE(fs::exists(unnamed));
}

TEST_F(Libgit2MirrorTest, MissingLocalRepositoryIsNetworkError) {
  const auto mirror = open_mirror((m_tmp / "nowhere").string(), mirrors_dir(), {});
  ASSERT_FALSE(mirror);
  EXPECT_EQ(mirror.error().code(), ErrorCode::network);
  EXPECT_TRUE(mirrors_dir_entries().empty());
}

TEST_F(Libgit2MirrorTest, ErrorMessagesHideUrlCredentials) {
  const std::string port = std::to_string(test::free_loopback_port());
  const auto mirror = open_mirror("http://someone:hunter2@127.0.0.1:" + port + "/x", mirrors_dir(), {});
  ASSERT_FALSE(mirror);
  EXPECT_EQ(mirror.error().message().find("hunter2"), std::string::npos) << mirror.error().message();
  EXPECT_NE(mirror.error().message().find("'http://127.0.0.1:" + port + "/x'"), std::string::npos)
      << mirror.error().message();
}

// ---- fetching ----------------------------------------------------------------------------------

TEST_F(Libgit2MirrorTest, FetchBringsNewCommits) {
  auto mirror = open_origin();
  const std::string third = m_origin.commit("third");
  ASSERT_TRUE(mirror->fetch());
  EXPECT_EQ(value_of(mirror->resolve("main")).hex, third);
}

TEST_F(Libgit2MirrorTest, FetchBringsNewBranches) {
  auto mirror = open_origin();
  m_origin.branch("feature");
  m_origin.checkout("feature");
  const std::string on_feature = m_origin.commit("on feature");
  ASSERT_TRUE(mirror->fetch());
  EXPECT_EQ(value_of(mirror->resolve("feature")).hex, on_feature);
}

TEST_F(Libgit2MirrorTest, FetchBringsNewLightweightTags) {
  auto mirror = open_origin();
  m_origin.tag("v2");
  ASSERT_TRUE(mirror->fetch());
  EXPECT_EQ(value_of(mirror->resolve("v2")).hex, m_second);
}

TEST_F(Libgit2MirrorTest, FetchBringsNewAnnotatedTags) {
  auto mirror = open_origin();
  m_origin.checkout(m_first);
  m_origin.annotated_tag("v0.1", "first release");
  ASSERT_TRUE(mirror->fetch());
  EXPECT_EQ(value_of(mirror->resolve("v0.1")).hex, m_first);
}

TEST_F(Libgit2MirrorTest, FetchPrunesDeletedBranches) {
  m_origin.branch("gone");
  auto mirror = open_origin();
  ASSERT_TRUE(mirror->resolve("gone"));
  m_origin.delete_branch("gone");
  ASSERT_TRUE(mirror->fetch());
  EXPECT_EQ(mirror->resolve("gone").error().code(), ErrorCode::not_found);
}

TEST_F(Libgit2MirrorTest, FetchPrunesDeletedTags) {
  m_origin.tag("gone");
  auto mirror = open_origin();
  m_origin.delete_tag("gone");
  ASSERT_TRUE(mirror->fetch());
  EXPECT_EQ(mirror->resolve("gone").error().code(), ErrorCode::not_found);
}

TEST_F(Libgit2MirrorTest, FetchOverGitDaemonBringsNewCommits) {
  test::GitDaemon daemon(m_tmp / "served");
  auto mirror = open(daemon.url("origin"));
  const std::string third = m_origin.commit("third");
  ASSERT_TRUE(mirror->fetch());
  EXPECT_EQ(value_of(mirror->resolve("main")).hex, third);
}

TEST_F(Libgit2MirrorTest, FetchFromStoppedServerIsNetworkError) {
  test::GitDaemon daemon(m_tmp / "served");
  auto mirror = open(daemon.url("origin"));
  daemon.stop();
  const auto fetched = mirror->fetch();
  ASSERT_FALSE(fetched);
  EXPECT_EQ(fetched.error().code(), ErrorCode::network);
  EXPECT_NE(fetched.error().message().find("cannot fetch '" + daemon.url("origin") + "': "),
            std::string::npos)
      << fetched.error().message();
}

TEST_F(Libgit2MirrorTest, FetchWorksAgainAfterServerRestart) {
  test::GitDaemon daemon(m_tmp / "served");
  auto mirror = open(daemon.url("origin"));
  daemon.stop();
  ASSERT_FALSE(mirror->fetch());
  const std::string third = m_origin.commit("third");
  daemon.restart();
  ASSERT_TRUE(mirror->fetch());
  EXPECT_EQ(value_of(mirror->resolve("main")).hex, third);
}

TEST_F(Libgit2MirrorTest, FetchOverHttpBringsNewCommits) {
  test::GitHttpServer server(m_tmp / "served");
  auto mirror = open(server.url("origin"));
  const std::string third = m_origin.commit("third");
  ASSERT_TRUE(mirror->fetch());
  EXPECT_EQ(value_of(mirror->resolve("main")).hex, third);
}

// ---- HTTP authentication -------------------------------------------------------------------

TEST_F(Libgit2MirrorTest, SendsTokenAsBasicCredentials) {
  test::GitHttpServer server(m_tmp / "served");
  server.require_token("s3cret-token");
  auto mirror = open(server.url("origin"), with_token("s3cret-token"));
  EXPECT_EQ(value_of(mirror->resolve("main")).hex, m_second);
  const auto credentials = server.basic_credentials();
  ASSERT_FALSE(credentials.empty());
  for (const auto& sent : credentials) EXPECT_EQ(sent, "x-access-token:s3cret-token");
}

TEST_F(Libgit2MirrorTest, MissingTokenIsNetworkError) {
  test::GitHttpServer server(m_tmp / "served");
  server.require_token("s3cret-token");
  const auto mirror = open_mirror(server.url("origin"), mirrors_dir(), {});
  ASSERT_FALSE(mirror);
  EXPECT_EQ(mirror.error().code(), ErrorCode::network);
  EXPECT_TRUE(mirrors_dir_entries().empty());
}

TEST_F(Libgit2MirrorTest, RejectedTokenFailsAfterOneAttempt) {
  test::GitHttpServer server(m_tmp / "served");
  server.require_token("s3cret-token");
  const auto mirror = open_mirror(server.url("origin"), mirrors_dir(), with_token("wrong-token"));
  ASSERT_FALSE(mirror);
  EXPECT_EQ(mirror.error().code(), ErrorCode::network);
  EXPECT_EQ(server.basic_credentials(), std::vector<std::string>{"x-access-token:wrong-token"});
}

TEST_F(Libgit2MirrorTest, RejectedTokenNeverAppearsInError) {
  test::GitHttpServer server(m_tmp / "served");
  server.require_token("s3cret-token");
  const auto mirror = open_mirror(server.url("origin"), mirrors_dir(), with_token("wrong-token"));
  ASSERT_FALSE(mirror);
  EXPECT_EQ(mirror.error().message().find("wrong-token"), std::string::npos) << mirror.error().message();
  EXPECT_NE(mirror.error().message().find(server.url("origin")), std::string::npos);
}

TEST_F(Libgit2MirrorTest, SendsNoCredentialsUnlessAsked) {
  test::GitHttpServer server(m_tmp / "served");
  auto mirror = open(server.url("origin"), with_token("s3cret-token"));
  ASSERT_TRUE(mirror->fetch());
  EXPECT_TRUE(server.authorization_headers().empty());
}

TEST_F(Libgit2MirrorTest, IgnoresTokenForGitProtocol) {
  test::GitDaemon daemon(m_tmp / "served");
  auto mirror = open(daemon.url("origin"), with_token("s3cret-token"));
  EXPECT_TRUE(mirror->fetch());
}

TEST_F(Libgit2MirrorTest, TokenIsNotSentWhereARedirectLeads) {
  test::GitHttpServer elsewhere(m_tmp / "served");
  elsewhere.require_token("s3cret-token");
  test::GitHttpServer configured(m_tmp / "served");
  configured.redirect_to("http://localhost:" + std::to_string(elsewhere.port()));
  const auto mirror =
      open_mirror(configured.url("origin"), mirrors_dir(), with_helper(with_token("s3cret-token")));
  ASSERT_FALSE(mirror);
  EXPECT_EQ(mirror.error().code(), ErrorCode::network);
  EXPECT_NE(mirror.error().message().find("not sending the token to 'localhost'"), std::string::npos)
      << mirror.error().message();
  EXPECT_FALSE(elsewhere.requests().empty()) << "the redirect was followed";
  EXPECT_TRUE(elsewhere.authorization_headers().empty());
}

TEST_F(Libgit2MirrorTest, TokenIsSentWhereARedirectOnTheSameHostLeads) {
  test::GitHttpServer moved(m_tmp / "served");
  moved.require_token("s3cret-token");
  test::GitHttpServer configured(m_tmp / "served");
  configured.redirect_to("http://127.0.0.1:" + std::to_string(moved.port()));
  auto mirror = open(configured.url("origin"), with_token("s3cret-token"));
  EXPECT_EQ(value_of(mirror->resolve("main")).hex, m_second);
}

// ---- a remote that never answers, and stopping ------------------------------------------------

TEST_F(Libgit2MirrorTest, CloneFromARemoteThatNeverAnswersIsGivenUp) {
  test::SilentListener silent;
  const auto mirror = open_mirror(silent.url("git", "origin"), mirrors_dir(), with_helper({}, 1s));
  ASSERT_FALSE(mirror);
  EXPECT_EQ(mirror.error().code(), ErrorCode::network);
  EXPECT_NE(mirror.error().message().find("the remote sent nothing for 1 s"), std::string::npos)
      << mirror.error().message();
  EXPECT_TRUE(mirrors_dir_entries().empty()) << "a failed clone leaves nothing behind";
}

TEST_F(Libgit2MirrorTest, HeadOfARemoteThatNeverAnswersOverHttpIsGivenUp) {
  test::SilentListener silent;
  MirrorOptions options = with_helper({}, 1s);
  options.clone_on_first_fetch = true;
  auto mirror = value_of(open_mirror(silent.url("http", "origin"), mirrors_dir(), options));
  auto head = mirror->remote_head("main");
  ASSERT_FALSE(head);
  EXPECT_EQ(head.error().code(), ErrorCode::network);
  EXPECT_NE(head.error().message().find("cannot reach 'http://127.0.0.1:"), std::string::npos)
      << head.error().message();
}

TEST_F(Libgit2MirrorTest, StopRequestEndsAHungOperationAsCancelled) {
  test::SilentListener silent;
  int polls = 0;
  MirrorOptions options = with_helper({}, 3600s);
  options.stop_requested = [&polls] { return ++polls > 3; };
  const auto mirror = open_mirror(silent.url("git", "origin"), mirrors_dir(), options);
  ASSERT_FALSE(mirror);
  EXPECT_EQ(mirror.error().code(), ErrorCode::cancelled) << mirror.error().message();
  EXPECT_TRUE(mirrors_dir_entries().empty());
}

TEST_F(Libgit2MirrorTest, CloningLeftToTheFirstFetchHappensThere) {
  MirrorOptions options = with_helper({});
  options.clone_on_first_fetch = true;
  auto mirror = value_of(open_mirror(m_origin.path().string(), mirrors_dir(), options));
  EXPECT_TRUE(mirrors_dir_entries().empty());
  EXPECT_EQ(value_of(mirror->remote_head("main")).hex, m_second);
  auto before = mirror->resolve("main");
  ASSERT_FALSE(before);
  EXPECT_EQ(before.error().code(), ErrorCode::not_found);
  EXPECT_NE(before.error().message().find("has not been cloned yet"), std::string::npos);
  ASSERT_TRUE(mirror->fetch());
  EXPECT_EQ(value_of(mirror->resolve("main")).hex, m_second);
  EXPECT_EQ(mirrors_dir_entries().size(), 1u);
}

TEST_F(Libgit2MirrorTest, CloningLeftToTheFirstFetchIsTriedAgainAfterAFailure) {
  const fs::path later = m_tmp / "served" / "later";
  MirrorOptions options = with_helper({});
  options.clone_on_first_fetch = true;
  auto mirror = value_of(open_mirror(later.string(), mirrors_dir(), options));
  auto failed = mirror->fetch();
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code(), ErrorCode::network);
  EXPECT_TRUE(mirrors_dir_entries().empty());
  m_origin.bare_clone(later);
  ASSERT_TRUE(mirror->fetch());
  EXPECT_EQ(value_of(mirror->resolve("main")).hex, m_second);
}

// ---- resolving revisions -------------------------------------------------------------------

TEST_F(Libgit2MirrorTest, ResolvesFullSha) {
  EXPECT_EQ(value_of(open_origin()->resolve(m_first)).hex, m_first);
}

TEST_F(Libgit2MirrorTest, ResolvesUnambiguousShortSha) {
  EXPECT_EQ(value_of(open_origin()->resolve(m_first.substr(0, 7))).hex, m_first);
}

TEST_F(Libgit2MirrorTest, ResolvesUppercaseSha) {
  std::string upper = m_first;
  std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
  EXPECT_EQ(value_of(open_origin()->resolve(upper)).hex, m_first);
}

TEST_F(Libgit2MirrorTest, ResolvesBranch) {
  m_origin.git({"branch", "old", m_first});
  EXPECT_EQ(value_of(open_origin()->resolve("old")).hex, m_first);
}

TEST_F(Libgit2MirrorTest, ResolvesBranchWithSlash) {
  m_origin.git({"branch", "release/1.0", m_first});
  EXPECT_EQ(value_of(open_origin()->resolve("release/1.0")).hex, m_first);
}

TEST_F(Libgit2MirrorTest, ResolvesLightweightTag) {
  m_origin.git({"tag", "v1", m_first});
  EXPECT_EQ(value_of(open_origin()->resolve("v1")).hex, m_first);
}

TEST_F(Libgit2MirrorTest, ResolvesAnnotatedTagToItsCommit) {
  m_origin.git({"tag", "-a", "v1", "-m", "release", m_first});
  EXPECT_EQ(value_of(open_origin()->resolve("v1")).hex, m_first);
}

TEST_F(Libgit2MirrorTest, ResolvesAnnotatedTagIdToItsCommit) {
  m_origin.git({"tag", "-a", "v1", "-m", "release", m_first});
  EXPECT_EQ(value_of(open_origin()->resolve(m_origin.rev_parse("v1"))).hex, m_first);
}

TEST_F(Libgit2MirrorTest, ResolvesHeadToRemoteDefaultBranch) {
  EXPECT_EQ(value_of(open_origin()->resolve("HEAD")).hex, m_second);
}

TEST_F(Libgit2MirrorTest, ResolvesHexLookingBranchName) {
  m_origin.git({"branch", "cafe", m_first});
  // The premise: no object id starts with it (ids are reproducible, so this holds every run).
  ASSERT_EQ(("\n" + m_origin.git({"rev-list", "--objects", "--all"})).find("\ncafe"), std::string::npos);
  EXPECT_EQ(value_of(open_origin()->resolve("cafe")).hex, m_first);
}

TEST_F(Libgit2MirrorTest, UnknownRevisionIsNotFoundNamingIt) {
  const auto resolved = open_origin()->resolve("no-such-branch");
  ASSERT_FALSE(resolved);
  EXPECT_EQ(resolved.error().code(), ErrorCode::not_found);
  EXPECT_EQ(resolved.error().message(), "unknown commit, branch or tag 'no-such-branch'");
}

TEST_F(Libgit2MirrorTest, UnknownFullShaIsNotFound) {
  const auto resolved = open_origin()->resolve(std::string(40, '0'));
  ASSERT_FALSE(resolved);
  EXPECT_EQ(resolved.error().code(), ErrorCode::not_found);
}

TEST_F(Libgit2MirrorTest, ResolvesWhatGitRevParseResolves) {
  m_origin.git({"tag", "-a", "v1.0", "-m", "release", m_second});
  auto mirror = open_origin();
  for (const std::string revision : {"main~1", "HEAD~1", "main^", "HEAD^1", "main~0", "v1.0^{}", "v1.0~1",
                                     "v1.0^{commit}", ":/add c to gemm", "origin/main"}) {
    const auto resolved = mirror->resolve(revision);
    ASSERT_TRUE(resolved) << revision << ": " << resolved.error().message();
    const std::string expected = m_origin.rev_parse(revision.rfind("origin/", 0) == 0 ? "main" : revision);
    EXPECT_EQ(resolved->hex, expected) << revision;
  }
}

TEST_F(Libgit2MirrorTest, EmptyOptionLikeAndRangeRevisionsAreInvalidInputNamingWhy) {
  auto mirror = open_origin();
  const std::pair<std::string, std::string> cases[] = {
      {"", "an empty revision names no commit"},
      {"--upload-pack=x", "'--upload-pack=x' looks like an option, not a commit"},
      {"a..b", "'a..b' is a range; give one commit"},
      {"main...HEAD", "'main...HEAD' is a range; give one commit"},
      {"a b", "'a b' is not a commit id, branch or tag"},
      {"new\nline", "'new\\x0aline' is not a commit id, branch or tag"}};
  for (const auto& [revision, message] : cases) {
    const auto resolved = mirror->resolve(revision);
    ASSERT_FALSE(resolved) << revision;
    EXPECT_EQ(resolved.error().code(), ErrorCode::invalid_input) << revision;
    EXPECT_EQ(resolved.error().message(), message);
  }
}

TEST_F(Libgit2MirrorTest, ExpressionsThatNameNoCommitAreErrorsNamingThem) {
  auto mirror = open_origin();
  for (const std::string revision : {"main~5", "main^3", "@{-1}", "x:y", ":/no such message", "a[b", "x.lock",
                                     "HEAD:README.md", "HEAD^{tree}"}) {
    const auto resolved = mirror->resolve(revision);
    ASSERT_FALSE(resolved) << revision;
    EXPECT_NE(resolved.error().message().find("'" + revision + "'"), std::string::npos)
        << resolved.error().message();
    EXPECT_EQ(resolved.error().message().find("unknown libgit2 error"), std::string::npos)
        << "a cause people can read: " << resolved.error().message();
  }
}

TEST_F(Libgit2MirrorTest, AmbiguousShortShaIsAmbiguous) {
  const std::string prefix = ambiguous_prefix();
  const auto resolved = open_origin()->resolve(prefix);
  ASSERT_FALSE(resolved);
  EXPECT_EQ(resolved.error().code(), ErrorCode::ambiguous);
  EXPECT_EQ(resolved.error().message(), "short commit id '" + prefix + "' is ambiguous");
}

TEST_F(Libgit2MirrorTest, TreeIdIsNotACommit) {
  const std::string tree = m_origin.rev_parse("HEAD^{tree}");
  const auto resolved = open_origin()->resolve(tree);
  ASSERT_FALSE(resolved);
  EXPECT_EQ(resolved.error().code(), ErrorCode::invalid_input);
  EXPECT_EQ(resolved.error().message(), "'" + tree + "' is not a commit");
}

TEST_F(Libgit2MirrorTest, BlobIdIsNotACommit) {
  const std::string blob = m_origin.rev_parse("HEAD:README.md");
  const auto resolved = open_origin()->resolve(blob.substr(0, 10));
  ASSERT_FALSE(resolved);
  EXPECT_EQ(resolved.error().code(), ErrorCode::invalid_input);
}

TEST_F(Libgit2MirrorTest, TagOfTreeIsNotACommit) {
  m_origin.git({"tag", "tree-tag", m_origin.rev_parse("HEAD^{tree}")});
  const auto resolved = open_origin()->resolve("tree-tag");
  ASSERT_FALSE(resolved);
  EXPECT_EQ(resolved.error().code(), ErrorCode::invalid_input);
}

// ---- commits -------------------------------------------------------------------------------

TEST_F(Libgit2MirrorTest, CommitInfoHasAuthorDateAndMessage) {
  const CommitInfo info = value_of(open_origin()->commit_info(ObjectId{m_second}));
  EXPECT_EQ(info.id.hex, m_second);
  EXPECT_EQ(info.author_name, "Test Author");
  EXPECT_EQ(info.author_email, "author@example.com");
  EXPECT_EQ(info.author_time, 1700000060);  // the fixture's second commit
  EXPECT_EQ(info.author_offset_minutes, 0);
  EXPECT_EQ(info.subject, "add c to gemm");
  EXPECT_EQ(info.message, "add c to gemm\n\nA longer explanation.\n");
  EXPECT_EQ(info.parents, std::vector<ObjectId>{ObjectId{m_first}});
}

TEST_F(Libgit2MirrorTest, CommitInfoKeepsAuthorOffset) {
  test::RunOptions options = test::isolated_git_options();
  options.cwd = m_origin.path();
  options.env["GIT_AUTHOR_DATE"] = "@1700000000 +0530";
  ASSERT_TRUE(test::run_process({"git", "commit", "-q", "--allow-empty", "-m", "india"}, options).ok());
  const CommitInfo info = value_of(open_origin()->commit_info(ObjectId{m_origin.rev_parse("HEAD")}));
  EXPECT_EQ(info.author_offset_minutes, 330);
  EXPECT_EQ(info.author_time, 1700000000);
}

TEST_F(Libgit2MirrorTest, CommitInfoListsFirstParentFirst) {
  m_origin.git({"checkout", "-q", "-b", "side", m_first});
  const std::string side = m_origin.commit("on side");
  m_origin.checkout("main");
  m_origin.git({"merge", "-q", "--no-ff", "-m", "merge side", "side"});
  const CommitInfo info = value_of(open_origin()->commit_info(ObjectId{m_origin.rev_parse("HEAD")}));
  EXPECT_EQ(info.parents, (std::vector<ObjectId>{ObjectId{m_second}, ObjectId{side}}));
}

TEST_F(Libgit2MirrorTest, CommitInfoOfUnknownCommitIsNotFound) {
  const auto info = open_origin()->commit_info(ObjectId{std::string(40, 'a')});
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().code(), ErrorCode::not_found);
}

TEST_F(Libgit2MirrorTest, CommitInfoOfBlobIsInvalidInput) {
  const auto info = open_origin()->commit_info(ObjectId{m_origin.rev_parse("HEAD:README.md")});
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().code(), ErrorCode::invalid_input);
}

// ---- trees ---------------------------------------------------------------------------------

// The fixture's fast path for long histories makes what commit() would: one first-parent commit
// per version on the branch, the rest of the tree kept, messages and authors as read back here.
TEST_F(Libgit2MirrorTest, CommitVersionsOfTheFixtureReadBackAsCommitsOneByOne) {
  const std::vector<std::string> texts = {"def gemm(a):\n    pass\n", "def gemm(a, b=2):\n    pass\n", ""};
  const std::vector<std::string> made = m_origin.commit_versions("aiter/ops/gemm.py", texts, "gemm step");
  ASSERT_EQ(made.size(), 3u);
  EXPECT_EQ(made.back(), m_origin.rev_parse("HEAD"));
  EXPECT_EQ(read_text(m_origin.path() / "aiter/ops/gemm.py"), "") << "the work tree is at the last";
  auto mirror = open_origin();
  std::vector<ObjectId> expected;
  for (const std::string& sha : made) expected.push_back(ObjectId{sha});
  EXPECT_EQ(value_of(mirror->first_parent_range(ObjectId{m_second}, ObjectId{made.back()})), expected);
  for (std::size_t i = 0; i < made.size(); ++i) {
    EXPECT_EQ(m_origin.git({"show", made[i] + ":aiter/ops/gemm.py"}), texts[i]) << i;
    EXPECT_EQ(value_of(mirror->commit_info(ObjectId{made[i]})).subject, "gemm step " + std::to_string(i));
    EXPECT_EQ(value_of(mirror->commit_info(ObjectId{made[i]})).author_name, "Test Author");
  }
  EXPECT_EQ(m_origin.git({"show", made[0] + ":README.md"}), "hello\n") << "the rest of the tree kept";
  m_origin.write_file("NEWS", "after\n");
  EXPECT_EQ(m_origin.git({"rev-parse", m_origin.commit("after the series") + "^"}), made.back() + "\n");
}

TEST_F(Libgit2MirrorTest, FindsBlobOfFile) {
  auto tree = value_of(open_origin()->tree(ObjectId{m_first}));
  const auto blob = value_of(tree->find_blob("aiter/ops/gemm.py"));
  ASSERT_TRUE(blob);
  EXPECT_EQ(blob->hex, m_origin.rev_parse(m_first + ":aiter/ops/gemm.py"));
}

TEST_F(Libgit2MirrorTest, FindBlobOfDirectoryIsNothing) {
  auto tree = value_of(open_origin()->tree(ObjectId{m_first}));
  EXPECT_FALSE(value_of(tree->find_blob("aiter/ops")));
}

TEST_F(Libgit2MirrorTest, FindBlobOfMissingPathIsNothing) {
  auto tree = value_of(open_origin()->tree(ObjectId{m_first}));
  EXPECT_FALSE(value_of(tree->find_blob("aiter/ops/missing.py")));
  EXPECT_FALSE(value_of(tree->find_blob("README.md/below-a-file")));
  EXPECT_FALSE(value_of(tree->find_blob("")));
}

TEST_F(Libgit2MirrorTest, FindBlobOfSubmoduleIsNothing) {
  const std::string gitlink = m_first;  // any commit id will do as a gitlink target
  m_origin.git({"update-index", "--add", "--cacheinfo", "160000," + gitlink + ",vendor/ck"});
  const std::string commit = m_origin.commit("add submodule");
  auto tree = value_of(open_origin()->tree(ObjectId{commit}));
  EXPECT_FALSE(value_of(tree->find_blob("vendor/ck")));
  EXPECT_FALSE(value_of(tree->is_directory("vendor/ck")));
}

TEST_F(Libgit2MirrorTest, IsDirectoryTellsDirectoriesFromFiles) {
  auto tree = value_of(open_origin()->tree(ObjectId{m_first}));
  EXPECT_TRUE(value_of(tree->is_directory("aiter/ops")));
  EXPECT_TRUE(value_of(tree->is_directory("")));
  EXPECT_FALSE(value_of(tree->is_directory("aiter/ops/gemm.py")));
  EXPECT_FALSE(value_of(tree->is_directory("nowhere")));
}

TEST_F(Libgit2MirrorTest, ASymbolicLinkIsALinkWhoseBlobIsItsTarget) {
  std::filesystem::create_symlink("gemm.py", m_origin.path() / "aiter" / "ops" / "alias.py");
  std::filesystem::create_symlink("ops", m_origin.path() / "aiter" / "kernels");
  const std::string commit = m_origin.commit("links");
  auto tree = value_of(open_origin()->tree(ObjectId{commit}));
  EXPECT_TRUE(value_of(tree->is_link("aiter/ops/alias.py")));
  EXPECT_TRUE(value_of(tree->is_link("aiter/kernels")));
  EXPECT_FALSE(value_of(tree->is_link("aiter/ops/gemm.py")));
  EXPECT_FALSE(value_of(tree->is_link("aiter/ops")));
  EXPECT_FALSE(value_of(tree->is_link("aiter/nothing.py")));
  EXPECT_FALSE(value_of(tree->is_directory("aiter/kernels")));
  EXPECT_FALSE(value_of(tree->find_blob("aiter/kernels/gemm.py")));
  EXPECT_EQ(value_of(tree->read_blob(*value_of(tree->find_blob("aiter/ops/alias.py")))), "gemm.py");
}

TEST_F(Libgit2MirrorTest, ReadsBlobContentOfEachCommit) {
  auto mirror = open_origin();
  auto first = value_of(mirror->tree(ObjectId{m_first}));
  auto second = value_of(mirror->tree(ObjectId{m_second}));
  EXPECT_EQ(value_of(first->read_blob(*value_of(first->find_blob("aiter/ops/gemm.py")))),
            "def gemm(a, b):\n    pass\n");
  EXPECT_EQ(value_of(second->read_blob(*value_of(second->find_blob("aiter/ops/gemm.py")))),
            "def gemm(a, b, c=1):\n    pass\n");
}

TEST_F(Libgit2MirrorTest, ReadsBinaryBlobExactly) {
  const std::string bytes("\0\x01\xff\n\r\0end", 9);
  m_origin.write_file("data.bin", bytes);
  const std::string commit = m_origin.commit("binary");
  auto tree = value_of(open_origin()->tree(ObjectId{commit}));
  EXPECT_EQ(value_of(tree->read_blob(*value_of(tree->find_blob("data.bin")))), bytes);
}

TEST_F(Libgit2MirrorTest, TreeOutlivesItsMirror) {
  auto tree = value_of(open_origin()->tree(ObjectId{m_first}));
  EXPECT_EQ(value_of(tree->read_blob(*value_of(tree->find_blob("README.md")))), "hello\n");
}

// The mirror opens its object database anew every few hundred trees (libgit2's cache of delta
// bases would otherwise fill for as long as the packs stay open): a tree handed out before still
// reads its files, later trees read theirs, and a fetch between renewals is seen.
TEST_F(Libgit2MirrorTest, TreesReadTheirFilesAcrossRenewalsOfTheObjectDatabase) {
  auto mirror = open_origin();
  auto early = value_of(mirror->tree(ObjectId{m_first}));
  std::string second_text = "def gemm(a, b, c=1):\n    pass\n";
  for (int i = 0; i < 700; ++i) {
    auto tree = value_of(mirror->tree(ObjectId{i % 2 == 0 ? m_first : m_second}));
    const auto blob = value_of(tree->find_blob("aiter/ops/gemm.py"));
    ASSERT_TRUE(blob.has_value()) << "tree " << i;
    ASSERT_EQ(value_of(tree->read_blob(*blob)), i % 2 == 0 ? "def gemm(a, b):\n    pass\n" : second_text)
        << "tree " << i;
    if (i == 300) {
      second_text = "def gemm(a, b, c=2):\n    pass\n";
      m_origin.write_file("aiter/ops/gemm.py", second_text);
      m_second = m_origin.commit("c defaults to 2");
      ASSERT_TRUE(mirror->fetch());
    }
  }
  EXPECT_EQ(value_of(early->read_blob(*value_of(early->find_blob("aiter/ops/gemm.py")))),
            "def gemm(a, b):\n    pass\n");
  auto again = value_of(mirror->tree(ObjectId{m_first}));
  EXPECT_EQ(value_of(early->directory_id("aiter/ops")), value_of(again->directory_id("aiter/ops")));
}

TEST_F(Libgit2MirrorTest, ChangedEntriesNameWhatReadsOtherwiseAtItsOwnPath) {
  m_origin.write_file("setup.py", "setup()\n");
  m_origin.write_file("docs/index.md", "docs\n");
  m_origin.write_file("kind", "a file\n");
  const std::string before = m_origin.commit("before");
  m_origin.write_file("setup.py", "setup(name='aiter')\n");    // changed content
  m_origin.write_file("aiter/ops/gemm.py", "def gemm(a):\n");  // only under a subdirectory
  m_origin.remove_file("docs/index.md");                       // a directory gone
  m_origin.remove_file("kind");
  m_origin.write_file("kind/now.py", "x = 1\n");  // a file become a directory
  m_origin.write_file("added.py", "y = 2\n");
  const std::string after = m_origin.commit("after");
  auto mirror = open_origin();
  auto old_tree = value_of(mirror->tree(ObjectId{before}));
  auto new_tree = value_of(mirror->tree(ObjectId{after}));
  ASSERT_TRUE(new_tree->has_directory_ids());
  auto names = value_of(new_tree->changed_entries(*value_of(old_tree->directory_id("")),
                                                  *value_of(new_tree->directory_id(""))));
  std::sort(names.begin(), names.end());
  // "aiter" is a directory on both sides: at its own path nothing reads otherwise, and what
  // changed under it is told by the directory id of aiter/ itself.
  EXPECT_EQ(names, (std::vector<std::string>{"added.py", "docs", "kind", "setup.py"}));
  EXPECT_NE(*value_of(old_tree->directory_id("aiter")), *value_of(new_tree->directory_id("aiter")));
}

TEST_F(Libgit2MirrorTest, TreeOfUnknownCommitIsNotFound) {
  const auto tree = open_origin()->tree(ObjectId{std::string(40, 'b')});
  ASSERT_FALSE(tree);
  EXPECT_EQ(tree.error().code(), ErrorCode::not_found);
}

// ---- missing objects (real aiter snapshots lack some) --------------------------------------

TEST_F(Libgit2MirrorTest, MissingBlobIsNotFoundNamingIt) {
  const fs::path path = open_origin()->path();
  explode_pack(path);
  const std::string readme = m_origin.rev_parse("HEAD:README.md");
  delete_loose_object(path, readme);
  auto tree = value_of(open_origin()->tree(ObjectId{m_second}));
  const auto content = tree->read_blob(ObjectId{readme});
  ASSERT_FALSE(content);
  EXPECT_EQ(content.error().code(), ErrorCode::not_found);
  EXPECT_EQ(content.error().message(), "object " + readme + " is missing from the mirror");
}

TEST_F(Libgit2MirrorTest, OtherLookupsWorkDespiteMissingBlob) {
  const fs::path path = open_origin()->path();
  explode_pack(path);
  delete_loose_object(path, m_origin.rev_parse("HEAD:README.md"));
  auto mirror = open_origin();
  auto tree = value_of(mirror->tree(ObjectId{m_second}));
  EXPECT_TRUE(value_of(tree->find_blob("README.md")));  // the tree entry is still there
  EXPECT_EQ(value_of(tree->read_blob(*value_of(tree->find_blob("aiter/__init__.py")))),
            "from .ops.gemm import *\n");
  EXPECT_EQ(value_of(mirror->resolve("main")).hex, m_second);
}

TEST_F(Libgit2MirrorTest, FindBlobUnderMissingTreeIsNotFoundError) {
  const fs::path path = open_origin()->path();
  explode_pack(path);
  delete_loose_object(path, m_origin.rev_parse("HEAD:aiter/ops"));
  auto tree = value_of(open_origin()->tree(ObjectId{m_second}));
  const auto blob = tree->find_blob("aiter/ops/gemm.py");
  ASSERT_FALSE(blob);
  EXPECT_EQ(blob.error().code(), ErrorCode::not_found) << blob.error().message();
  EXPECT_TRUE(value_of(tree->find_blob("README.md")));
}

TEST_F(Libgit2MirrorTest, MissingCommitIsNotFound) {
  const fs::path path = open_origin()->path();
  explode_pack(path);
  delete_loose_object(path, m_first);
  auto mirror = open_origin();
  const auto info = mirror->commit_info(ObjectId{m_first});
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().code(), ErrorCode::not_found);
  EXPECT_EQ(value_of(mirror->commit_info(ObjectId{m_second})).parents.front().hex, m_first);
}

// ---- URLs ----------------------------------------------------------------------------------

TEST(Libgit2MirrorNamesTest, RedactUrlStripsUserAndPassword) {
  EXPECT_EQ(redact_url("https://user:pass@github.com/ROCm/aiter.git"), "https://github.com/ROCm/aiter.git");
}

TEST(Libgit2MirrorNamesTest, RedactUrlStripsBareUserToken) {
  EXPECT_EQ(redact_url("https://ghp_abc@github.com/x"), "https://github.com/x");
}

TEST(Libgit2MirrorNamesTest, RedactUrlLeavesUrlsWithoutCredentialsAlone) {
  EXPECT_EQ(redact_url("git://127.0.0.1:9418/x"), "git://127.0.0.1:9418/x");
  EXPECT_EQ(redact_url("/srv/repos/aiter"), "/srv/repos/aiter");
  EXPECT_EQ(redact_url("https://github.com/a@b"), "https://github.com/a@b");
}

TEST(Libgit2MirrorNamesTest, RedactUrlRedactsUrlsInsideText) {
  EXPECT_EQ(redact_url("cannot reach 'https://u:p@h/x' or http://v:q@h/y"),
            "cannot reach 'https://h/x' or http://h/y");
}

TEST(Libgit2MirrorNamesTest, DirectoryNameIsReadable) {
  const std::string name = mirror_directory_name("https://github.com/ROCm/aiter.git");
  EXPECT_EQ(name.rfind("github.com-ROCm-aiter-", 0), 0u) << name;
  EXPECT_EQ(name.size(), std::string("github.com-ROCm-aiter-").size() + 8 + 4) << name;
  EXPECT_EQ(name.substr(name.size() - 4), ".git");
}

TEST(Libgit2MirrorNamesTest, DirectoryNameDiffersForDifferentUrls) {
  EXPECT_NE(mirror_directory_name("https://github.com/a-b/c"),
            mirror_directory_name("https://github.com/a/b-c"));
}

TEST_F(Libgit2MirrorTest, ACheckoutIsReadInPlaceAndNeverFetched) {
  auto checkout = value_of(open_checkout(m_origin.path()));
  EXPECT_EQ(value_of(checkout->resolve("HEAD")).hex, m_second);
  auto tree = value_of(checkout->tree(value_of(checkout->resolve("main~1"))));
  EXPECT_EQ(value_of(tree->read_blob(*value_of(tree->find_blob("aiter/ops/gemm.py")))),
            "def gemm(a, b):\n    pass\n");
  auto fetched = checkout->fetch();
  ASSERT_FALSE(fetched);
  EXPECT_NE(fetched.error().message().find("is read as it is (--repo): fetch it yourself"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(mirrors_dir())) << "a mirror was made";
}

TEST_F(Libgit2MirrorTest, ACheckoutPathWithoutARepositoryIsNotFound) {
  auto opened = open_checkout(m_tmp.path());
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code(), ErrorCode::not_found);
  EXPECT_NE(opened.error().message().find("cannot open the repository '" + m_tmp.path().string() + "'"),
            std::string::npos)
      << opened.error().message();
}

TEST(Libgit2MirrorNamesTest, DirectoryNameIgnoresCredentials) {
  EXPECT_EQ(mirror_directory_name("https://u:p@github.com/ROCm/aiter.git"),
            mirror_directory_name("https://github.com/ROCm/aiter.git"));
}

TEST(Libgit2MirrorNamesTest, DirectoryNameKeepsToSafeCharacters) {
  for (const char* url : {"/tmp/a b/../c", "git://h:1/x?y=*", "..", "https://h/~user/x y.git"}) {
    const std::string name = mirror_directory_name(url);
    EXPECT_EQ(name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                     "0123456789._-"),
              std::string::npos)
        << name;
    EXPECT_NE(name.front(), '.') << name;
    EXPECT_NE(name.front(), '-') << name;
  }
}

// ---- maintenance -------------------------------------------------------------------------------

// Months of polls in miniature: a fetch after each of a few pushes (a pack each), then a
// force-push that abandons a commit. Past repack_after_packs, maintain() leaves one pack with every
// object the refs reach, and the abandoned commit gone; reads go on through the same mirror.
TEST_F(Libgit2MirrorTest, MaintainRepacksPiledUpPacksAndDropsWhatAForcePushAbandoned) {
  MirrorOptions options;
  options.repack_after_packs = 3;
  auto mirror = open(m_origin.path().string(), options);
  EXPECT_EQ(value_of(mirror->maintain()), std::nullopt) << "one pack: nothing to do";
  std::string last;
  for (int i = 0; i < 4; ++i) {
    m_origin.write_file("aiter/ops/gemm.py", "def gemm(a, b, c=" + std::to_string(i) + "):\n    pass\n");
    last = m_origin.commit("push " + std::to_string(i));
    ASSERT_TRUE(mirror->fetch());
  }
  m_origin.git({"tag", "-a", "v1", "-m", "annotated", last});
  m_origin.git({"reset", "--hard", "HEAD~1"});
  m_origin.write_file("aiter/ops/gemm.py", "def gemm(a, b, *, c=9):\n    pass\n");
  const std::string rewritten = m_origin.commit("force-pushed");
  m_origin.git({"tag", "-d", "v1"});
  ASSERT_TRUE(mirror->fetch());
  const auto packs_before = detail::object_store_use(mirror->path()).packs;
  ASSERT_GT(packs_before, 3u);
  ASSERT_TRUE(mirror->commit_info(ObjectId{last})) << "the abandoned commit is still there";

  auto done = value_of(mirror->maintain());
  ASSERT_TRUE(done);
  EXPECT_NE(done->find("Repacked the mirror: " + std::to_string(packs_before) + " packs"), std::string::npos)
      << *done;
  const auto after = detail::object_store_use(mirror->path());
  EXPECT_EQ(after.packs, 1u);
  EXPECT_EQ(after.loose, 0u);
  // What the force-push abandoned is dropped (asked of git: this process may still hold the commit
  // in libgit2's object cache, which is harmless).
  EXPECT_NE(test::run_process({"git", "-C", mirror->path().string(), "cat-file", "-e", last}).exit_code, 0)
      << test::run_process({"git", "-C", mirror->path().string(), "show-ref"}).out;
  // Every reachable object, read through the mirror that was open during the repack.
  auto tree = value_of(mirror->tree(ObjectId{rewritten}));
  auto blob = value_of(tree->find_blob("aiter/ops/gemm.py"));
  ASSERT_TRUE(blob);
  EXPECT_EQ(value_of(tree->read_blob(*blob)), "def gemm(a, b, *, c=9):\n    pass\n");
  EXPECT_EQ(value_of(mirror->first_parent_range(ObjectId{m_first}, ObjectId{rewritten})).size(), 5u);
  EXPECT_EQ(value_of(mirror->maintain()), std::nullopt) << "one pack again: nothing to do";
  // git agrees the repository is whole.
  EXPECT_EQ(test::run_process({"git", "-C", mirror->path().string(), "fsck", "--strict"}).exit_code, 0);
}

TEST(RepackPaysTest, ManyPacksOrFetchedPacksHeavierThanHalfTheLargest) {
  detail::ObjectStoreUse one{1, 0, 42'000'000, 42'000'000, 42'000'000};
  EXPECT_FALSE(detail::repack_pays(one, 50));
  detail::ObjectStoreUse light{3, 0, 0, 42'000'000 + 2'000'000, 42'000'000};
  EXPECT_FALSE(detail::repack_pays(light, 50));
  detail::ObjectStoreUse heavy{3, 0, 0, 42'000'000 + 21'000'001, 42'000'000};
  EXPECT_TRUE(detail::repack_pays(heavy, 50));
  detail::ObjectStoreUse many{51, 0, 0, 42'000'000 + 51'000, 42'000'000};
  EXPECT_TRUE(detail::repack_pays(many, 50));
}

}  // namespace
}  // namespace aaw
