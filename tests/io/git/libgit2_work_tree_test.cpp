// The libgit2 work tree against real repositories built with the git CLI: incremental checkouts
// (unchanged files untouched, dropped files gone, build outputs kept), submodules from a local
// file:// repository, and the error of one that cannot be fetched.
#include "io/git/libgit2_work_tree.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/ports/git_mirror.hpp"
#include "core/ports/work_tree.hpp"
#include "io/git/libgit2_mirror.hpp"
#include "io/sandbox/sandbox_posix.hpp"
#include "support/git_fixture.hpp"
#include "support/sample_values.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"

namespace aaw {
namespace {

using test::read_text;
using test::value_of;

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::GitFixture;
using test::TempDir;

struct FileIdentity {
  ino_t inode;
  timespec mtime;
};

FileIdentity identity(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) throw std::runtime_error("cannot stat " + file.string());
  return {st.st_ino, st.st_mtim};
}

bool same(const FileIdentity& a, const FileIdentity& b) {
  return a.inode == b.inode && a.mtime.tv_sec == b.mtime.tv_sec && a.mtime.tv_nsec == b.mtime.tv_nsec;
}

class Libgit2WorkTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_origin.write_file("setup.py", "print('setup')\n");
    m_origin.write_file("pkg/__init__.py", "def f(a):\n    pass\n");
    m_origin.write_file("pkg/old.py", "x = 1\n");
    m_first = m_origin.commit("first");
    m_origin.write_file("pkg/__init__.py", "def f(a, b=1):\n    pass\n");
    m_origin.remove_file("pkg/old.py");
    m_second = m_origin.commit("second");
  }

  GitMirror& mirror() {
    if (!m_mirror) m_mirror = value_of(open_mirror(m_origin.path().string(), m_tmp / "mirrors", {}));
    return *m_mirror;
  }
  std::unique_ptr<WorkTree> open_tree() {
    return value_of(open_work_tree(m_tmp / "work", mirror().path(), mirror().display_url(), *m_log));
  }
  ObjectId id(const std::string& hex) { return ObjectId{hex}; }

  // As the daemon opens it: every checkout runs as the built binary's `__checkout` in the sandbox
  // (bubblewrap where it can run here).
  std::unique_ptr<WorkTree> open_confined_tree(std::chrono::seconds timeout = 60s) {
    if (!m_sandbox) {
      SandboxConfig config;
      config.kind = "auto";
      m_sandbox = value_of(make_sandbox(config, m_tmp / "sandbox", *m_log));
    }
    WorkTreeOptions options;
    options.sandbox = m_sandbox.get();
    options.program = AAW_BINARY;
    options.timeout = timeout;
    return value_of(open_work_tree(m_tmp / "work", mirror().path(), mirror().display_url(), *m_log, options));
  }
  // Only bubblewrap confines; the plain runner lets builds write anywhere to begin with.
  bool confining() const { return m_sandbox && m_sandbox->kind() == "bwrap"; }

  // A repository to use as a submodule, at file://.../sub.
  GitFixture& sub() {
    if (!m_sub) {
      m_sub = std::make_unique<GitFixture>(m_tmp / "served" / "sub");
      m_sub->write_file("lib.txt", "version 1\n");
      m_sub->commit("sub first");
    }
    return *m_sub;
  }
  std::string add_submodule() {
    m_origin.git(
        {"-c", "protocol.file.allow=always", "submodule", "add", "-q", sub().file_url(), "third/sub"});
    return m_origin.commit("add submodule");
  }

  std::shared_ptr<Logger> m_log = null_logger();
  TempDir m_tmp{"aaw-work-tree"};
  GitFixture m_origin{m_tmp / "served" / "origin"};
  std::unique_ptr<GitFixture> m_sub;
  std::unique_ptr<GitMirror> m_mirror;
  std::unique_ptr<Sandbox> m_sandbox;
  std::string m_first;
  std::string m_second;
};

TEST_F(Libgit2WorkTreeTest, ChecksOutTheCommitsFiles) {
  auto tree = open_tree();
  ASSERT_TRUE(tree->checkout(id(m_first), false)) << "checkout";
  EXPECT_EQ(read_text(tree->path() / "pkg" / "__init__.py"), "def f(a):\n    pass\n");
  EXPECT_EQ(read_text(tree->path() / "pkg" / "old.py"), "x = 1\n");
  EXPECT_EQ(tree->head(), id(m_first));
}

TEST_F(Libgit2WorkTreeTest, RewritesOnlyChangedFiles) {
  auto tree = open_tree();
  ASSERT_TRUE(tree->checkout(id(m_first), false));
  const FileIdentity unchanged = identity(tree->path() / "setup.py");
  const FileIdentity changed = identity(tree->path() / "pkg" / "__init__.py");
  ASSERT_TRUE(tree->checkout(id(m_second), false));
  EXPECT_TRUE(same(identity(tree->path() / "setup.py"), unchanged)) << "setup.py was rewritten";
  EXPECT_FALSE(same(identity(tree->path() / "pkg" / "__init__.py"), changed));
  EXPECT_EQ(read_text(tree->path() / "pkg" / "__init__.py"), "def f(a, b=1):\n    pass\n");
}

TEST_F(Libgit2WorkTreeTest, RemovesFilesTheNewCommitDropped) {
  auto tree = open_tree();
  ASSERT_TRUE(tree->checkout(id(m_first), false));
  ASSERT_TRUE(fs::exists(tree->path() / "pkg" / "old.py"));
  ASSERT_TRUE(tree->checkout(id(m_second), false));
  EXPECT_FALSE(fs::exists(tree->path() / "pkg" / "old.py"));
  ASSERT_TRUE(tree->checkout(id(m_first), false));  // and back, in any order
  EXPECT_TRUE(fs::exists(tree->path() / "pkg" / "old.py"));
}

TEST_F(Libgit2WorkTreeTest, KeepsUntrackedBuildOutputs) {
  auto tree = open_tree();
  ASSERT_TRUE(tree->checkout(id(m_first), false));
  std::ofstream(tree->path() / "pkg" / "_native.so") << "binary";
  fs::create_directories(tree->path() / "build" / "temp");
  std::ofstream(tree->path() / "build" / "temp" / "native.o") << "object";
  ASSERT_TRUE(tree->checkout(id(m_second), false));
  EXPECT_EQ(read_text(tree->path() / "pkg" / "_native.so"), "binary");
  EXPECT_EQ(read_text(tree->path() / "build" / "temp" / "native.o"), "object");
}

TEST_F(Libgit2WorkTreeTest, RestoresTrackedFilesABuildModified) {
  auto tree = open_tree();
  ASSERT_TRUE(tree->checkout(id(m_first), false));
  std::ofstream(tree->path() / "setup.py") << "generated by the build\n";
  ASSERT_TRUE(tree->checkout(id(m_second), false));
  EXPECT_EQ(read_text(tree->path() / "setup.py"), "print('setup')\n");
}

TEST_F(Libgit2WorkTreeTest, ReopenedTreeRemembersItsCommit) {
  ASSERT_TRUE(open_tree()->checkout(id(m_second), false));
  auto reopened = open_tree();
  EXPECT_EQ(reopened->head(), id(m_second));
  ASSERT_TRUE(reopened->checkout(id(m_first), false));
  EXPECT_TRUE(fs::exists(reopened->path() / "pkg" / "old.py"));
}

TEST_F(Libgit2WorkTreeTest, BorrowsTheMirrorsObjectsInsteadOfCopying) {
  auto tree = open_tree();
  ASSERT_TRUE(tree->checkout(id(m_second), false));
  EXPECT_EQ(read_text(tree->path() / ".git" / "objects" / "info" / "alternates"),
            fs::absolute(mirror().path() / "objects").lexically_normal().string() + "\n");
  std::size_t own_objects = 0;
  for (const auto& entry : fs::recursive_directory_iterator(tree->path() / ".git" / "objects"))
    if (entry.is_regular_file() && entry.path().parent_path().filename() != "info") ++own_objects;
  EXPECT_EQ(own_objects, 0u);
}

TEST_F(Libgit2WorkTreeTest, UnknownCommitIsNotFound) {
  auto tree = open_tree();
  auto result = tree->checkout(id(std::string(40, 'a')), false);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), ErrorCode::not_found);
  EXPECT_NE(result.error().message().find(std::string(40, 'a')), std::string::npos)
      << result.error().message();
}

TEST_F(Libgit2WorkTreeTest, ListsChangedPathsBetweenTwoCommits) {
  auto tree = open_tree();
  auto paths = value_of(tree->changed_paths(id(m_first), id(m_second)));
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (std::vector<std::string>{"pkg/__init__.py", "pkg/old.py"}));
  EXPECT_TRUE(value_of(tree->changed_paths(id(m_second), id(m_second))).empty());
}

TEST_F(Libgit2WorkTreeTest, ChecksOutSubmodulesAtTheirRecordedCommits) {
  const std::string with_sub = add_submodule();
  sub().write_file("lib.txt", "version 2\n");
  sub().commit("sub second");
  m_origin.git({"-c", "protocol.file.allow=always", "-C", "third/sub", "pull", "-q", "origin", "main"});
  const std::string moved = m_origin.commit("move submodule");

  auto tree = open_tree();
  ASSERT_TRUE(tree->checkout(id(with_sub), true)) << "checkout";
  EXPECT_EQ(read_text(tree->path() / "third" / "sub" / "lib.txt"), "version 1\n");
  auto result = tree->checkout(id(moved), true);  // needs a fetch: "sub second" is new
  ASSERT_TRUE(result) << result.error().message();
  EXPECT_EQ(read_text(tree->path() / "third" / "sub" / "lib.txt"), "version 2\n");
  auto paths = value_of(tree->changed_paths(id(with_sub), id(moved)));
  EXPECT_EQ(paths, (std::vector<std::string>{"third/sub"}));
}

TEST_F(Libgit2WorkTreeTest, LeavesSubmodulesAloneWhenNotAsked) {
  const std::string with_sub = add_submodule();
  auto tree = open_tree();
  ASSERT_TRUE(tree->checkout(id(with_sub), false));
  EXPECT_FALSE(fs::exists(tree->path() / "third" / "sub" / "lib.txt"));
}

TEST_F(Libgit2WorkTreeTest, UnreachableSubmoduleFailsNamingItAndItsUrl) {
  add_submodule();
  const std::string gone = "file://" + (m_tmp / "served" / "gone").string();
  m_origin.git({"config", "-f", ".gitmodules", "submodule.third/sub.url", gone});
  const std::string broken = m_origin.commit("submodule moved away");
  auto tree = open_tree();
  auto result = tree->checkout(id(broken), true);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), ErrorCode::network);
  const std::string& message = result.error().message();
  EXPECT_NE(message.find("submodule 'third/sub'"), std::string::npos) << message;
  EXPECT_NE(message.find("'" + gone + "'"), std::string::npos) << message;
}

TEST_F(Libgit2WorkTreeTest, StopRequestDuringASubmoduleFetchIsCancelled) {
  const std::string with_sub = add_submodule();
  // False for the check before the fetch, true from the first progress callback on: the fetch
  // itself must notice and abort.
  int polls = 0;
  WorkTreeOptions options;
  options.stop_requested = [&polls] { return ++polls > 1; };
  auto tree = value_of(
      open_work_tree(m_tmp / "work", mirror().path(), mirror().display_url(), *m_log, std::move(options)));
  auto result = tree->checkout(id(with_sub), true);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), ErrorCode::cancelled) << result.error().message();
  EXPECT_GT(polls, 1);
  EXPECT_FALSE(tree->head());
}

// ---- confined checkouts: what a build leaves in the tree stays in the tree ----------------------

TEST_F(Libgit2WorkTreeTest, ConfinedCheckoutMovesTheFilesAndKeepsBuildOutputs) {
  auto tree = open_confined_tree();
  ASSERT_TRUE(tree->checkout(id(m_first), false));
  std::ofstream(tree->path() / "pkg" / "_native.so") << "binary";
  const FileIdentity unchanged = identity(tree->path() / "setup.py");
  ASSERT_TRUE(tree->checkout(id(m_second), false));
  EXPECT_EQ(read_text(tree->path() / "pkg" / "__init__.py"), "def f(a, b=1):\n    pass\n");
  EXPECT_FALSE(fs::exists(tree->path() / "pkg" / "old.py"));
  EXPECT_EQ(read_text(tree->path() / "pkg" / "_native.so"), "binary");
  EXPECT_TRUE(same(identity(tree->path() / "setup.py"), unchanged));
  EXPECT_EQ(tree->head(), id(m_second));
  EXPECT_EQ(open_confined_tree()->head(), id(m_second));
}

TEST_F(Libgit2WorkTreeTest, CheckoutNeverWritesThroughALinkABuildPutInPlaceOfATrackedFile) {
  auto tree = open_confined_tree();
  if (!confining()) GTEST_SKIP() << "bubblewrap cannot run here";
  ASSERT_TRUE(tree->checkout(id(m_first), false));
  const fs::path victim = m_tmp / "victim.txt";
  std::ofstream(victim) << "precious\n";
  fs::remove(tree->path() / "pkg" / "__init__.py");  // what a build's setup.py may do
  fs::create_symlink(victim, tree->path() / "pkg" / "__init__.py");
  ASSERT_TRUE(tree->checkout(id(m_second), false));
  EXPECT_EQ(read_text(victim), "precious\n");
  EXPECT_FALSE(fs::is_symlink(tree->path() / "pkg" / "__init__.py"));
  EXPECT_EQ(read_text(tree->path() / "pkg" / "__init__.py"), "def f(a, b=1):\n    pass\n");
}

TEST_F(Libgit2WorkTreeTest, CheckoutNeverFollowsALinkABuildPutInPlaceOfADirectory) {
  auto tree = open_confined_tree();
  if (!confining()) GTEST_SKIP() << "bubblewrap cannot run here";
  ASSERT_TRUE(tree->checkout(id(m_first), false));
  const fs::path victim = m_tmp / "victim";
  fs::create_directories(victim);
  fs::remove_all(tree->path() / "pkg");
  fs::create_directory_symlink(victim, tree->path() / "pkg");
  ASSERT_TRUE(tree->checkout(id(m_second), false));
  EXPECT_TRUE(fs::is_empty(victim));
  EXPECT_EQ(read_text(tree->path() / "pkg" / "__init__.py"), "def f(a, b=1):\n    pass\n");
}

TEST_F(Libgit2WorkTreeTest, CheckoutIgnoresAGitConfigABuildPointedAtAnotherDirectory) {
  auto tree = open_confined_tree();
  if (!confining()) GTEST_SKIP() << "bubblewrap cannot run here";
  ASSERT_TRUE(tree->checkout(id(m_first), false));
  const fs::path victim = m_tmp / "victim";
  fs::create_directories(victim);
  std::ofstream(tree->path() / ".git" / "config", std::ios::app)
      << "[core]\n\tworktree = " << victim.string() << "\n";
  ASSERT_TRUE(tree->checkout(id(m_second), false));
  EXPECT_TRUE(fs::is_empty(victim));
  EXPECT_EQ(read_text(tree->path() / "pkg" / "__init__.py"), "def f(a, b=1):\n    pass\n");
}

TEST_F(Libgit2WorkTreeTest, FifoABuildLeftInPlaceOfATrackedFileHangsNothing) {
  auto tree = open_confined_tree(10s);
  ASSERT_TRUE(tree->checkout(id(m_first), false));
  fs::remove(tree->path() / "pkg" / "__init__.py");
  ASSERT_EQ(::mkfifo((tree->path() / "pkg" / "__init__.py").c_str(), 0644), 0);
  ASSERT_EQ(::mkfifo((tree->path() / ".git" / "planted").c_str(), 0644), 0);
  std::ofstream(tree->path() / "build-output.txt") << "kept\n";
  ASSERT_TRUE(tree->checkout(id(m_second), false));
  EXPECT_EQ(read_text(tree->path() / "pkg" / "__init__.py"), "def f(a, b=1):\n    pass\n");
  EXPECT_FALSE(fs::exists(fs::symlink_status(tree->path() / ".git" / "planted")));
  // Checked out in place, not after a checkout that hung to its timeout and a tree made afresh
  // (which loses build outputs).
  EXPECT_EQ(read_text(tree->path() / "build-output.txt"), "kept\n");
}

TEST_F(Libgit2WorkTreeTest, ConfinedCheckoutOfAnUnknownCommitIsNotFound) {
  auto tree = open_confined_tree();
  auto result = tree->checkout(id(std::string(40, 'a')), false);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), ErrorCode::not_found) << result.error().message();
}

TEST_F(Libgit2WorkTreeTest, ConfinedCheckoutUpdatesSubmodules) {
  const std::string with_sub = add_submodule();
  auto tree = open_confined_tree();
  ASSERT_TRUE(tree->checkout(id(with_sub), true));
  EXPECT_EQ(read_text(tree->path() / "third" / "sub" / "lib.txt"), "version 1\n");
}

}  // namespace
}  // namespace aaw
