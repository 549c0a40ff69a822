// Parsing ahead in a real helper process (the built binary's `__summaries`): summaries made for the
// commits expected arrive, are taken once, and a helper that is gone or talks nonsense stops
// helping without stopping anything else.
#include "io/posix/parse_ahead_posix.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "io/git/libgit2_mirror.hpp"
#include "support/git_fixture.hpp"
#include "support/temp_dir.hpp"

namespace aaw {
namespace {

using namespace std::chrono_literals;

class ParseAheadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_repo.write_file("pkg/__init__.py", "from .a import *\n");
    m_repo.write_file("pkg/a.py", "def f(x):\n    pass\n");
    m_first = m_repo.commit("first");
    for (int i = 1; i <= 3; ++i) {
      m_repo.write_file("pkg/a.py", "def f(x, y=" + std::to_string(i) + "):\n    pass\n");
      m_commits.push_back(ObjectId{m_repo.commit("a changes")});
    }
    auto mirror = open_mirror(m_repo.path().string(), m_dir.path() / "mirrors", {});
    ASSERT_TRUE(mirror) << mirror.error().message();
    m_mirror = std::move(*mirror);
  }

  ObjectId blob(const ObjectId& commit) {
    return *value(value(m_mirror->tree(commit))->find_blob("pkg/a.py"));
  }
  template <class T>
  static T value(Result<T> result) {
    EXPECT_TRUE(result) << result.error().message();
    return std::move(*result);
  }

  // Polls `done` (30 s at most): the helper works at its own pace.
  template <class Done>
  static void wait_until(Done done) {
    for (auto deadline = std::chrono::steady_clock::now() + 30s;
         !done() && std::chrono::steady_clock::now() < deadline;)
      std::this_thread::sleep_for(10ms);
  }
  // take(blob) once the helper made `made` summaries (the port itself never waits for a commit it
  // is not at).
  static std::optional<PickledSummary> take_when_made(SummaryPrefetch& prefetch, const ObjectId& blob,
                                                      std::int64_t made) {
    wait_until([&] { return prefetch.made() >= made; });
    return prefetch.take(blob);
  }
  // The real helper watching pkg/a.py, given every commit, once it made all three summaries.
  std::unique_ptr<SummaryPrefetch> helper_with_all_made() {
    auto prefetch = make_parse_ahead(AAW_BINARY, m_mirror->path());
    prefetch->watch({"pkg/a.py"});
    prefetch->expect(ObjectId{m_first}, m_commits);
    prefetch->reach(m_commits[0]);
    wait_until([&] { return prefetch->made() >= 3; });
    return prefetch;
  }
  // A helper that is this shell script, expecting the commits, once it stopped helping.
  std::unique_ptr<SummaryPrefetch> failed_fake(const std::string& script) {
    const auto fake = m_dir.path() / "fake-helper";
    std::ofstream(fake) << "#!/bin/sh\n" << script;
    std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
    auto prefetch = make_parse_ahead(fake, m_mirror->path());
    prefetch->expect(ObjectId{m_first}, m_commits);
    wait_until([&] {
      prefetch->reach(m_commits[0]);
      return !prefetch->failure().empty();
    });
    return prefetch;
  }

  test::TempDir m_dir{"aaw-parse-ahead"};
  test::GitFixture m_repo{m_dir.path() / "upstream"};
  std::unique_ptr<GitMirror> m_mirror;
  std::string m_first;
  std::vector<ObjectId> m_commits;
};

TEST_F(ParseAheadTest, SummariesOfTheCommitsExpectedArriveAndAreTakenOnce) {
  auto prefetch = make_parse_ahead(AAW_BINARY, m_mirror->path());
  prefetch->watch({"pkg/a.py", "pkg/__init__.py"});
  prefetch->expect(ObjectId{m_first}, m_commits);
  prefetch->reach(m_commits[0]);
  auto made = take_when_made(*prefetch, blob(m_commits[0]), 1);
  ASSERT_TRUE(made.has_value()) << prefetch->failure();
  EXPECT_GT(made->characters, 0);
  EXPECT_NE(made->pickled.find("Scope"), std::string::npos) << "a pickle of aaw_summary.Scope";
  EXPECT_FALSE(prefetch->take(blob(m_commits[0])).has_value()) << "taken once";
  prefetch->reach(m_commits[2]);
  std::optional<PickledSummary> third;
  wait_until([&] { return (third = prefetch->take(blob(m_commits[2]))).has_value(); });
  EXPECT_TRUE(third.has_value()) << prefetch->failure();
  // Commit 1's summary too, unless the helper was still behind when told the replay had passed it
  // (on a loaded machine): it then goes on from commit 2.
  EXPECT_GE(prefetch->made(), 2);
  EXPECT_LE(prefetch->made(), 3);
  EXPECT_EQ(prefetch->taken(), 2);
  EXPECT_EQ(prefetch->failure(), "");
}

TEST_F(ParseAheadTest, TheHelpersPeakMemoryIsKnownWhileItRunsAndAfterItStopped) {
  auto prefetch = helper_with_all_made();
  const std::int64_t running = prefetch->peak_rss_kb();
  EXPECT_GT(running, 1024) << "an interpreter takes more than a MiB";
  prefetch->rest();
  EXPECT_GE(prefetch->peak_rss_kb(), running);
}

TEST_F(ParseAheadTest, SummariesForCommitsPassedAreDropped) {
  auto prefetch = helper_with_all_made();
  prefetch->reach(m_commits[2]);
  EXPECT_FALSE(prefetch->take(blob(m_commits[0])).has_value()) << "made for a commit the replay passed";
  EXPECT_TRUE(prefetch->take(blob(m_commits[2])).has_value());
}

TEST_F(ParseAheadTest, RestStopsTheHelperAndTheNextRangeStartsItAgain) {
  auto prefetch = helper_with_all_made();
  prefetch->rest();
  EXPECT_FALSE(prefetch->take(blob(m_commits[0])).has_value()) << "what it made goes with it";
  // A new range: a new helper, which knows nothing of what the last one sent.
  prefetch->expect(ObjectId{m_commits[0]}, {m_commits[1], m_commits[2]});
  prefetch->reach(m_commits[1]);
  EXPECT_TRUE(take_when_made(*prefetch, blob(m_commits[1]), 4).has_value()) << prefetch->failure();
  EXPECT_EQ(prefetch->failure(), "");
}

TEST_F(ParseAheadTest, ABlobParsedHereWhileTheHelperIsNotPastItsCommitIsClaimed) {
  // A helper that only records what it is told (it never gets past the first commit). It keeps
  // its stdout open (fd 3): a helper whose output ends has stopped helping, and claims nothing.
  const auto told = m_dir.path() / "told";
  const auto fake = m_dir.path() / "recording-helper";
  std::ofstream(fake) << "#!/bin/sh\nexec 3>&1\nexec cat > '" << told.string() << "'\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  auto prefetch = make_parse_ahead(fake, m_mirror->path());
  prefetch->watch({"pkg/a.py"});
  prefetch->expect(ObjectId{m_first}, m_commits);
  prefetch->reach(m_commits[0]);
  EXPECT_EQ(prefetch->take(blob(m_commits[0])), std::nullopt);
  auto read = [&] {
    std::ifstream in(told);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  wait_until([&] { return read().find("mine ") != std::string::npos; });
  EXPECT_NE(read().find("mine " + blob(m_commits[0]).hex + "\n"), std::string::npos) << read();
  EXPECT_EQ(prefetch->failure(), "");
}

TEST_F(ParseAheadTest, AHelperThatCannotStartSaysWhyAndNothingIsTaken) {
  auto prefetch = make_parse_ahead(m_dir.path() / "no-such-program", m_mirror->path());
  prefetch->expect(ObjectId{m_first}, m_commits);
  prefetch->reach(m_commits[0]);
  EXPECT_FALSE(prefetch->take(blob(m_commits[0])).has_value());
  EXPECT_NE(prefetch->failure().find("no-such-program"), std::string::npos) << prefetch->failure();
}

TEST_F(ParseAheadTest, AHelperThatSendsNonsenseIsStoppedAndSaysSo) {
  auto prefetch = failed_fake("echo 'hello there'\ncat >/dev/null\n");
  EXPECT_EQ(prefetch->failure(), "the process that parses ahead stopped helping: it sent an unreadable line");
  EXPECT_FALSE(prefetch->take(blob(m_commits[0])).has_value());
}

TEST_F(ParseAheadTest, AHelperThatStoppedHelpingIsStartedAgainForTheNextRange) {
  // The first helper dies at once; the one started for the next range is the real one.
  const auto marker = m_dir.path() / "died-once";
  auto prefetch = failed_fake("[ -e '" + marker.string() + "' ] || { touch '" + marker.string() +
                              "'; exit 3; }\nexec '" + std::string(AAW_BINARY) + "' \"$@\"\n");
  EXPECT_NE(prefetch->failure().find("stopped helping"), std::string::npos) << prefetch->failure();
  prefetch->watch({"pkg/a.py"});
  prefetch->expect(ObjectId{m_first}, m_commits);
  prefetch->reach(m_commits[0]);
  EXPECT_TRUE(take_when_made(*prefetch, blob(m_commits[0]), 1).has_value()) << prefetch->failure();
}

TEST_F(ParseAheadTest, NoHelperIsStartedAfterThreeInARowStoppedHelping) {
  const auto starts = m_dir.path() / "starts";
  auto prefetch = failed_fake("echo started >>'" + starts.string() + "'\necho nonsense\ncat >/dev/null\n");
  for (const char* in_a_row : {"(2 in a row)", "(3 in a row: no more are started)"}) {
    prefetch->expect(ObjectId{m_first}, m_commits);
    wait_until([&] {
      prefetch->reach(m_commits[0]);
      return prefetch->failure().find(in_a_row) != std::string::npos;
    });
    EXPECT_EQ(prefetch->failure(), std::string("the process that parses ahead stopped helping: it sent an "
                                               "unreadable line ") +
                                       in_a_row);
  }
  prefetch->expect(ObjectId{m_first}, m_commits);
  prefetch->reach(m_commits[0]);
  std::ifstream in(starts);
  const std::string started((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(started, "started\nstarted\nstarted\n");
}

TEST_F(ParseAheadTest, AHelperThatDiesIsNoticed) {
  auto prefetch = failed_fake("exit 3\n");
  // Seen as its stdout ending, or as its stdin no longer read, whichever comes first.
  EXPECT_NE(prefetch->failure().find("stopped helping"), std::string::npos) << prefetch->failure();
}

}  // namespace
}  // namespace aaw
