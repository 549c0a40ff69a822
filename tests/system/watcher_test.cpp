// The watcher on real parts where it meets them (a libgit2 mirror of a fixture repository, the
// SQLite store, the embedded interpreter) and fakes where time and the outside world come in: a
// fake clock that never sleeps, a fake control for stop/reopen, and a mirror wrapper that makes
// the remote fail on demand.
#include "core/watch/watcher.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "core/model/function_change.hpp"
#include "extract/static/incremental_static_source.hpp"
#include "io/git/libgit2_mirror.hpp"
#include "io/sqlite/sqlite_state_store.hpp"
#include "support/fake_clock.hpp"
#include "support/fake_control.hpp"
#include "support/faulty_mirror.hpp"
#include "support/shared_python.hpp"
#include "support/synthetic_aiter.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"

namespace aaw {
namespace {

using test::SyntheticAiter;
using Planted = std::tuple<std::string, std::string, std::string>;  // commit, function, change kind

// A source that fails for one commit, as an unreadable tree would.
class FailingSource final : public SignatureSource {
 public:
  explicit FailingSource(SignatureSource& inner) : m_inner(inner) {}
  std::string fail_at;
  std::function<void(const ObjectId&)> on_extract;  // e.g. a SIGTERM arriving during an extraction
  Result<std::vector<SignatureState>> extract(const ObjectId& commit,
                                              const std::vector<MonitoredFunction>& functions) override {
    if (on_extract) on_extract(commit);
    if (commit.hex == fail_at)
      return Error(ErrorCode::not_found, "object " + fail_at + " is missing from the mirror");
    return m_inner.extract(commit, functions);
  }

 private:
  SignatureSource& m_inner;
};

class WatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_commits = SyntheticAiter::build(m_repo);
    m_config.repository_url = m_repo.path().string();
    m_config.functions_to_monitor = SyntheticAiter::functions();
    m_config.check_interval_seconds = 60;
    m_config.start_commit = m_commits.base;
    open();
  }

  void open() {
    auto mirror = open_mirror(m_config.repository_url, m_dir.path() / "mirrors", m_mirror_options);
    ASSERT_TRUE(mirror) << mirror.error().message();
    m_real_mirror = std::move(*mirror);
    m_mirror = std::make_unique<test::FaultyMirror>(*m_real_mirror);
    auto store = open_state_store(m_dir.path() / "state.db", m_config.repository_url);
    ASSERT_TRUE(store) << store.error().message();
    m_store = std::move(*store);
    auto events = EventLog::open(m_dir.path() / "events.jsonl");
    ASSERT_TRUE(events);
    m_events = std::make_unique<EventLog>(std::move(*events));
    LogConfig log_config;
    log_config.file = (m_dir.path() / "watcher.log").string();
    m_log = *make_logger(log_config, ConsoleStream::none);
    m_extractor = std::make_unique<StaticExtractor>(test::shared_python());
    m_static = std::make_unique<IncrementalStaticSource>(*m_mirror, *m_extractor);
    m_source = std::make_unique<FailingSource>(*m_static);
    m_progress = std::make_unique<Progress>(m_clock, *m_log, nullptr);
    m_processor = std::make_unique<CommitProcessor>(m_config.functions_to_monitor, *m_mirror, *m_source,
                                                    *m_store, *m_events, *m_log, m_clock, m_targets);
    m_watcher =
        std::make_unique<Watcher>(m_config, WatcherDeps{*m_mirror, *m_processor, *m_store, *m_log, m_clock,
                                                        m_control, *m_progress, [this] { ++m_reopened; }});
  }

  std::set<Planted> history() {
    auto changes = m_store->history(std::nullopt);
    EXPECT_TRUE(changes);
    std::set<Planted> out;
    for (const Json& c : *changes)
      for (const Json& change : c["changes"]) out.emplace(c["commit"], c["function_path"], change["kind"]);
    return out;
  }
  std::int64_t commit_count() { return *m_store->commit_count(); }

  // Rewrites main from `inserted` on: one commit where gemm_a8w8_CK's splitK loses Optional[int].
  std::string force_push_divergent_commit() {
    m_repo.git({"reset", "--hard", m_commits.inserted});
    m_repo.write_file("aiter/ops/gemm_op_a8w8.py",
                      "__all__ = ['gemm_a8w8_CK', 'gemm_a8w8']\n"
                      "def gemm_a8w8_CK(XQ, WQ, x_scale, w_scale, Y, bias=None, splitK=None):\n    return Y\n"
                      "def gemm_a8w8(XQ, WQ, /, x_scale, dtype='bf16', **kwargs):\n    return XQ\n");
    return m_repo.commit("Divergent history");
  }

  // The changes planted along main, diffed commit after commit.
  std::set<Planted> planted_on_main() const {
    const auto& c = m_commits;
    return {{c.renamed, "rocm_aiter_asm_fmoe.moe_sorting_ck", "parameter_removed"},
            {c.renamed, "rocm_aiter_asm_fmoe.moe_sorting_ck", "parameter_added"},
            {c.inserted, "rocm_aiter_asm_fmoe.asm_moe", "parameter_added"},
            {c.inserted, "rocm_aiter_asm_fmoe.asm_moe", "parameter_moved"},
            {c.defaults, "aiter.fmoe_fp8_blockscale_g1u1", "default_changed"},
            {c.defaults, "shuffle_weight", "return_annotation_changed"},
            {c.broken, "shuffle_weight", "state_changed"},
            {c.deleted, "shuffle_weight", "state_changed"},
            {c.deleted, "legacy.old_fn", "function_removed"},
            {c.deleted, "gemm_a8w8", "kind_changed"},
            {c.compatible, "ck_moe_2stages", "parameter_added"},
            {c.compatible, "MoeRunner.run", "parameter_added"},
            {c.compatible, "aiter.rms_norm", "default_removed"}};
  }

  test::TempDir m_dir{"aaw-watcher"};
  test::GitFixture m_repo{m_dir.path() / "upstream"};
  test::SyntheticAiterCommits m_commits;
  Config m_config;
  test::FakeClock m_clock;
  test::FakeControl m_control;
  int m_reopened = 0;
  std::unique_ptr<GitMirror> m_real_mirror;
  std::unique_ptr<test::FaultyMirror> m_mirror;
  std::unique_ptr<StateStore> m_store;
  std::unique_ptr<EventLog> m_events;
  MirrorOptions m_mirror_options;
  std::shared_ptr<Logger> m_log;
  std::unique_ptr<StaticExtractor> m_extractor;
  std::unique_ptr<IncrementalStaticSource> m_static;
  std::unique_ptr<FailingSource> m_source;
  std::unique_ptr<Progress> m_progress;
  std::unique_ptr<CommitProcessor> m_processor;
  std::unique_ptr<Watcher> m_watcher;
  std::vector<NotificationTarget> m_targets;
};

TEST_F(WatcherTest, OnceProcessesEveryFirstParentCommitFromStartCommit) {
  EXPECT_EQ(m_watcher->run(true), 0);
  EXPECT_EQ(commit_count(), 8);
  EXPECT_EQ(history(), planted_on_main());
  EXPECT_EQ(m_store->line_head()->value().hex, m_commits.compatible);
}

TEST_F(WatcherTest, EventsHoldInitialSignaturesThenChanges) {
  ASSERT_EQ(m_watcher->run(true), 0);
  auto events = m_store->events_after(0);
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), 10u + 11u);  // one change event per function and commit
  EXPECT_EQ((*events)[0].event["type"], "initial");
  EXPECT_TRUE((*events)[0].event["old"].is_null());
  EXPECT_EQ((*events)[0].event["commit"], m_commits.base);
  EXPECT_EQ((*events)[10].event["type"], "change");
  EXPECT_EQ((*events)[10].event["commit"], m_commits.renamed);
  EXPECT_EQ(m_events->last_id(), events->back().id);
}

TEST_F(WatcherTest, FirstStartWithoutStartCommitRecordsOnlyTheHead) {
  m_config.start_commit.clear();
  EXPECT_EQ(m_watcher->run(true), 0);
  EXPECT_EQ(commit_count(), 1);
  EXPECT_TRUE(history().empty());
  EXPECT_EQ(m_store->events_after(0)->size(), 10u);
}

TEST_F(WatcherTest, UnmovedHeadNeedsNoFetch) {
  ASSERT_EQ(m_watcher->run(true), 0);
  int fetches = m_mirror->fetches();
  ASSERT_EQ(m_watcher->run(true), 0);
  EXPECT_EQ(m_mirror->fetches(), fetches);
  EXPECT_EQ(commit_count(), 8);
}

TEST_F(WatcherTest, NewCommitIsFetchedAndDiffedAgainstItsParent) {
  ASSERT_EQ(m_watcher->run(true), 0);
  m_repo.write_file("aiter/ops/shuffle.py", "def shuffle_weight(x, layout=(32, 32)):\n    return x\n");
  std::string sha = m_repo.commit("Bigger layout");
  ASSERT_EQ(m_watcher->run(true), 0);
  EXPECT_EQ(commit_count(), 9);
  std::set<Planted> expected = planted_on_main();
  for (const char* kind :
       {"parameter_removed", "annotation_changed", "default_changed", "return_annotation_changed"})
    expected.emplace(sha, "shuffle_weight", kind);
  // use_int4 removed, x lost its annotation, layout's default changed, no return annotation.
  EXPECT_EQ(history(), expected);
}

TEST_F(WatcherTest, UnreachableRemoteBacksOffExponentiallyCappedAtInterval) {
  m_mirror->fail_remote(6);
  m_clock.on_sleep([this](std::size_t sleeps) {
    if (sleeps == 8) m_control.request_stop();
  });
  EXPECT_EQ(m_watcher->run(false), 0);
  using std::chrono::seconds;
  std::vector<Duration> expected = {seconds(5),  seconds(10), seconds(20), seconds(40),
                                    seconds(60), seconds(60), seconds(60), seconds(60)};
  EXPECT_EQ(m_clock.sleeps(), expected);
  EXPECT_EQ(commit_count(), 8) << "recovered after the outage";
  EXPECT_EQ(*m_store->value("last_poll_result"), std::optional<std::string>("ok"));
}

TEST_F(WatcherTest, OnceWithUnreachableRemoteFails) {
  m_mirror->fail_remote(1);
  EXPECT_EQ(m_watcher->run(true), 2);
  EXPECT_EQ(commit_count(), 0);
  auto result = m_store->value("last_poll_result");
  ASSERT_TRUE(result && *result);
  EXPECT_NE((*result)->find("injected failure"), std::string::npos);
}

TEST_F(WatcherTest, AMisspeltBranchIsAnErrorNamingTheBranchesNotAnOutage) {
  m_config.branch = "mian";
  EXPECT_EQ(m_watcher->run(false), 2) << "no retry mends a misspelt branch";
  EXPECT_TRUE(m_clock.sleeps().empty());
  EXPECT_EQ(commit_count(), 0);
  auto result = m_store->value("last_poll_result");
  ASSERT_TRUE(result && *result);
  EXPECT_NE((*result)->find("branch 'mian' not found on"), std::string::npos) << **result;
  EXPECT_NE((*result)->find("its branches are: 'feature', 'main' (did you mean 'main'?)"), std::string::npos)
      << **result;
}

TEST_F(WatcherTest, AnUnknownStartCommitIsAnErrorNotAnOutage) {
  m_config.start_commit = "0123abcd";
  EXPECT_EQ(m_watcher->run(false), 2);
  EXPECT_TRUE(m_clock.sleeps().empty());
  auto result = m_store->value("last_poll_result");
  ASSERT_TRUE(result && *result);
  EXPECT_NE((*result)->find("start_commit '0123abcd': unknown commit, branch or tag '0123abcd'"),
            std::string::npos)
      << **result;
}

TEST_F(WatcherTest, ABranchThatVanishesLaterIsWaitedOutLikeAnOutage) {
  m_clock.on_sleep([this](std::size_t sleeps) {
    if (sleeps == 1) m_config.branch = "gone";
    if (sleeps == 3) m_control.request_stop();
  });
  EXPECT_EQ(m_watcher->run(false), 0) << "the daemon stays up";
  EXPECT_EQ(commit_count(), 8);
}

TEST_F(WatcherTest, MonitoringAfterAReplayGoesOnFromTheLastReplayedCommit) {
  m_config.start_commit.clear();
  ASSERT_EQ(m_watcher->replay({m_commits.base, m_commits.renamed}), 0);
  ASSERT_EQ(m_watcher->run(true), 0);
  EXPECT_EQ(commit_count(), 7) << "base, renamed, then every commit after renamed up to the head";
  EXPECT_EQ(history(), planted_on_main()) << "nothing between the replay and the head is lost";
  EXPECT_EQ(m_store->line_head()->value().hex, m_commits.compatible);
}

TEST_F(WatcherTest, MonitoringAfterReplayingTheHeadMakesItTheLineHead) {
  m_config.start_commit.clear();
  ASSERT_EQ(m_watcher->replay({m_commits.base, m_commits.compatible}), 0);
  ASSERT_EQ(m_watcher->run(true), 0);
  EXPECT_EQ(commit_count(), 2);
  EXPECT_EQ(m_store->line_head()->value().hex, m_commits.compatible);
}

TEST_F(WatcherTest, AFunctionAddedToTheConfigIsBackFilledOverWhatWasProcessedAtStartUp) {
  auto all = SyntheticAiter::functions();
  m_config.functions_to_monitor.assign(all.begin(), all.end() - 2);
  open();
  ASSERT_EQ(m_watcher->run(true), 0);
  m_config.functions_to_monitor = all;
  open();
  ASSERT_EQ(m_watcher->run(true), 0);
  auto states = m_store->states_at(ObjectId{m_commits.compatible});
  ASSERT_TRUE(states);
  ASSERT_EQ(states->size(), all.size());
  EXPECT_EQ((*states)[8].function, all[8]);
  EXPECT_EQ((*states)[8].state.status, Status::ok) << "gemm_a8w8 is there at the head";
  EXPECT_EQ((*states)[9].state.status, Status::missing) << "legacy.old_fn was deleted before it";
  // Its deletion is recorded at the commit that deleted it, not where the function was added.
  auto removed = *m_store->history(all[9].function_path);
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0]["commit"], m_commits.deleted);
  EXPECT_EQ(removed[0]["backfilled"], true);
  std::size_t initial = 0;
  const std::vector<StoredEvent> events = *m_store->events_after(0);
  for (const StoredEvent& e : events)
    if (e.event["type"] == "initial" && e.event["function_path"] == all[9].function_path) {
      ++initial;
      EXPECT_EQ(e.event["backfilled"], true);
      EXPECT_NE(e.event["commit"], m_commits.compatible) << "from the first processed commit on";
    }
  EXPECT_EQ(initial, 1u);
  EXPECT_EQ(commit_count(), 8) << "no commit added twice";
}

// The history_rewritten events recorded, oldest first.
std::vector<Json> rewrites(StateStore& store) {
  std::vector<Json> out;
  const std::vector<StoredEvent> events = *store.events_after(0);
  for (const StoredEvent& e : events)
    if (e.event["type"] == "history_rewritten") out.push_back(e.event);
  return out;
}

std::set<std::string> rewound_paths(const Json& rewrite) {
  std::set<std::string> paths;
  for (const Json& f : rewrite["functions"]) paths.insert(f["function_path"].get<std::string>());
  return paths;
}

TEST_F(WatcherTest, ForcePushBlamesTheNewCommitForItsOwnChangeAndRecordsTheRestAsARewrite) {
  ASSERT_EQ(m_watcher->run(true), 0);
  const std::set<Planted> before = history();
  std::string rewritten = force_push_divergent_commit();
  ASSERT_EQ(m_watcher->run(true), 0);
  std::set<Planted> found = history();
  // Its own change only: splitK lost Optional[int] (diffed against its parent, the merge base).
  std::set<Planted> added;
  for (const Planted& p : found)
    if (!before.count(p)) added.insert(p);
  EXPECT_EQ(added, (std::set<Planted>{{rewritten, "gemm_a8w8_CK", "annotation_changed"}}));
  // What the four abandoned commits had changed went back, said once.
  const std::vector<Json> events = rewrites(*m_store);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["old_head"], m_commits.compatible);
  EXPECT_EQ(events[0]["new_head"], rewritten);
  EXPECT_EQ(events[0]["merge_base"], m_commits.inserted);
  EXPECT_EQ(events[0]["abandoned_commits"], 4);
  EXPECT_TRUE(events[0].contains("time"));
  const std::set<std::string> paths = rewound_paths(events[0]);
  for (const char* path :
       {"aiter.fmoe_fp8_blockscale_g1u1", "legacy.old_fn", "ck_moe_2stages", "shuffle_weight"})
    EXPECT_TRUE(paths.count(path)) << path << " did not go back";
  EXPECT_FALSE(paths.count("gemm_a8w8_CK")) << "the abandoned commits did not change it";
  EXPECT_EQ(m_store->line_head()->value().hex, rewritten);
  // In events.jsonl too.
  EXPECT_NE(test::read_text(m_dir.path() / "events.jsonl").find("\"history_rewritten\""), std::string::npos);
}

TEST_F(WatcherTest, ForcePushNotifiesEachFunctionItTookBackApartFromTheNewCommitsOwnChanges) {
  m_targets = {{"hook", Severity::annotation, false}, {"breaks-only", Severity::breaking, false}};
  open();
  ASSERT_EQ(m_watcher->run(true), 0);
  auto first = m_store->due_notifications(m_clock.now() + std::chrono::hours(1), 1000);
  ASSERT_TRUE(first) << first.error().message();
  for (const OutboxItem& item : *first) {  // delivered: only what the force-push brings is left
    OutboxItem done = item;
    done.state = OutboxState::delivered;
    ASSERT_TRUE(m_store->update_notification(done));
  }
  std::string rewritten = force_push_divergent_commit();
  ASSERT_EQ(m_watcher->run(true), 0);
  auto due = m_store->due_notifications(m_clock.now() + std::chrono::hours(1), 1000);
  ASSERT_TRUE(due) << due.error().message();
  const Json event = rewrites(*m_store).at(0);
  std::multiset<std::string> notified;  // "target path kind"
  for (const OutboxItem& item : *due) {
    const bool rewrite = item.payload.value("type", std::string()) == "history_rewritten";
    notified.insert(item.target + " " + item.payload["function_path"].get<std::string>() +
                    (rewrite ? " rewrite" : " change"));
    if (!rewrite) continue;
    EXPECT_EQ(item.payload["old_head"], m_commits.compatible);
    EXPECT_EQ(item.payload["new_head"], rewritten);
    EXPECT_EQ(item.payload["merge_base"], m_commits.inserted);
    EXPECT_FALSE(item.payload.contains("commit")) << "no commit made it";
  }
  // Every function the event lists, for the target that takes every severity; the breaking ones
  // only for the other; and the new commit's own change, an annotation, for the first only.
  std::multiset<std::string> expected{"hook gemm_a8w8_CK change"};
  for (const Json& f : event["functions"]) {
    const std::string path = f["function_path"];
    expected.insert("hook " + path + " rewrite");
    if (f["severity"] == "breaking") expected.insert("breaks-only " + path + " rewrite");
  }
  EXPECT_EQ(notified, expected);
  EXPECT_GE(event["functions"].size(), 4u);
}

// With a repack after every poll: what the force-push abandoned is dropped from the mirror only
// once the poll that saw the rewrite is done with the old head.
TEST_F(WatcherTest, ForcePushWithTheMirrorRepackedAfterEveryPollRecordsTheSameRewrite) {
  m_mirror_options.repack_after_packs = 0;
  open();
  ASSERT_EQ(m_watcher->run(true), 0);
  std::string rewritten = force_push_divergent_commit();
  ASSERT_EQ(m_watcher->run(true), 0);
  const std::vector<Json> events = rewrites(*m_store);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["merge_base"], m_commits.inserted);
  EXPECT_TRUE(history().count({rewritten, "gemm_a8w8_CK", "annotation_changed"}));
  EXPECT_EQ(m_store->line_head()->value().hex, rewritten);
  EXPECT_NE(test::read_text(m_dir.path() / "watcher.log").find("Repacked the mirror"), std::string::npos);
}

TEST_F(WatcherTest, ForcePushBackToTheOriginalLineRecordsTheDivergentChangeGoneBack) {
  ASSERT_EQ(m_watcher->run(true), 0);
  std::string divergent = force_push_divergent_commit();
  ASSERT_EQ(m_watcher->run(true), 0);
  m_repo.git({"reset", "--hard", m_commits.compatible});  // back to the original line
  ASSERT_EQ(m_watcher->run(true), 0);
  std::set<Planted> found = history();
  EXPECT_TRUE(found.count({divergent, "gemm_a8w8_CK", "annotation_changed"}));
  // The divergent commit went back; the original line's commits are blamed for their own changes
  // only, none for undoing it.
  EXPECT_FALSE(found.count({m_commits.defaults, "gemm_a8w8_CK", "annotation_changed"}));
  const std::vector<Json> events = rewrites(*m_store);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1]["old_head"], divergent);
  EXPECT_EQ(events[1]["merge_base"], m_commits.inserted);
  EXPECT_EQ(rewound_paths(events[1]), std::set<std::string>{"gemm_a8w8_CK"});
  EXPECT_EQ(m_store->line_head()->value().hex, m_commits.compatible);
  auto at_head = m_store->states_at(ObjectId{m_commits.compatible});
  ASSERT_TRUE(at_head);
  for (const FunctionState& s : *at_head) {
    if (s.function.function_path == "gemm_a8w8_CK") {
      EXPECT_NE(s.state.summary().find("Optional[int]"), std::string::npos) << s.state.summary();
    }
  }
}

TEST_F(WatcherTest, UnreadableCommitIsRecordedAndTheNextDiffedAgainstTheLastGood) {
  m_source->fail_at = m_commits.inserted;
  ASSERT_EQ(m_watcher->run(true), 2) << "--once processed everything else, and says one commit was not";
  auto status = m_store->commit_status(ObjectId{m_commits.inserted});
  ASSERT_TRUE(status && *status);
  EXPECT_EQ((*status)->outcome, CommitOutcome::failed);
  EXPECT_NE((*status)->error.find("is missing from the mirror"), std::string::npos);
  std::set<Planted> expected = planted_on_main();
  // asm_moe's change is attributed to the next commit that could be read.
  for (auto it = expected.begin(); it != expected.end();) {
    if (std::get<0>(*it) == m_commits.inserted) {
      expected.emplace(m_commits.defaults, std::get<1>(*it), std::get<2>(*it));
      it = expected.erase(it);
    } else {
      ++it;
    }
  }
  EXPECT_EQ(history(), expected);
}

TEST_F(WatcherTest, ReplayDiffsEachCommitAgainstThePreviousOneAndNamesUnknownOnes) {
  EXPECT_EQ(m_watcher->replay({m_commits.base, "0123abcd", m_commits.renamed, "feature"}), 1);
  EXPECT_EQ(commit_count(), 3);
  std::set<Planted> expected = {
      {m_commits.renamed, "rocm_aiter_asm_fmoe.moe_sorting_ck", "parameter_removed"},
      {m_commits.renamed, "rocm_aiter_asm_fmoe.moe_sorting_ck", "parameter_added"}};
  std::set<Planted> got = history();
  for (const Planted& p : expected) EXPECT_TRUE(got.count(p)) << std::get<1>(p) << " " << std::get<2>(p);
  EXPECT_TRUE(got.count({m_commits.feature, "gemm_a8w8_CK", "default_removed"}));
  EXPECT_FALSE(m_store->line_head()->has_value()) << "replay does not move the monitored line";
}

TEST_F(WatcherTest, ReplayResumesWithoutDuplicates) {
  std::vector<std::string> list = {m_commits.base, m_commits.renamed, m_commits.deleted};
  ASSERT_EQ(m_watcher->replay(list), 0);
  auto events = m_store->events_after(0)->size();
  auto changes = history();
  ASSERT_EQ(m_watcher->replay(list), 0);
  EXPECT_EQ(commit_count(), 3);
  EXPECT_EQ(m_store->events_after(0)->size(), events);
  EXPECT_EQ(history(), changes);
}

TEST_F(WatcherTest, CommitReplayedEarlierStillBecomesTheLineHead) {
  ASSERT_EQ(m_watcher->replay({m_commits.compatible}), 0);
  ASSERT_EQ(m_watcher->run(true), 0);
  EXPECT_EQ(m_store->line_head()->value().hex, m_commits.compatible) << "not the commit before it";
  std::size_t resolved = m_static->work().resolved + m_static->work().reused;
  ASSERT_EQ(m_watcher->run(true), 0);
  EXPECT_EQ(m_static->work().resolved + m_static->work().reused, resolved) << "nothing left to process";
}

TEST_F(WatcherTest, ReopenRequestReopensLogsBetweenPolls) {
  m_clock.on_sleep([this](std::size_t sleeps) {
    if (sleeps == 1) m_control.request_reopen();
    if (sleeps == 2) m_control.request_stop();
  });
  EXPECT_EQ(m_watcher->run(false), 0);
  EXPECT_EQ(m_reopened, 1);
}

TEST_F(WatcherTest, AfterPollRunsAfterEveryPollOnceRecordedFailedOrNot) {
  std::vector<std::string> results;  // the poll result the hook sees, poll after poll
  WatcherDeps deps{*m_mirror, *m_processor, *m_store, *m_log, m_clock, m_control, *m_progress, {}};
  deps.after_poll = [&] { results.push_back(m_store->value("last_poll_result")->value_or("none")); };
  Watcher watcher(m_config, deps);
  m_mirror->fail_remote(1);
  m_clock.on_sleep([this](std::size_t sleeps) {
    if (sleeps == 2) m_control.request_stop();
  });
  EXPECT_EQ(watcher.run(false), 0);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_NE(results[0].find("injected failure"), std::string::npos) << results[0];
  EXPECT_EQ(results[1], "ok");
}

TEST_F(WatcherTest, AfterPollRunsBeforeOnceReturns) {
  int calls = 0;
  WatcherDeps deps{*m_mirror, *m_processor, *m_store, *m_log, m_clock, m_control, *m_progress, {}};
  deps.after_poll = [&] { calls += commit_count() == 8 ? 1 : 100; };
  EXPECT_EQ(Watcher(m_config, deps).run(true), 0);
  EXPECT_EQ(calls, 1) << "once, after the commits were recorded";
}

// A replay records its commits in batches; a stop in the middle of one keeps every commit
// processed before it, with its events in events.jsonl, and the next start goes on from there.
TEST_F(WatcherTest, AStopInTheMiddleOfABatchKeepsWhatWasProcessed) {
  m_source->on_extract = [this](const ObjectId& commit) {
    if (commit.hex == m_commits.defaults) m_control.request_stop();
  };
  EXPECT_EQ(m_watcher->run(false), 0);
  auto reader = open_state_store(m_dir.path() / "state.db", m_config.repository_url);
  ASSERT_TRUE(reader);
  EXPECT_EQ(*(*reader)->commit_count(), 5) << "base to defaults, the one extracted when the stop came";
  EXPECT_EQ((*reader)->line_head()->value().hex, m_commits.defaults);
  auto events = (*reader)->events_after(0);
  ASSERT_TRUE(events);
  EXPECT_EQ(m_events->last_id(), events->back().id);

  m_source->on_extract = nullptr;
  m_control = test::FakeControl();
  open();
  EXPECT_EQ(m_watcher->run(true), 0);
  EXPECT_EQ(commit_count(), 8);
  EXPECT_EQ(history(), planted_on_main());
}

TEST_F(WatcherTest, StopRequestBeforeStartProcessesNothing) {
  m_control.request_stop();
  EXPECT_EQ(m_watcher->run(false), 0);
  EXPECT_EQ(commit_count(), 0);
}

// A source that costs a "build" per commit, as the runtime extractor does: the watcher bisects a
// long pending range instead of building every commit. States come from a table by commit.
class CountingSource final : public SignatureSource {
 public:
  std::map<std::string, SignatureState> state_by_commit;
  std::vector<std::string> built;
  std::function<void()> on_build;  // e.g. a SIGTERM arriving during a build
  Result<std::vector<SignatureState>> extract(const ObjectId& commit,
                                              const std::vector<MonitoredFunction>&) override {
    built.push_back(commit.hex);
    if (on_build) on_build();
    if (stop && stop->stop_requested()) return Error(ErrorCode::cancelled, "build cancelled");
    return std::vector<SignatureState>{state_by_commit.at(commit.hex)};
  }
  bool builds_each_commit() const override { return builds; }
  const Control* stop = nullptr;
  bool builds = true;  // as a runtime source
};

class WatcherBisectTest : public ::testing::Test {
 protected:
  // A base commit and 64 pending ones, made once for the suite (65 git commits take seconds).
  static void SetUpTestSuite() {
    s_dir = std::make_unique<test::TempDir>("aaw-bisect-repo");
    s_repo = std::make_unique<test::GitFixture>(s_dir->path() / "upstream");
    for (int i = 0; i <= 64; ++i) {
      s_repo->write_file("n.txt", std::to_string(i));
      s_commits.push_back(s_repo->commit("commit " + std::to_string(i)));
    }
  }
  static void TearDownTestSuite() {
    s_repo.reset();
    s_dir.reset();
    s_commits.clear();
  }

  // Commit 37 of the pending ones adds a parameter.
  void SetUp() override {
    Signature before, after;
    before.parameters = {{"a", ParameterKind::positional_or_keyword, std::nullopt, std::nullopt}};
    after.parameters = before.parameters;
    after.parameters.push_back({"b", ParameterKind::positional_or_keyword, "1", std::nullopt});
    for (int i = 0; i <= 64; ++i)
      m_source.state_by_commit[s_commits[i]] = SignatureState::ok(i < 37 ? before : after);
    m_config.repository_url = s_repo->path().string();
    m_config.functions_to_monitor = {{"import pkg", "pkg.f"}};
    m_config.start_commit = s_commits[0];
    m_mirror = std::move(*open_mirror(m_config.repository_url, m_dir.path() / "mirrors", {}));
    m_store = std::move(*open_state_store(m_dir.path() / "state.db", m_config.repository_url));
    m_events = std::make_unique<EventLog>(std::move(*EventLog::open(m_dir.path() / "events.jsonl")));
    m_log = null_logger();
  }

  int run() {
    Progress progress(m_clock, *m_log, nullptr);
    CommitProcessor processor(m_config.functions_to_monitor, *m_mirror, m_source, *m_store, *m_events, *m_log,
                              m_clock);
    Watcher watcher(m_config,
                    WatcherDeps{*m_mirror, processor, *m_store, *m_log, m_clock, m_control, progress, {}});
    return watcher.run(true);
  }

  static inline std::unique_ptr<test::TempDir> s_dir;
  static inline std::unique_ptr<test::GitFixture> s_repo;
  static inline std::vector<std::string> s_commits;
  const std::vector<std::string>& m_commits = s_commits;
  test::TempDir m_dir{"aaw-bisect"};
  CountingSource m_source;
  Config m_config;
  test::FakeClock m_clock;
  test::FakeControl m_control;
  std::unique_ptr<GitMirror> m_mirror;
  std::unique_ptr<StateStore> m_store;
  std::unique_ptr<EventLog> m_events;
  std::shared_ptr<Logger> m_log;
};

TEST_F(WatcherBisectTest, AttributesTheChangeToItsCommitWithFewBuilds) {
  ASSERT_EQ(run(), 0);

  auto changes = m_store->history(std::nullopt);
  ASSERT_TRUE(changes);
  ASSERT_EQ(changes->size(), 1u);
  EXPECT_EQ((*changes)[0]["commit"], m_commits[37]);
  EXPECT_EQ((*changes)[0]["changes"][0]["kind"], "parameter_added");
  EXPECT_LE(m_source.built.size(), 1u + 8u) << "the start commit, then at most 8 builds for 64 commits";
  EXPECT_EQ(*m_store->commit_count(), 65);
  EXPECT_EQ(m_store->line_head()->value().hex, m_commits[64]);
  auto inferred = m_store->states_at(ObjectId{m_commits[20]});
  ASSERT_TRUE(inferred);
  ASSERT_EQ(inferred->size(), 1u);
  EXPECT_EQ((*inferred)[0].state, m_source.state_by_commit[m_commits[20]]);
}

TEST_F(WatcherBisectTest, StopDuringABuildRecordsNothingOfTheRangeAndSaysItWasInterrupted) {
  m_source.stop = &m_control;
  m_source.on_build = [this] {
    if (m_source.built.size() == 3) m_control.request_stop();
  };
  EXPECT_EQ(run(), k_exit_interrupted) << "--once cut short: never 0";
  EXPECT_EQ(*m_store->commit_count(), 1) << "only the start commit; the range is redone on restart";
  EXPECT_EQ(m_store->line_head()->value().hex, m_commits[0]);
}

TEST_F(WatcherBisectTest, StaticExtractionBuildsEveryCommit) {
  m_source.builds = false;  // as the static source
  ASSERT_EQ(run(), 0);
  EXPECT_EQ(m_source.built.size(), 65u);
  EXPECT_EQ((*m_store->history(std::nullopt))[0]["commit"], m_commits[37]);
}

TEST_F(WatcherBisectTest, DisabledBisectBuildsEveryCommit) {
  m_config.runtime.bisect = false;
  ASSERT_EQ(run(), 0);
  EXPECT_EQ(m_source.built.size(), 65u);
}

}  // namespace
}  // namespace aaw
