// The watcher's decisions on fakes alone: a history made in memory, a source that answers from a
// table, an in-memory store, a clock that never sleeps. tests/system/watcher_test.cpp runs the same
// loop on a real git mirror, SQLite store and interpreter.
#include "core/watch/watcher.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <tuple>

#include "core/watch/poll_status.hpp"
#include "support/fake_clock.hpp"
#include "support/fake_control.hpp"
#include "support/fake_signature_source.hpp"
#include "support/faulty_mirror.hpp"
#include "support/memory_git_mirror.hpp"
#include "support/memory_state_store.hpp"
#include "support/temp_dir.hpp"

namespace aaw {
namespace {

using Seen = std::tuple<std::string, std::string, std::string>;  // commit, function, change kind

SignatureState params(std::vector<std::string> names) {
  Signature signature;
  for (std::string& name : names)
    signature.parameters.push_back(Parameter{std::move(name), ParameterKind::positional_or_keyword, {}, {}});
  return SignatureState::ok(signature);
}

class WatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_config.repository_url = m_git.display_url();
    m_config.functions_to_monitor = {{"import pkg", "pkg.f"}, {"import pkg", "pkg.g"}};
    m_config.check_interval_seconds = 60;
    m_first = add("first", {"a"}, {"x"});
    add("docs only", {"a"}, {"x"});
    m_changed = add("f grows b", {"a", "b"}, {"x"});
    m_config.start_commit = m_first.hex;
  }

  // A commit on main whose states the source gives as f(f_params) and g(g_params).
  ObjectId add(const std::string& subject, std::vector<std::string> f_params,
               std::vector<std::string> g_params) {
    ObjectId id = m_git.commit({{"log.txt", subject}}, subject);
    m_source.set(id.hex, {params(std::move(f_params)), params(std::move(g_params))});
    return id;
  }

  std::set<Seen> history() {
    std::set<Seen> out;
    auto history = m_store.history(std::nullopt);
    EXPECT_TRUE(history);
    if (history)
      for (const Json& c : *history)
        for (const Json& change : c["changes"]) out.emplace(c["commit"], c["function_path"], change["kind"]);
    return out;
  }

  test::TempDir m_dir{"aaw-watcher-core"};
  test::InMemoryGitMirror m_git;
  test::FaultyMirror m_mirror{m_git};
  test::FakeSignatureSource m_source;
  test::InMemoryStateStore m_store;
  EventLog m_events = std::move(*EventLog::open(m_dir.path() / "events.jsonl"));
  std::shared_ptr<Logger> m_log = null_logger();
  test::FakeClock m_clock;
  test::FakeControl m_control;
  Config m_config;
  Progress m_progress{m_clock, *m_log, nullptr};
  std::unique_ptr<CommitProcessor> m_processor;
  ObjectId m_first;
  ObjectId m_changed;

  // A watcher as a new run of the daemon makes it, over the same mirror, source and store.
  Watcher watcher() {
    m_processor = std::make_unique<CommitProcessor>(m_config.functions_to_monitor, m_mirror, m_source,
                                                    m_store, m_events, *m_log, m_clock);
    return Watcher(m_config, WatcherDeps{m_mirror, *m_processor, m_store, *m_log, m_clock, m_control,
                                         m_progress, [] {}});
  }
};

TEST_F(WatcherTest, OnceProcessesEveryCommitFromTheStartCommitAndRecordsWhatChanged) {
  EXPECT_EQ(watcher().run(true), 0);
  EXPECT_EQ(*m_store.commit_count(), 3);
  EXPECT_EQ(history(), (std::set<Seen>{{m_changed.hex, "pkg.f", "parameter_added"}}));
  EXPECT_EQ(**m_store.line_head(), m_changed);
}

TEST_F(WatcherTest, ALaterPollExtractsOnlyTheNewCommits) {
  ASSERT_EQ(watcher().run(true), 0);
  const std::size_t asked = m_source.asked().size();
  ObjectId renamed = add("g renames x", {"a", "b"}, {"y"});
  ASSERT_EQ(watcher().run(true), 0);
  EXPECT_EQ(std::vector<std::string>(m_source.asked().begin() + static_cast<std::ptrdiff_t>(asked),
                                     m_source.asked().end()),
            std::vector<std::string>{renamed.hex});
  EXPECT_EQ(history(), (std::set<Seen>{{m_changed.hex, "pkg.f", "parameter_added"},
                                       {renamed.hex, "pkg.g", "parameter_removed"},
                                       {renamed.hex, "pkg.g", "parameter_added"}}));
}

TEST_F(WatcherTest, AnUnmovedHeadNeedsNoFetch) {
  ASSERT_EQ(watcher().run(true), 0);
  const int fetches = m_mirror.fetches();
  ASSERT_EQ(watcher().run(true), 0);
  EXPECT_EQ(m_mirror.fetches(), fetches);
}

TEST_F(WatcherTest, OnceExitsTwoWhenTheRemoteCannotBeReachedAndNothingIsRecorded) {
  m_mirror.fail_remote(1);
  EXPECT_EQ(watcher().run(true), 2);
  EXPECT_EQ(*m_store.commit_count(), 0);
}

TEST_F(WatcherTest, AnOutageIsRetriedWithBackoffUntilTheRemoteAnswers) {
  m_mirror.fail_remote(3);
  m_clock.on_sleep([this](std::size_t sleeps) {
    if (sleeps == 4) m_control.request_stop();
  });
  EXPECT_EQ(watcher().run(false), 0);
  using std::chrono::seconds;
  ASSERT_GE(m_clock.sleeps().size(), 3u);
  EXPECT_EQ(std::vector<Duration>(m_clock.sleeps().begin(), m_clock.sleeps().begin() + 3),
            (std::vector<Duration>{seconds(5), seconds(10), seconds(20)}));
  EXPECT_EQ(*m_store.commit_count(), 3) << "the poll after the outage processed the history";
}

TEST_F(WatcherTest, ARecoveryIsBlamedOnTheRemoteOnlyWhenItWasTheRemote) {
  LogConfig log;
  log.file = (m_dir.path() / "w.log").string();
  std::shared_ptr<Logger> progress_log = m_log;  // m_progress holds it
  m_log = *make_logger(log, ConsoleStream::none);
  m_mirror.fail_remote(2, ErrorCode::io);  // a full disk, say
  m_clock.on_sleep([this](std::size_t sleeps) {
    if (sleeps == 3) m_control.request_stop();
  });
  EXPECT_EQ(watcher().run(false), 0);
  m_log->flush();
  std::ifstream in(m_dir.path() / "w.log");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("INFO - Polls succeed again after 2 failed ones"), std::string::npos) << text;
  EXPECT_EQ(text.find("reachable again"), std::string::npos) << text;
}

TEST_F(WatcherTest, ReplayProcessesTheListInOrderAndSkipsWhatWasRecorded) {
  m_config.start_commit.clear();
  auto first = watcher();
  EXPECT_EQ(first.replay({m_first.hex, m_changed.hex}), 0);
  EXPECT_EQ(history(), (std::set<Seen>{{m_changed.hex, "pkg.f", "parameter_added"}}));
  const std::size_t asked = m_source.asked().size();
  EXPECT_EQ(watcher().replay({m_first.hex, m_changed.hex}), 0);
  EXPECT_EQ(m_source.asked().size(), asked) << "both were recorded: nothing extracted again";
}

TEST_F(WatcherTest, AWatchAfterAReplayOfAnotherRunGoesOnFromTheLastReplayedCommit) {
  // `replay --once C` then `watch`: the commits after C are processed, not only the head.
  m_config.start_commit.clear();
  ASSERT_EQ(watcher().replay({m_first.hex}), 0);
  EXPECT_EQ(watcher().run(true), 0);
  EXPECT_EQ(*m_store.commit_count(), 3);
  EXPECT_EQ(history(), (std::set<Seen>{{m_changed.hex, "pkg.f", "parameter_added"}}));
  EXPECT_EQ(**m_store.line_head(), m_changed);
}

TEST_F(WatcherTest, AReplayListedOutOfOrderIsWarnedOf) {
  m_config.start_commit.clear();
  LogConfig log;
  log.file = (m_dir.path() / "w.log").string();
  std::shared_ptr<Logger> progress_log = m_log;  // m_progress holds it
  m_log = *make_logger(log, ConsoleStream::none);
  ASSERT_EQ(watcher().replay({m_changed.hex, m_first.hex}), 0);
  m_log->flush();
  std::ifstream in(m_dir.path() / "w.log");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("WARNING - Replaying '" + m_first.hex + "' (" + m_first.hex.substr(0, 12) +
                      "): it does not descend from " + m_changed.hex.substr(0, 12)),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("does not descend from " + m_first.hex.substr(0, 12)), std::string::npos) << text;
}

TEST_F(WatcherTest, ABranchMovedBackToAnOlderCommitIsSettledAtOnce) {
  for (bool start_at_first : {true, false}) {  // the old commit recorded, or never processed
    SCOPED_TRACE(start_at_first);
    m_store = test::InMemoryStateStore{};
    m_config.start_commit = start_at_first ? m_first.hex : "";
    m_git.set_branch("main", m_changed);
    ASSERT_EQ(watcher().run(true), 0);
    m_git.set_branch("main", m_first);  // f loses b again, without a commit of its own
    ASSERT_EQ(watcher().run(true), 0);
    EXPECT_EQ(**m_store.line_head(), m_first);
    const std::size_t asked = m_source.asked().size();
    ASSERT_EQ(watcher().run(true), 0);
    EXPECT_EQ(m_source.asked().size(), asked) << "the next poll finds nothing to do";
    EXPECT_EQ(**m_store.line_head(), m_first);
  }
}

TEST_F(WatcherTest, ACommitThatCannotBeProcessedIsRecordedTheRestGoesOnAndTheRunSaysSo) {
  m_config.start_commit.clear();
  ObjectId docs_only = m_git.commit({{"other.txt", "x"}}, "unreadable");
  ObjectId last = add("last", {"a", "b"}, {"x"});
  m_source.fail(docs_only.hex, Error(ErrorCode::git, "object missing"));
  EXPECT_NE(watcher().replay({m_first.hex, m_changed.hex, docs_only.hex, last.hex}), 0);
  EXPECT_EQ((*m_store.commit_status(docs_only))->outcome, CommitOutcome::failed);
  EXPECT_TRUE(*m_store.commit_status(last)) << "the commit after it was processed";
  EXPECT_EQ(watcher().replay({m_first.hex, m_changed.hex, last.hex}), 0) << "a run without one says all went";
}

TEST_F(WatcherTest, ReplayCountsTheRevisionsThatDoNotResolve) {
  ASSERT_TRUE(m_mirror.fetch());
  EXPECT_EQ(watcher().replay({m_first.hex, "no-such-branch", m_changed.hex}), 1);
  EXPECT_EQ(*m_store.commit_count(), 2);
}

TEST_F(WatcherTest, OnceStoppedBeforeItStartedSaysItWasInterrupted) {
  m_control.request_stop();
  EXPECT_EQ(watcher().run(true), k_exit_interrupted);
  EXPECT_EQ(*m_store.commit_count(), 0);
}

// A stop request lets the commit in progress finish; --once then exits with k_exit_interrupted,
// and the next run resumes where it stopped.
class StopAfterFirst final : public SignatureSource {
 public:
  StopAfterFirst(SignatureSource& inner, test::FakeControl& control) : m_inner(inner), m_control(control) {}
  Result<std::vector<SignatureState>> extract(const ObjectId& commit,
                                              const std::vector<MonitoredFunction>& functions) override {
    m_control.request_stop();
    return m_inner.extract(commit, functions);
  }

 private:
  SignatureSource& m_inner;
  test::FakeControl& m_control;
};

TEST_F(WatcherTest, OnceCutShortBetweenCommitsExitsInterruptedAndTheNextRunResumes) {
  StopAfterFirst stopping(m_source, m_control);
  CommitProcessor processor(m_config.functions_to_monitor, m_mirror, stopping, m_store, m_events, *m_log,
                            m_clock);
  Watcher cut(m_config,
              WatcherDeps{m_mirror, processor, m_store, *m_log, m_clock, m_control, m_progress, [] {}});
  EXPECT_EQ(cut.run(true), k_exit_interrupted);
  EXPECT_TRUE(cut.interrupted());
  EXPECT_EQ(*m_store.commit_count(), 1) << "the start commit, in progress when the stop came, and no more";
  m_control = test::FakeControl{};
  EXPECT_EQ(watcher().run(true), 0);
  EXPECT_EQ(*m_store.commit_count(), 3);
  EXPECT_EQ(history(), (std::set<Seen>{{m_changed.hex, "pkg.f", "parameter_added"}}));
}

TEST_F(WatcherTest, ADaemonStoppedByRequestExitsZero) {
  m_clock.on_sleep([this](std::size_t) { m_control.request_stop(); });
  EXPECT_EQ(watcher().run(false), 0);
  EXPECT_EQ(*m_store.commit_count(), 3);
}

TEST_F(WatcherTest, AReplayCutShortSaysSo) {
  m_config.start_commit.clear();
  StopAfterFirst stopping(m_source, m_control);
  CommitProcessor processor(m_config.functions_to_monitor, m_mirror, stopping, m_store, m_events, *m_log,
                            m_clock);
  Watcher cut(m_config,
              WatcherDeps{m_mirror, processor, m_store, *m_log, m_clock, m_control, m_progress, [] {}});
  EXPECT_EQ(cut.replay({m_first.hex, m_changed.hex}), 0);
  EXPECT_TRUE(cut.interrupted());
  EXPECT_EQ(*m_store.commit_count(), 1);
  m_control = test::FakeControl{};
  auto whole = watcher();
  EXPECT_EQ(whole.replay({m_first.hex, m_changed.hex}), 0);
  EXPECT_FALSE(whole.interrupted());
}

// What the store says of the replay each time a commit is extracted.
class ReplayNotes final : public SignatureSource {
 public:
  ReplayNotes(SignatureSource& inner, StateStore& store) : m_inner(inner), m_store(store) {}
  Result<std::vector<SignatureState>> extract(const ObjectId& commit,
                                              const std::vector<MonitoredFunction>& functions) override {
    seen.push_back(read_poll_status(m_store)->last_replayed_commit.value_or(""));
    return m_inner.extract(commit, functions);
  }
  std::vector<std::string> seen;

 private:
  SignatureSource& m_inner;
  StateStore& m_store;
};

TEST_F(WatcherTest, TheLastReplayedCommitIsNotedAsTheReplayGoes) {
  // A replay killed before its end still tells status, and a later watch, about where it got to.
  m_config.start_commit.clear();
  std::vector<std::string> list;
  for (std::size_t i = 0; i < k_replay_note_commits + 2; ++i) list.push_back(add("commit", {"a"}, {"x"}).hex);
  ReplayNotes noting(m_source, m_store);
  CommitProcessor processor(m_config.functions_to_monitor, m_mirror, noting, m_store, m_events, *m_log,
                            m_clock);
  Watcher replaying(m_config,
                    WatcherDeps{m_mirror, processor, m_store, *m_log, m_clock, m_control, m_progress, [] {}});
  ASSERT_EQ(replaying.replay(list), 0);
  ASSERT_EQ(noting.seen.size(), list.size());
  EXPECT_EQ(noting.seen[k_replay_note_commits - 1], "");
  EXPECT_EQ(noting.seen[k_replay_note_commits], list[k_replay_note_commits - 1]);
  EXPECT_EQ(read_poll_status(m_store)->last_replayed_commit, list.back()) << "and at the end";
}

}  // namespace
}  // namespace aaw
