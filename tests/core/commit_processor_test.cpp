// The commit processor's choice of notifications, on real parts: the synthetic aiter history in a
// libgit2 mirror, the embedded interpreter and the SQLite store.
#include "aaw/core/commit_processor.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "aaw/extract/static_extractor.hpp"
#include "aaw/extract/static_memo.hpp"
#include "aaw/io/libgit2_mirror.hpp"
#include "aaw/io/sqlite_state_store.hpp"
#include "aaw/notify/github_issue_channel.hpp"
#include "aaw/notify/webhook_channel.hpp"
#include "support/fake_clock.hpp"
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
  void process_main(const std::vector<NotificationTarget>& targets) {
    CommitProcessor processor(SyntheticAiter::functions(), *m_mirror, *m_source, *m_store, *m_events, *m_log,
                              m_clock, targets);
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

}  // namespace
}  // namespace aaw
