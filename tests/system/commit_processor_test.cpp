// The commit processor's choice of notifications, on real parts: the synthetic aiter history in a
// libgit2 mirror, the embedded interpreter and the SQLite store.
#include "core/watch/commit_processor.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "extract/consumer/python_call_binder.hpp"
#include "extract/static/incremental_static_source.hpp"
#include "extract/static/static_extractor.hpp"
#include "io/git/libgit2_mirror.hpp"
#include "io/sqlite/sqlite_state_store.hpp"
#include "notify/github_issue_channel.hpp"
#include "notify/webhook_channel.hpp"
#include "support/fake_call_binder.hpp"
#include "support/fake_clock.hpp"
#include "support/fake_signature_source.hpp"
#include "support/shared_python.hpp"
#include "support/synthetic_aiter.hpp"
#include "support/temp_dir.hpp"

namespace aaw {
namespace {

using test::SyntheticAiter;
using Key = std::pair<std::string, std::string>;  // commit, function

class CommitProcessorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_commits = SyntheticAiter::build(m_repo);
    auto mirror = open_mirror(m_repo.path().string(), m_dir.path() / "mirrors", {});
    ASSERT_TRUE(mirror) << mirror.error().message();
    m_mirror = std::move(*mirror);
    auto store = open_state_store(m_dir.path() / "state.db", m_repo.path().string());
    ASSERT_TRUE(store) << store.error().message();
    m_store = std::move(*store);
    auto events = EventLog::open(m_dir.path() / "events.jsonl");
    ASSERT_TRUE(events);
    m_events = std::make_unique<EventLog>(std::move(*events));
    m_extractor = std::make_unique<StaticExtractor>(test::shared_python());
    m_source = std::make_unique<IncrementalStaticSource>(*m_mirror, *m_extractor);
  }

  // Processes main from base to compatible, each commit against the one before.
  void process_main(const std::vector<NotificationTarget>& targets, ImpactAssessor* consumer = nullptr) {
    CommitProcessor processor(SyntheticAiter::functions(), *m_mirror, *m_source, *m_store, *m_events, *m_log,
                              m_clock, targets);
    processor.use_consumer(consumer);
    const auto& c = m_commits;
    std::optional<ObjectId> previous;
    for (const std::string& sha :
         {c.base, c.reformatted, c.renamed, c.inserted, c.defaults, c.broken, c.deleted, c.compatible}) {
      auto done = processor.process(ObjectId{sha}, previous, true, "Checking");
      ASSERT_TRUE(done) << done.error().message();
      previous = ObjectId{sha};
    }
  }

  // (commit, function) of every queued notification, by target.
  std::map<std::string, std::set<Key>> queued() {
    auto items = m_store->due_notifications(TimePoint::max(), 1000);
    EXPECT_TRUE(items);
    std::map<std::string, std::set<Key>> out;
    for (const OutboxItem& item : *items)
      out[item.target].emplace(item.payload["commit"], item.payload["function_path"]);
    return out;
  }

  test::TempDir m_dir{"aaw-processor"};
  test::GitFixture m_repo{m_dir.path() / "upstream"};
  test::SyntheticAiterCommits m_commits;
  test::FakeClock m_clock;
  std::shared_ptr<Logger> m_log = null_logger();
  std::unique_ptr<GitMirror> m_mirror;
  std::unique_ptr<StateStore> m_store;
  std::unique_ptr<EventLog> m_events;
  std::unique_ptr<StaticExtractor> m_extractor;
  std::unique_ptr<IncrementalStaticSource> m_source;
};

TEST_F(CommitProcessorTest, QueuesEachChangeForEveryTargetItReachesInSeverity) {
  process_main({{std::string(k_target_github_issue), Severity::breaking},
                {std::string(k_target_webhook), Severity::compatible}});
  const auto& c = m_commits;
  auto by_target = queued();
  std::set<Key> breaking = {{c.renamed, "rocm_aiter_asm_fmoe.moe_sorting_ck"},
                            {c.inserted, "rocm_aiter_asm_fmoe.asm_moe"},
                            {c.deleted, "legacy.old_fn"},
                            {c.deleted, "gemm_a8w8"},
                            {c.compatible, "aiter.rms_norm"}};
  EXPECT_EQ(by_target[std::string(k_target_github_issue)], breaking);
  std::set<Key> webhook = breaking;
  webhook.insert({{c.defaults, "aiter.fmoe_fp8_blockscale_g1u1"},  // behavioural
                  {c.broken, "shuffle_weight"},                    // unknown
                  {c.deleted, "shuffle_weight"},                   // unknown
                  {c.compatible, "ck_moe_2stages"},                // compatible
                  {c.compatible, "MoeRunner.run"}});               // compatible
  EXPECT_EQ(by_target[std::string(k_target_webhook)], webhook)
      << "all but the annotation-only change of shuffle_weight at 'defaults'";
}

TEST_F(CommitProcessorTest, NotificationCarriesTheRecordedChange) {
  process_main({{std::string(k_target_webhook), Severity::annotation}});
  auto changes = m_store->history(std::nullopt);
  ASSERT_TRUE(changes);
  auto items = m_store->due_notifications(TimePoint::max(), 1000);
  ASSERT_TRUE(items);
  ASSERT_EQ(items->size(), changes->size()) << "annotation is the lowest severity: every change";
  for (std::size_t i = 0; i < items->size(); ++i) EXPECT_EQ((*items)[i].payload, (*changes)[i]);
}

// A consumer calling gemm_a8w8(xq, wq, scale) (x_scale turns keyword-only at 'deleted') and
// aiter.rms_norm(x, w, eps) twice (its breaking change at 'compatible' keeps those calls binding).
ConsumerScan consumer_of_gemm_and_rms_norm() {
  ConsumerScan scan;
  scan.functions.push_back(
      {{"from aiter import gemm_a8w8", "gemm_a8w8"}, "aiter.gemm_a8w8", {test::site("vllm/gemm.py", 12, 3)}});
  scan.functions.push_back({{"import aiter", "aiter.rms_norm"},
                            "aiter.rms_norm",
                            {test::site("vllm/norm.py", 40, 3), test::site("vllm/norm.py", 51, 3)}});
  return scan;
}

TEST_F(CommitProcessorTest, EachChangeCarriesTheConsumerCallSitesItBreaks) {
  PythonCallBinder binder(test::shared_python());
  ImpactAssessor consumer(consumer_of_gemm_and_rms_norm(), binder);
  process_main({}, &consumer);
  auto changes = m_store->history(std::nullopt);
  ASSERT_TRUE(changes);
  std::map<std::string, Json> impact;  // by function, for the changes that carry one
  for (const Json& c : *changes)
    if (c.contains("consumer_impact")) impact[c["function_path"]] = c["consumer_impact"];
  ASSERT_EQ(impact.size(), 2u) << "only the changes of functions the consumer calls";
  EXPECT_EQ(impact["gemm_a8w8"]["breaks_consumer"], true);
  EXPECT_EQ(impact["gemm_a8w8"]["broken"][0]["file"], "vllm/gemm.py");
  EXPECT_EQ(impact["gemm_a8w8"]["broken"][0]["reason"], "too many positional arguments");
  EXPECT_EQ(impact["aiter.rms_norm"]["broken"].size(), 0u);
  EXPECT_EQ(impact["aiter.rms_norm"]["call_sites"], 2);
}

TEST_F(CommitProcessorTest, ATargetLimitedToConsumerBreaksIsToldOnlyOfThose) {
  PythonCallBinder binder(test::shared_python());
  ImpactAssessor consumer(consumer_of_gemm_and_rms_norm(), binder);
  process_main({{std::string(k_target_webhook), Severity::annotation, true},
                {std::string(k_target_github_issue), Severity::breaking, false}},
               &consumer);
  auto by_target = queued();
  EXPECT_EQ(by_target[std::string(k_target_webhook)], (std::set<Key>{{m_commits.deleted, "gemm_a8w8"}}))
      << "aiter.rms_norm's breaking change breaks no call of the consumer";
  EXPECT_EQ(by_target[std::string(k_target_github_issue)].size(), 5u) << "unlimited: every breaking change";
}

TEST_F(CommitProcessorTest, WithoutTargetsNothingIsQueued) {
  process_main({});
  EXPECT_EQ(m_store->history(std::nullopt)->size(), 11u);
  EXPECT_EQ(m_store->outbox_counts()->pending, 0);
}

TEST_F(CommitProcessorTest, ProcessingACommitAgainQueuesNothingTwice) {
  std::vector<NotificationTarget> targets = {{std::string(k_target_github_issue), Severity::breaking}};
  process_main(targets);
  CommitProcessor processor(SyntheticAiter::functions(), *m_mirror, *m_source, *m_store, *m_events, *m_log,
                            m_clock, targets);
  ASSERT_TRUE(
      processor.process(ObjectId{m_commits.renamed}, ObjectId{m_commits.reformatted}, false, "Processing"));
  EXPECT_EQ(m_store->outbox_counts()->pending, 5);
}

TEST_F(CommitProcessorTest, AFailedBuildIsLoggedOncePerCommitNotOncePerFunction) {
  LogConfig config;
  config.file = (m_dir.path() / "p.log").string();
  auto log = make_logger(config, ConsoleStream::none);
  ASSERT_TRUE(log);
  test::FakeSignatureSource source;
  std::string traceback = "Traceback (most recent call last):\n  File \"setup.py\", line 1\nSystemExit: 1";
  auto failed = SignatureState::failed(Status::build_failed, traceback);
  source.set(m_commits.base, {failed, failed, SignatureState::failed(Status::extract_failed, "timed out")});
  auto all = SyntheticAiter::functions();
  std::vector<MonitoredFunction> functions(all.begin(), all.begin() + 3);
  CommitProcessor processor(functions, *m_mirror, source, *m_store, *m_events, **log, m_clock);
  ASSERT_TRUE(processor.process(ObjectId{m_commits.base}, std::nullopt, true, "Checking"));
  std::ifstream in(config.file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t tracebacks = 0;
  for (auto at = text.find("Traceback"); at != std::string::npos; at = text.find("Traceback", at + 1))
    ++tracebacks;
  EXPECT_EQ(tracebacks, 1u) << text;
  EXPECT_NE(text.find("WARNING - Could not extract " + functions[0].function_path + ", " +
                      functions[1].function_path + " at " + m_commits.base + ": build_failed: Traceback"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("WARNING - Could not extract " + functions[2].function_path + " at " + m_commits.base +
                      ": extract_failed: timed out"),
            std::string::npos)
      << text;
}

TEST_F(CommitProcessorTest, AFunctionNewInTheConfigIsRecordedAtTheCommitAsInitial) {
  auto all = SyntheticAiter::functions();
  std::vector<MonitoredFunction> first(all.begin(), all.begin() + 2);
  CommitProcessor before(first, *m_mirror, *m_source, *m_store, *m_events, *m_log, m_clock);
  ASSERT_TRUE(before.process(ObjectId{m_commits.base}, std::nullopt, true, "Checking"));
  auto recorded = *m_store->states_at(ObjectId{m_commits.base});
  std::size_t events = m_store->events_after(0)->size();

  std::vector<MonitoredFunction> three(all.begin(), all.begin() + 3);
  CommitProcessor after(three, *m_mirror, *m_source, *m_store, *m_events, *m_log, m_clock);
  auto added = after.record_new_functions(ObjectId{m_commits.base});
  ASSERT_TRUE(added) << added.error().message();
  auto states = *m_store->states_at(ObjectId{m_commits.base});
  ASSERT_EQ(states.size(), 3u);
  EXPECT_EQ(std::vector<FunctionState>(states.begin(), states.begin() + 2), recorded) << "kept as they were";
  EXPECT_EQ(states[2].function, all[2]);
  EXPECT_EQ(states[2].state.status, Status::ok);
  auto new_events = *m_store->events_after(0);
  ASSERT_EQ(new_events.size(), events + 1);
  EXPECT_EQ(new_events.back().event["type"], "initial");
  EXPECT_EQ(new_events.back().event["function_path"], all[2].function_path);
  EXPECT_EQ(m_store->line_head()->value().hex, m_commits.base);

  ASSERT_TRUE(after.record_new_functions(ObjectId{m_commits.base}));
  EXPECT_EQ(m_store->events_after(0)->size(), events + 1) << "nothing new the second time";
}

// A commit right after the one recorded last is only asked what changed (SignatureSource::advance),
// and a function whose state there was a failure of the machinery is diffed against its last
// usable state, as a commit processed on its own would be.
TEST_F(CommitProcessorTest, AChangeAfterAFailedBuildIsDiffedAgainstTheLastUsableState) {
  test::FakeSignatureSource source;
  auto ok = [](std::vector<std::string> names) {
    Signature signature;
    for (auto& name : names)
      signature.parameters.push_back(Parameter{name, ParameterKind::positional_or_keyword, {}, {}});
    return SignatureState::ok(signature);
  };
  const auto& c = m_commits;
  source.set(c.base, {ok({"x"}), ok({"a"})});
  source.set(c.reformatted, {SignatureState::failed(Status::build_failed, "no compiler"), ok({"a"})});
  source.set(c.renamed, {ok({"x", "y"}), ok({"a"})});
  source.set(c.inserted, {ok({"x", "y"}), ok({"a", "b"})});
  auto all = SyntheticAiter::functions();
  std::vector<MonitoredFunction> functions(all.begin(), all.begin() + 2);
  CommitProcessor processor(functions, *m_mirror, source, *m_store, *m_events, *m_log, m_clock);
  std::optional<ObjectId> previous;
  for (const std::string& sha : {c.base, c.reformatted, c.renamed, c.inserted}) {
    ASSERT_TRUE(processor.process(ObjectId{sha}, previous, true, "Checking"));
    previous = ObjectId{sha};
  }
  auto history = m_store->history(std::nullopt);
  ASSERT_TRUE(history);
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0]["commit"], c.renamed);
  EXPECT_EQ((*history)[0]["old"]["signature"]["parameters"].size(), 1u) << (*history)[0];
  EXPECT_EQ((*history)[0]["new"]["signature"]["parameters"].size(), 2u) << (*history)[0];
  EXPECT_EQ((*history)[1]["commit"], c.inserted);
  EXPECT_EQ((*history)[1]["function_path"], functions[1].function_path);
  auto states = m_store->states_at(ObjectId{c.inserted});
  ASSERT_TRUE(states);
  ASSERT_EQ(states->size(), 2u);
  EXPECT_EQ((*states)[0].state, ok({"x", "y"}));
  EXPECT_EQ((*states)[1].state, ok({"a", "b"}));
}

// What one processor records going along main, asking only what changed, is what a processor
// per commit records, each extracting every function and diffing against the stored baseline.
TEST_F(CommitProcessorTest, GoingAlongAsksOnlyWhatChangedAndRecordsWhatEachCommitAloneWould) {
  process_main({});
  auto along = m_store->history(std::nullopt);
  ASSERT_TRUE(along);
  auto store = open_state_store(m_dir.path() / "alone.db", m_repo.path().string());
  ASSERT_TRUE(store);
  auto events = EventLog::open(m_dir.path() / "alone.jsonl");
  ASSERT_TRUE(events);
  std::optional<ObjectId> previous;
  const auto& c = m_commits;
  std::size_t resolved_alone = 0;
  for (const std::string& sha :
       {c.base, c.reformatted, c.renamed, c.inserted, c.defaults, c.broken, c.deleted, c.compatible}) {
    IncrementalStaticSource source(*m_mirror, *m_extractor);
    CommitProcessor alone(SyntheticAiter::functions(), *m_mirror, source, **store, *events, *m_log, m_clock);
    ASSERT_TRUE(alone.process(ObjectId{sha}, previous, true, "Checking"));
    resolved_alone += source.work().resolved;
    previous = ObjectId{sha};
    EXPECT_EQ(*(*store)->states_at(*previous), *m_store->states_at(*previous)) << sha;
  }
  auto each = (*store)->history(std::nullopt);
  ASSERT_TRUE(each);
  ASSERT_FALSE(along->empty());
  ASSERT_EQ(each->size(), along->size());
  for (std::size_t i = 0; i < along->size(); ++i) {
    Json a = (*along)[i], b = (*each)[i];
    a.erase("recorded_at");
    b.erase("recorded_at");
    EXPECT_EQ(a, b) << i;
  }
  EXPECT_LT(m_source->work().resolved, resolved_alone / 2) << "most states carried from commit to commit";
}

// In a batch the commits are recorded in one transaction, and their events reach events.jsonl
// only once it is committed: a line there is never one the store could still lose. What is
// recorded is what processing them one by one records.
TEST_F(CommitProcessorTest, ABatchAppendsItsEventsWhenItIsCommitted) {
  CommitProcessor processor(SyntheticAiter::functions(), *m_mirror, *m_source, *m_store, *m_events, *m_log,
                            m_clock);
  const auto& c = m_commits;
  ASSERT_TRUE(processor.begin_batch());
  std::optional<ObjectId> previous;
  for (const std::string& sha :
       {c.base, c.reformatted, c.renamed, c.inserted, c.defaults, c.broken, c.deleted, c.compatible}) {
    ASSERT_TRUE(processor.process(ObjectId{sha}, previous, true, "Checking"));
    previous = ObjectId{sha};
  }
  EXPECT_EQ(m_events->last_id(), 0) << "nothing appended while the batch is open";
  auto reader = open_state_store(m_dir.path() / "state.db", m_repo.path().string());
  ASSERT_TRUE(reader);
  EXPECT_EQ(*(*reader)->commit_count(), 0) << "nothing committed while the batch is open";
  ASSERT_TRUE(processor.end_batch());
  EXPECT_EQ(*(*reader)->commit_count(), 8);
  auto recorded = m_store->events_after(0);
  ASSERT_TRUE(recorded);
  ASSERT_FALSE(recorded->empty());
  EXPECT_EQ(m_events->last_id(), recorded->back().id);

  test::TempDir other{"aaw-processor-alone"};
  auto store = open_state_store(other.path() / "state.db", m_repo.path().string());
  auto events = EventLog::open(other.path() / "events.jsonl");
  ASSERT_TRUE(store && events);
  IncrementalStaticSource source(*m_mirror, *m_extractor);
  CommitProcessor alone(SyntheticAiter::functions(), *m_mirror, source, **store, *events, *m_log, m_clock);
  previous.reset();
  for (const std::string& sha :
       {c.base, c.reformatted, c.renamed, c.inserted, c.defaults, c.broken, c.deleted, c.compatible}) {
    ASSERT_TRUE(alone.process(ObjectId{sha}, previous, true, "Checking"));
    previous = ObjectId{sha};
    EXPECT_EQ(*(*store)->states_at(*previous), *m_store->states_at(*previous)) << sha;
  }
  EXPECT_EQ(events->last_id(), m_events->last_id());
}

}  // namespace
}  // namespace aaw
