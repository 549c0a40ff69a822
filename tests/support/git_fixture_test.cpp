// The fixture commits in-process with libgit2; every test that compares ids, trees or messages with
// what git shows relies on its commits being the ones `git add -A && git commit -m` would make.
#include "support/git_fixture.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace aaw::test {
namespace {

namespace fs = std::filesystem;

// A file, an executable, a link, an ignored file, a nested directory; then an edit, a file removed
// from the disk only, a directory added, a message with blank lines and trailing spaces; then nothing.
void edit(GitFixture& repo, int step) {
  if (step == 0) {
    repo.write_file("a.py", "def f(x):\n    return x\n");
    repo.write_file("sub/b.txt", "b\n");
    repo.write_file("run.sh", "#!/bin/sh\necho hi\n");
    fs::permissions(repo.path() / "run.sh", fs::perms::owner_exec, fs::perm_options::add);
    fs::create_symlink("a.py", repo.path() / "link.py");
    repo.write_file(".gitignore", "*.log\n");
    repo.write_file("ignored.log", "never committed\n");
  } else if (step == 1) {
    repo.write_file("a.py", "def f(x, y=1):\n    return x + y\n");
    fs::remove(repo.path() / "sub" / "b.txt");
    repo.write_file("deep/er/c.py", "C = 1\n");
  }
}

const std::vector<std::string> k_messages = {"first", "\n\nsecond  \n\n\nwith a body \n\n", "third"};

TEST(GitFixtureTest, CommitsTheSameObjectsAsGitAddAndGitCommit) {
  TempDir dir("aaw-git-fixture");
  GitFixture fixture(dir.path() / "fixture");
  GitFixture command_line(dir.path() / "command-line");
  for (int step = 0; step < static_cast<int>(k_messages.size()); ++step) {
    edit(fixture, step);
    edit(command_line, step);
    const std::string ours = fixture.commit(k_messages[step]);
    EXPECT_EQ(ours, command_line.commit_with_git(k_messages[step])) << "step " << step;
    EXPECT_EQ(ours, fixture.rev_parse("HEAD"));
    EXPECT_EQ(fixture.git({"status", "--porcelain"}), "") << "step " << step;
  }
  EXPECT_EQ(fixture.git({"ls-tree", "-r", "HEAD"}), command_line.git({"ls-tree", "-r", "HEAD"}));
  EXPECT_NE(fixture.git({"ls-tree", "HEAD", "run.sh"}).find("100755"), std::string::npos);
  EXPECT_NE(fixture.git({"ls-tree", "HEAD", "link.py"}).find("120000"), std::string::npos);
  EXPECT_EQ(fixture.git({"ls-tree", "-r", "--name-only", "HEAD"}).find("ignored.log"), std::string::npos);
}

TEST(GitFixtureTest, ATreeTooDeepForLibgit2IsCommittedByGitInstead) {
  TempDir dir("aaw-git-fixture");
  GitFixture fixture(dir.path() / "fixture");
  GitFixture command_line(dir.path() / "command-line");
  std::string deep = "pkg";
  for (int level = 0; level < 120; ++level) deep += "/d";
  for (GitFixture* repo : {&fixture, &command_line}) repo->write_file(deep + "/m.py", "def f(): pass\n");
  EXPECT_EQ(fixture.commit("deep"), command_line.commit_with_git("deep"));
  EXPECT_EQ(fixture.git({"status", "--porcelain"}), "");
}

}  // namespace
}  // namespace aaw::test
