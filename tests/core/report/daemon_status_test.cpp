// read_daemon_status and the poll records it reads, on an in-memory state store and fixed times.
#include "core/report/daemon_status.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/watch/poll_status.hpp"
#include "support/memory_state_store.hpp"
#include "support/sample_values.hpp"

namespace aaw {
namespace {

using test::k_fixed_now;

using namespace std::chrono_literals;

class DaemonStatusTest : public ::testing::Test {
 protected:
  DaemonStatus status(TimePoint now = k_fixed_now, int interval = 60) {
    auto s = read_daemon_status(m_store.get(), nullptr, interval, now);
    EXPECT_TRUE(s) << s.error().message();
    return s ? *s : DaemonStatus{};
  }

  void record_commit(const std::string& sha) {
    CommitRecord record;
    record.commit.id = ObjectId{sha};
    record.advances_line = true;
    ASSERT_TRUE(m_store->record(record));
  }

  std::unique_ptr<StateStore> m_store = std::make_unique<test::InMemoryStateStore>();
};

TEST_F(DaemonStatusTest, CommitsRecordedAsFailedAreCountedWithTheLatest) {
  EXPECT_EQ(status().failed_commits.count, 0);
  EXPECT_FALSE(status().failed_commits.last);
  record_commit(std::string(40, 'a'));
  for (char c : {'b', 'c'}) {
    CommitRecord failed;
    failed.commit.id = ObjectId{std::string(40, c)};
    failed.outcome = CommitOutcome::failed;
    failed.error = std::string("object ") + c + " is missing from the mirror";
    ASSERT_TRUE(m_store->record(failed));
  }
  DaemonStatus s = status();
  EXPECT_EQ(s.failed_commits.count, 2);
  ASSERT_TRUE(s.failed_commits.last);
  EXPECT_EQ(s.failed_commits.last->commit.hex, std::string(40, 'c'));
  EXPECT_EQ(s.failed_commits.last->error, "object c is missing from the mirror");
}

TEST_F(DaemonStatusTest, NeverRunIsStale) {
  auto s = read_daemon_status(nullptr, nullptr, 60, k_fixed_now);
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->healthy);
  EXPECT_EQ(s->health, "stale: no successful poll or replay recorded");
  EXPECT_FALSE(s->poll.last_poll_time);
}

TEST_F(DaemonStatusTest, HealthyWithinThreeIntervalsOfTheLastSuccessfulPoll) {
  ASSERT_TRUE(record_poll(*m_store, k_fixed_now - 100s, std::nullopt));
  DaemonStatus s = status();
  EXPECT_TRUE(s.healthy);
  EXPECT_EQ(s.health, "ok: last successful poll 100 s ago (limit 3 x 60 s)");
  EXPECT_EQ(s.poll.last_poll_result, "ok");
  EXPECT_EQ(s.poll.last_poll_time, s.poll.last_poll_success_time);
  EXPECT_FALSE(status(k_fixed_now + 81s).healthy);
  EXPECT_EQ(status(k_fixed_now + 81s).health, "stale: last successful poll 181 s ago (limit 3 x 60 s)");
}

// A store only a replay wrote (replay --once, a commit_list) is as healthy as its last replay, and
// its last processed commit is the last one replayed: no line head, no poll.
TEST_F(DaemonStatusTest, AfterAReplayTheLastReplayedCommitAndItsSuccessAreTheStatus) {
  const std::string replayed(40, 'e');
  ASSERT_TRUE(record_replay(*m_store, k_fixed_now - 30s, "ok", ObjectId{replayed}));
  DaemonStatus s = status();
  EXPECT_TRUE(s.healthy);
  EXPECT_EQ(s.health, "ok: last successful replay 30 s ago (limit 3 x 60 s)");
  EXPECT_EQ(s.line_head, replayed);
  EXPECT_FALSE(s.last_error);
  record_commit(std::string(40, 'f'));
  EXPECT_EQ(status().line_head, std::string(40, 'f')) << "the watched line's head comes first";
}

TEST_F(DaemonStatusTest, AReplayThatDidNotFinishIsTheLastErrorAndNoSuccess) {
  ASSERT_TRUE(record_replay(*m_store, k_fixed_now - 30s, "interrupted after 5 of 400 commits",
                            ObjectId{std::string(40, 'e')}));
  DaemonStatus s = status();
  EXPECT_FALSE(s.healthy);
  EXPECT_EQ(s.health, "stale: no successful poll or replay recorded");
  EXPECT_EQ(s.last_error, "interrupted after 5 of 400 commits");
  ASSERT_TRUE(record_poll(*m_store, k_fixed_now - 10s, std::nullopt));
  EXPECT_EQ(status().health, "ok: last successful poll 10 s ago (limit 3 x 60 s)");
}

TEST_F(DaemonStatusTest, FailedPollKeepsTheLastSuccessAndIsTheLastError) {
  ASSERT_TRUE(record_poll(*m_store, k_fixed_now - 300s, std::nullopt));
  ASSERT_TRUE(
      record_poll(*m_store, k_fixed_now - 10s, std::string("cannot reach the remote: connection refused")));
  DaemonStatus s = status();
  EXPECT_FALSE(s.healthy);
  EXPECT_EQ(s.poll.last_poll_success_time, iso8601_utc(k_fixed_now - 300s));
  EXPECT_EQ(s.poll.last_poll_time, iso8601_utc(k_fixed_now - 10s));
  EXPECT_EQ(s.last_error, "cannot reach the remote: connection refused");
}

TEST_F(DaemonStatusTest, ADeliveryBeingRetriedIsTheLastErrorWhenPollsAreFine) {
  ASSERT_TRUE(record_poll(*m_store, k_fixed_now, std::nullopt));
  CommitRecord record;
  record.commit.id = ObjectId{std::string(40, 'b')};
  record.notifications.push_back(
      {"webhook",
       Json{{"commit", record.commit.id.hex}, {"import_statement", "import a"}, {"function_path", "a.f"}}});
  ASSERT_TRUE(m_store->record(record));
  OutboxItem item = (*m_store->due_notifications(k_fixed_now, 10))[0];
  item.attempts = 1;
  item.last_error = "webhook https://hooks.example.com answered 502";
  item.next_attempt_at = k_fixed_now + 1h;
  ASSERT_TRUE(m_store->update_notification(item));
  DaemonStatus s = status();
  EXPECT_EQ(s.last_error, "webhook https://hooks.example.com answered 502");
  EXPECT_EQ(s.outbox.pending, 1);
}

TEST_F(DaemonStatusTest, PendingCommitsAreZeroAtTheHeadAndUnknownWithoutAMirror) {
  const std::string head(40, 'c');
  record_commit(head);
  ASSERT_TRUE(record_remote_head(*m_store, ObjectId{head}));
  EXPECT_EQ(status().pending_commits, 0);
  EXPECT_EQ(status().line_head, head);
  ASSERT_TRUE(record_remote_head(*m_store, ObjectId{std::string(40, 'd')}));
  EXPECT_EQ(status().pending_commits, std::nullopt);
}

}  // namespace
}  // namespace aaw
