// The process that parses ahead, its own side, on a real mirror and the real interpreter: the
// commands in, the summaries and progress out.
#include "extract/static/summary_worker.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "io/git/libgit2_mirror.hpp"
#include "support/git_fixture.hpp"
#include "support/shared_python.hpp"
#include "support/temp_dir.hpp"

namespace aaw {
namespace {

// "summary BLOB CHARACTERS SIZE" and "done COMMIT" replies, the pickles left out.
std::vector<std::string> replies(const std::string& out) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < out.size()) {
    const auto end = out.find('\n', at);
    std::string line = out.substr(at, end - at);
    at = end + 1;
    if (line.starts_with("summary ")) {
      at += std::stoul(line.substr(line.rfind(' ') + 1));
      line = line.substr(0, line.find(' ', 8));  // "summary BLOB"
    }
    lines.push_back(line);
  }
  return lines;
}

class SummaryWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_repo.write_file("pkg/__init__.py", "from .a import *\n");
    m_repo.write_file("pkg/a.py", "def f(x):\n    pass\n");
    m_repo.write_file("README.md", "one\n");
    m_first = m_repo.commit("first");
    auto mirror = open_mirror(m_repo.path().string(), m_dir.path() / "mirrors", {});
    ASSERT_TRUE(mirror) << mirror.error().message();
    m_mirror = std::move(*mirror);
  }

  std::string blob(const std::string& commit, const std::string& path) {
    auto tree = m_mirror->tree(ObjectId{commit});
    return (*(*tree)->find_blob(path))->hex;
  }

  std::vector<std::string> run(const std::string& commands, int expected_exit = 0) {
    std::istringstream text(commands);
    StreamLineInput in(text);
    std::ostringstream out;
    EXPECT_EQ(run_summary_worker(*m_mirror, m_extractor, in, out), expected_exit);
    return replies(out.str());
  }

  test::TempDir m_dir{"aaw-summary-worker"};
  test::GitFixture m_repo{m_dir.path() / "upstream"};
  StaticExtractor m_extractor{test::shared_python()};
  std::unique_ptr<GitMirror> m_mirror;
  std::string m_first;
};

TEST_F(SummaryWorkerTest, ParsesEachWatchedFileWhereItChangesOncePerBlob) {
  m_repo.write_file("pkg/a.py", "def f(x, y=1):\n    pass\n");
  const std::string edits_a = m_repo.commit("a changes");
  m_repo.write_file("README.md", "two\n");
  const std::string docs = m_repo.commit("docs only");
  m_repo.write_file("pkg/a.py", "def f(x):\n    pass\n");
  const std::string back = m_repo.commit("a as it was");
  ASSERT_TRUE(m_mirror->fetch());
  auto got = run("base " + m_first + "\nwatch pkg/a.py\nwatch pkg/__init__.py\ncommit " + edits_a +
                 "\ncommit " + docs + "\ncommit " + back + "\n");
  EXPECT_EQ(got, (std::vector<std::string>{"parsing " + blob(edits_a, "pkg/a.py"),
                                           "summary " + blob(edits_a, "pkg/a.py"), "done " + edits_a,
                                           "done " + docs, "parsing " + blob(back, "pkg/a.py"),
                                           "summary " + blob(back, "pkg/a.py"), "done " + back}));
}

TEST_F(SummaryWorkerTest, ABlobSentOnceIsNotSentAgain) {
  m_repo.write_file("pkg/a.py", "def f(x, y=1):\n    pass\n");
  const std::string edits_a = m_repo.commit("a changes");
  ASSERT_TRUE(m_mirror->fetch());
  // From the first commit back and forth: the first version was sent at the first step.
  auto got = run("base " + edits_a + "\nwatch pkg/a.py\ncommit " + m_first + "\ncommit " + edits_a +
                 "\ncommit " + m_first + "\n");
  EXPECT_EQ(got, (std::vector<std::string>{
                     "parsing " + blob(m_first, "pkg/a.py"), "summary " + blob(m_first, "pkg/a.py"),
                     "done " + m_first, "parsing " + blob(edits_a, "pkg/a.py"),
                     "summary " + blob(edits_a, "pkg/a.py"), "done " + edits_a, "done " + m_first}));
}

TEST_F(SummaryWorkerTest, ABlobTheMainProcessClaimsIsLeftToIt) {
  m_repo.write_file("pkg/a.py", "def f(x, y=1):\n    pass\n");
  m_repo.write_file("pkg/__init__.py", "from .a import *\nfrom .b import *\n");
  const std::string both = m_repo.commit("both change");
  ASSERT_TRUE(m_mirror->fetch());
  // The claim comes after the commit it concerns: it counts as soon as it is read, before the
  // commit is walked, while the commands run in turn.
  auto got = run("base " + m_first + "\nwatch pkg/a.py\nwatch pkg/__init__.py\ncommit " + both + "\nmine " +
                 blob(both, "pkg/a.py") + "\n");
  EXPECT_EQ(got, (std::vector<std::string>{"parsing " + blob(both, "pkg/__init__.py"),
                                           "summary " + blob(both, "pkg/__init__.py"), "done " + both}));
}

TEST_F(SummaryWorkerTest, TheFilesOfTheMainProcessShareAreLeftToIt) {
  m_repo.write_file("pkg/a.py", "def f(x, y=1):\n    pass\n");
  const std::string edits_a = m_repo.commit("a changes");
  ASSERT_TRUE(m_mirror->fetch());
  const std::string commands = "base " + m_first + "\nwatch pkg/a.py\ncommit " + edits_a + "\n";
  EXPECT_EQ(run("share 16\n" + commands), (std::vector<std::string>{"done " + edits_a})) << "every file";
  EXPECT_EQ(run("share 0\n" + commands).size(), 3u) << "none: parsing, summary, done";
  EXPECT_EQ(run("share many\n" + commands).size(), 3u) << "a share that is no number is none";
}

TEST_F(SummaryWorkerTest, ACommitTheMainProcessReachedIsWhereTheWalkGoesOn) {
  m_repo.write_file("pkg/a.py", "def f(x, y=1):\n    pass\n");
  const std::string a1 = m_repo.commit("a changes");
  m_repo.write_file("pkg/a.py", "def f(x, y=2):\n    pass\n");
  const std::string a2 = m_repo.commit("a changes again");
  m_repo.write_file("pkg/__init__.py", "from .a import *\nfrom .b import *\n");
  const std::string init = m_repo.commit("init changes");
  m_repo.write_file("pkg/a.py", "def f(x, y=3):\n    pass\n");
  const std::string a3 = m_repo.commit("a changes a third time");
  ASSERT_TRUE(m_mirror->fetch());
  // The main process parsed a.py's first two versions itself: the walk leaves those commits,
  // reports the last one left out done (what comes next counts for the commit reached) and
  // parses only what changed after it.
  auto got = run("base " + m_first + "\nwatch pkg/a.py\nwatch pkg/__init__.py\ncommit " + a1 + "\ncommit " +
                 a2 + "\ncommit " + init + "\ncommit " + a3 + "\nreached " + init + "\n");
  EXPECT_EQ(got, (std::vector<std::string>{"done " + a2, "parsing " + blob(init, "pkg/__init__.py"),
                                           "summary " + blob(init, "pkg/__init__.py"), "done " + init,
                                           "parsing " + blob(a3, "pkg/a.py"),
                                           "summary " + blob(a3, "pkg/a.py"), "done " + a3}));
  // A commit it was not given is no place to go: the walk goes on as it was.
  EXPECT_EQ(run("base " + m_first + "\nwatch pkg/a.py\nreached " + a2 + "\ncommit " + a1 + "\n"),
            (std::vector<std::string>{"parsing " + blob(a1, "pkg/a.py"), "summary " + blob(a1, "pkg/a.py"),
                                      "done " + a1}));
}

TEST_F(SummaryWorkerTest, ACommitItCannotReadIsReportedDoneWithNothingMade) {
  const std::string missing(40, 'e');
  auto got = run("base " + m_first + "\nwatch pkg/a.py\ncommit " + missing + "\n");
  EXPECT_EQ(got, (std::vector<std::string>{"done " + missing}));
}

TEST_F(SummaryWorkerTest, ACommandItCannotReadEndsItWithStatus2) {
  EXPECT_EQ(run("watch pkg/a.py\nfly away\n", 2), std::vector<std::string>{});
}

}  // namespace
}  // namespace aaw
