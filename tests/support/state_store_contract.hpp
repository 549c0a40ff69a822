// The StateStore port's contract (src/core/ports/state_store.hpp) as one typed test suite, run
// against every implementation: the SQLite store (tests/io/sqlite/sqlite_state_store_test.cpp)
// and the in-memory fake the core's tests use (tests/core/ports/state_store_test.cpp), so that the
// fake cannot drift from the real one. A maker type gives the suite a fresh, empty store:
//   struct Maker { std::unique_ptr<StateStore> make(); };
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "core/ports/state_store.hpp"
#include "support/sample_values.hpp"

namespace aaw::test {

inline MonitoredFunction contract_function(int n) { return {"import pkg", "pkg.f" + std::to_string(n)}; }

inline SignatureState contract_state(int n) {
  Signature signature;
  signature.parameters.push_back(
      Parameter{"p" + std::to_string(n), ParameterKind::positional_or_keyword, {}, {}});
  return SignatureState::ok(signature);
}

inline Json contract_change(const ObjectId& commit, const MonitoredFunction& f,
                            const std::string& note = "") {
  return {{"commit", commit.hex},
          {"import_statement", f.import_statement},
          {"function_path", f.function_path},
          {"severity", "breaking"},
          {"note", note},
          {"changes", Json::array()}};
}

inline Json contract_event(const ObjectId& commit, const MonitoredFunction& f, const std::string& time) {
  return {{"type", "change"},
          {"time", time},
          {"commit", commit.hex},
          {"import_statement", f.import_statement},
          {"function_path", f.function_path}};
}

// Commit n with functions 0..count-1, function i in contract_state(i + variant).
inline CommitRecord contract_record(int n, int count = 2, int variant = 0) {
  CommitRecord record;
  record.commit.id = sha(n);
  record.commit.subject = "commit " + std::to_string(n);
  for (int i = 0; i < count; ++i)
    record.states.push_back({contract_function(i), contract_state(i + variant)});
  return record;
}

template <class Maker>
class StateStoreContract : public ::testing::Test {
 protected:
  StateStore& store() { return *m_store; }
  void record(const CommitRecord& r) { ASSERT_TRUE(m_store->record(r)) << "recording " << r.commit.id.hex; }
  std::vector<std::string> history_notes(const std::optional<std::string>& path = std::nullopt) {
    std::vector<std::string> notes;
    auto history = m_store->history(path);
    EXPECT_TRUE(history) << history.error().message();
    if (history)
      for (const Json& change : *history) notes.push_back(change.value("note", ""));
    return notes;
  }

  Maker m_maker;
  std::unique_ptr<StateStore> m_store = m_maker.make();
};

TYPED_TEST_SUITE_P(StateStoreContract);

TYPED_TEST_P(StateStoreContract, ARecordIsReadBackWhole) {
  CommitRecord r = contract_record(1);
  r.changes.push_back(contract_change(r.commit.id, contract_function(0), "c1"));
  r.events.push_back(contract_event(r.commit.id, contract_function(0), "t1"));
  r.notifications.push_back({"webhook", contract_change(r.commit.id, contract_function(0))});
  r.advances_line = true;
  this->record(r);
  auto status = this->store().commit_status(r.commit.id);
  ASSERT_TRUE(status && *status);
  EXPECT_EQ((*status)->sequence, 1);
  EXPECT_EQ((*status)->outcome, CommitOutcome::processed);
  EXPECT_EQ(*this->store().states_at(r.commit.id), r.states);
  EXPECT_EQ(this->history_notes(), std::vector<std::string>{"c1"});
  EXPECT_EQ(this->store().events_after(0)->size(), 1u);
  EXPECT_EQ(this->store().outbox_counts()->pending, 1);
  EXPECT_EQ(**this->store().line_head(), r.commit.id);
  EXPECT_EQ(*this->store().commit_count(), 1);
  EXPECT_FALSE(*this->store().commit_status(sha(9)));
  EXPECT_TRUE(this->store().states_at(sha(9))->empty());
}

TYPED_TEST_P(StateStoreContract, ACommitRecordedAgainKeepsItsPlaceAndDuplicatesNothing) {
  CommitRecord first = contract_record(1);
  first.changes.push_back(contract_change(first.commit.id, contract_function(0), "first try"));
  first.events.push_back(contract_event(first.commit.id, contract_function(0), "t1"));
  first.notifications.push_back(
      {"webhook", contract_change(first.commit.id, contract_function(0), "first try")});
  this->record(first);
  CommitRecord second = contract_record(2);
  second.changes.push_back(contract_change(second.commit.id, contract_function(1), "second"));
  this->record(second);
  CommitRecord again = contract_record(1, 2, 5);
  again.changes.push_back(contract_change(again.commit.id, contract_function(0), "second try"));
  again.events.push_back(contract_event(again.commit.id, contract_function(0), "t2"));
  again.notifications.push_back(
      {"webhook", contract_change(again.commit.id, contract_function(0), "second try")});
  this->record(again);
  EXPECT_EQ((**this->store().commit_status(again.commit.id)).sequence, 1);
  EXPECT_EQ(*this->store().states_at(again.commit.id), again.states);
  EXPECT_EQ(this->history_notes(), (std::vector<std::string>{"second try", "second"}));
  auto events = *this->store().events_after(0);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event["time"], "t1") << "an event recorded once stays as it was";
  auto pending = *this->store().notifications(OutboxState::pending, 10);
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].payload["note"], "first try") << "a notification keeps its payload";
  EXPECT_EQ(*this->store().commit_count(), 2);
}

TYPED_TEST_P(StateStoreContract, ProcessedCommitsAreListedInProcessingOrder) {
  this->record(contract_record(3));
  this->record(contract_record(1));
  CommitRecord failed = contract_record(2);
  failed.outcome = CommitOutcome::failed;
  failed.error = "missing object";
  failed.states.clear();
  this->record(failed);
  this->record(contract_record(3));  // recorded again: keeps its place
  auto listed = this->store().processed_commits();
  ASSERT_TRUE(listed) << listed.error().message();
  EXPECT_EQ(*listed, (std::vector<ObjectId>{sha(3), sha(1)}));
}

TYPED_TEST_P(StateStoreContract, ARecordThatCannotBeWrittenKeepsNothing) {
  CommitRecord bad = contract_record(1);
  bad.changes.push_back(Json{{"commit", bad.commit.id.hex}});  // no function named
  EXPECT_FALSE(this->store().record(bad));
  CommitRecord other = contract_record(2);
  other.changes.push_back(contract_change(sha(3), contract_function(0)));  // another commit's
  EXPECT_FALSE(this->store().record(other));
  EXPECT_EQ(*this->store().commit_count(), 0);
  EXPECT_TRUE(this->store().history(std::nullopt)->empty());
}

TYPED_TEST_P(StateStoreContract, TheBaselineSkipsFailuresOfTheMachinery) {
  this->record(contract_record(1));
  CommitRecord broken = contract_record(2, 2, 7);
  broken.states[0].state = SignatureState::failed(Status::build_failed, "build exited with status 1");
  this->record(broken);
  auto baseline = this->store().baseline(sha(2));
  ASSERT_TRUE(baseline);
  ASSERT_EQ(baseline->size(), 2u);
  EXPECT_EQ((*baseline)[0], (FunctionState{contract_function(0), contract_state(0)}));
  EXPECT_EQ((*baseline)[1], (FunctionState{contract_function(1), contract_state(8)}));
  EXPECT_EQ((*this->store().baseline(sha(1)))[1].state, contract_state(1));
  EXPECT_EQ(*this->store().baseline(std::nullopt), *baseline);
  auto unknown = this->store().baseline(sha(9));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code(), ErrorCode::not_found);
}

TYPED_TEST_P(StateStoreContract, TheLineHeadIsWhereTheLastAdvancingRecordLeftIt) {
  EXPECT_FALSE(*this->store().line_head());
  CommitRecord one = contract_record(1);
  one.advances_line = true;
  this->record(one);
  this->record(contract_record(2));  // a replayed commit does not move the line
  EXPECT_EQ(**this->store().line_head(), sha(1));
  CommitRecord three = contract_record(3);
  three.advances_line = true;
  this->record(three);
  EXPECT_EQ(**this->store().line_head(), sha(3));
}

TYPED_TEST_P(StateStoreContract, HistoryOfOneFunctionUnderAnyImport) {
  CommitRecord r = contract_record(1);
  r.changes.push_back(contract_change(r.commit.id, contract_function(0), "f0"));
  r.changes.push_back(contract_change(r.commit.id, contract_function(1), "f1"));
  r.changes.push_back(contract_change(r.commit.id, {"from pkg import f0", "pkg.f0"}, "f0 again"));
  this->record(r);
  EXPECT_EQ(this->history_notes(std::string("pkg.f0")), (std::vector<std::string>{"f0", "f0 again"}));
  EXPECT_TRUE(this->history_notes(std::string("pkg.nothing")).empty());
}

TYPED_TEST_P(StateStoreContract, EventsAfterAnIdInOrder) {
  for (int n = 1; n <= 3; ++n) {
    CommitRecord r = contract_record(n);
    r.events.push_back(contract_event(r.commit.id, contract_function(0), "t" + std::to_string(n)));
    this->record(r);
  }
  auto all = *this->store().events_after(0);
  ASSERT_EQ(all.size(), 3u);
  auto rest = *this->store().events_after(all[0].id);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].event["time"], "t2");
  EXPECT_LT(rest[0].id, rest[1].id);
  EXPECT_TRUE(this->store().events_after(all[2].id)->empty());
}

TYPED_TEST_P(StateStoreContract, NamedValuesAreKeptAndReplaced) {
  EXPECT_FALSE(*this->store().value("remote_head"));
  ASSERT_TRUE(this->store().set_value("remote_head", "abc"));
  ASSERT_TRUE(this->store().set_value("remote_head", "def"));
  EXPECT_EQ(**this->store().value("remote_head"), "def");
}

TYPED_TEST_P(StateStoreContract, ARewriteNoticeAndAChangeOfOneFunctionAtOneCommitAreTwoNotifications) {
  CommitRecord r = contract_record(1);
  r.notifications.push_back({"webhook", contract_change(r.commit.id, contract_function(0))});
  Json notice = contract_change(r.commit.id, contract_function(0), "taken back");
  notice.erase("commit");  // a force-push's notice names no commit (core/watch/history_rewrite.hpp)
  notice["type"] = "history_rewritten";
  r.notifications.push_back({"webhook", notice});
  this->record(r);
  this->record(r);
  EXPECT_EQ(this->store().notifications(OutboxState::pending, 10)->size(), 2u)
      << "recorded twice, kept once each";
}

TYPED_TEST_P(StateStoreContract, DueNotificationsAreDeliveredAndCounted) {
  CommitRecord r = contract_record(1);
  r.notifications.push_back({"webhook", contract_change(r.commit.id, contract_function(0))});
  r.notifications.push_back({"github_issue", contract_change(r.commit.id, contract_function(0))});
  this->record(r);
  const TimePoint now = std::chrono::system_clock::now();
  auto due = *this->store().due_notifications(now, 10);
  ASSERT_EQ(due.size(), 2u);
  EXPECT_EQ(this->store().due_notifications(now, 1)->size(), 1u);
  OutboxItem delivered = due[0];
  delivered.state = OutboxState::delivered;
  delivered.attempts = 1;
  delivered.delivered_ref = "https://example.com/issues/1";
  ASSERT_TRUE(this->store().update_notification(delivered));
  OutboxItem later = due[1];
  later.attempts = 1;
  later.next_attempt_at = now + std::chrono::hours(1);
  later.last_error = "HTTP 502";
  ASSERT_TRUE(this->store().update_notification(later));
  EXPECT_TRUE(this->store().due_notifications(now, 10)->empty());
  auto next = *this->store().next_notification_due();
  ASSERT_TRUE(next);
  EXPECT_EQ(std::chrono::time_point_cast<std::chrono::seconds>(*next),
            std::chrono::time_point_cast<std::chrono::seconds>(later.next_attempt_at));
  auto counts = *this->store().outbox_counts();
  EXPECT_EQ((std::pair{counts.pending, counts.delivered}), (std::pair<std::int64_t, std::int64_t>{1, 1}));
  auto shown = *this->store().notifications(OutboxState::delivered, 10);
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_EQ(shown[0].delivered_ref, "https://example.com/issues/1");
  OutboxItem unknown = due[0];
  unknown.id = 999;
  auto missing = this->store().update_notification(unknown);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::not_found);
}

TYPED_TEST_P(StateStoreContract, APullRequestReachesHistoryAndTheOutbox) {
  CommitRecord r = contract_record(1);
  r.changes.push_back(contract_change(r.commit.id, contract_function(0)));
  r.notifications.push_back({"webhook", contract_change(r.commit.id, contract_function(0))});
  this->record(r);
  this->record(contract_record(2));
  ASSERT_TRUE(this->store().set_pull_request(r.commit.id, "https://github.com/o/r/pull/7"));
  ASSERT_TRUE(this->store().set_pull_request(sha(9), "https://github.com/o/r/pull/8"));
  EXPECT_EQ((*this->store().history(std::nullopt))[0]["pull_request"], "https://github.com/o/r/pull/7");
  EXPECT_EQ((*this->store().notifications(OutboxState::pending, 10))[0].payload["pull_request"],
            "https://github.com/o/r/pull/7");
}

TYPED_TEST_P(StateStoreContract, ABatchOfRecordsReadsAsTheRecordsOneByOne) {
  ASSERT_TRUE(this->store().begin_batch());
  for (int n = 1; n <= 3; ++n) {
    CommitRecord r = contract_record(n, 2, n);
    r.advances_line = true;
    this->record(r);
  }
  ASSERT_TRUE(this->store().end_batch());
  EXPECT_EQ(*this->store().commit_count(), 3);
  EXPECT_EQ(**this->store().line_head(), sha(3));
  EXPECT_EQ(*this->store().states_at(sha(2)), contract_record(2, 2, 2).states);
}

TYPED_TEST_P(StateStoreContract, AFailedCommitHasNoStates) {
  CommitRecord failed;
  failed.commit.id = sha(1);
  failed.outcome = CommitOutcome::failed;
  failed.error = "object missing";
  this->record(failed);
  auto status = **this->store().commit_status(failed.commit.id);
  EXPECT_EQ(status.outcome, CommitOutcome::failed);
  EXPECT_EQ(status.error, "object missing");
  EXPECT_TRUE(this->store().states_at(failed.commit.id)->empty());
}

REGISTER_TYPED_TEST_SUITE_P(StateStoreContract,
                            ARewriteNoticeAndAChangeOfOneFunctionAtOneCommitAreTwoNotifications,
                            ProcessedCommitsAreListedInProcessingOrder, ARecordIsReadBackWhole,
                            ACommitRecordedAgainKeepsItsPlaceAndDuplicatesNothing,
                            ARecordThatCannotBeWrittenKeepsNothing, TheBaselineSkipsFailuresOfTheMachinery,
                            TheLineHeadIsWhereTheLastAdvancingRecordLeftIt,
                            HistoryOfOneFunctionUnderAnyImport, EventsAfterAnIdInOrder,
                            NamedValuesAreKeptAndReplaced, DueNotificationsAreDeliveredAndCounted,
                            APullRequestReachesHistoryAndTheOutbox, ABatchOfRecordsReadsAsTheRecordsOneByOne,
                            AFailedCommitHasNoStates);

}  // namespace aaw::test
