// The commit processor's decisions on fakes alone: states from a table, a history and a store in
// memory. tests/system/commit_processor_test.cpp runs it on real git, SQLite and the interpreter.
#include "core/watch/commit_processor.hpp"

#include <gtest/gtest.h>

#include <set>

#include "support/fake_call_binder.hpp"
#include "support/fake_clock.hpp"
#include "support/fake_signature_source.hpp"
#include "support/memory_git_mirror.hpp"
#include "support/memory_state_store.hpp"
#include "support/temp_dir.hpp"

namespace aaw {
namespace {

SignatureState params(std::vector<std::pair<std::string, std::optional<std::string>>> list) {
  Signature signature;
  for (auto& [name, default_value] : list)
    signature.parameters.push_back(Parameter{name, ParameterKind::positional_or_keyword, default_value, {}});
  return SignatureState::ok(signature);
}

class CommitProcessorTest : public ::testing::Test {
 protected:
  ObjectId add(const std::string& subject, std::vector<SignatureState> states) {
    ObjectId id = m_git.commit({{"log.txt", subject}}, subject);
    m_source.set(id.hex, std::move(states));
    return id;
  }

  // Each commit of `commits` processed against the one before, the first as initial.
  void process_in_order(const std::vector<ObjectId>& commits, std::vector<NotificationTarget> targets = {}) {
    CommitProcessor processor(m_functions, m_git, m_source, m_store, m_events, *m_log, m_clock,
                              std::move(targets));
    std::optional<ObjectId> against;
    for (const ObjectId& commit : commits) {
      ASSERT_TRUE(processor.process(commit, against, true, "Checking commit")) << commit.hex;
      against = commit;
    }
  }

  std::vector<std::string> changed(const std::string& function_path) {
    std::vector<std::string> kinds;
    auto history = m_store.history(function_path);
    EXPECT_TRUE(history);
    if (history)
      for (const Json& c : *history)
        for (const Json& change : c["changes"]) kinds.push_back(change["kind"]);
    return kinds;
  }

  std::vector<MonitoredFunction> m_functions = {{"import pkg", "pkg.f"}, {"from pkg import g", "g"}};
  test::TempDir m_dir{"aaw-processor-core"};
  test::InMemoryGitMirror m_git;
  test::FakeSignatureSource m_source;
  test::InMemoryStateStore m_store;
  EventLog m_events = std::move(*EventLog::open(m_dir.path() / "events.jsonl"));
  std::shared_ptr<Logger> m_log = null_logger();
  test::FakeClock m_clock;
};

TEST_F(CommitProcessorTest, TheFirstCommitIsInitialAndWritesOneEventPerFunction) {
  ObjectId first = add("first", {params({{"a", {}}}), params({{"x", {}}})});
  process_in_order({first});
  EXPECT_TRUE(m_store.history(std::nullopt)->empty());
  auto events = *m_store.events_after(0);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event["type"], "initial");
  EXPECT_EQ(events[0].event["function_path"], "pkg.f");
  EXPECT_EQ(m_events.last_id(), events.back().id);
}

TEST_F(CommitProcessorTest, AChangeIsClassifiedAndCarriesItsCommit) {
  ObjectId first = add("first", {params({{"a", {}}, {"b", "1"}}), params({{"x", {}}})});
  ObjectId second = add("tune b", {params({{"a", {}}, {"b", "2"}}), params({{"x", {}}})});
  process_in_order({first, second});
  auto history = *m_store.history(std::nullopt);
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0]["commit"], second.hex);
  EXPECT_EQ(history[0]["subject"], "tune b");
  EXPECT_EQ(history[0]["severity"], "behavioural");
  EXPECT_EQ(changed("pkg.f"), std::vector<std::string>{"default_changed"});
}

TEST_F(CommitProcessorTest, AFailureOfTheMachineryIsRecordedButNeverDiffed) {
  ObjectId first = add("first", {params({{"a", {}}}), params({{"x", {}}})});
  ObjectId broken = add("broken build", {SignatureState::failed(Status::build_failed, "exit 1"),
                                         SignatureState::failed(Status::build_failed, "exit 1")});
  ObjectId fixed = add("fixed", {params({{"a", {}}}), params({{"x", {}}, {"y", {}}})});
  process_in_order({first, broken, fixed});
  EXPECT_TRUE(changed("pkg.f").empty()) << "f is as it was before the broken build";
  EXPECT_EQ(changed("g"), std::vector<std::string>{"parameter_added"}) << "g is diffed against `first`";
  EXPECT_EQ((*m_store.states_at(broken))[0].state.status, Status::build_failed);
}

TEST_F(CommitProcessorTest, AStatementAboutTheCodeIsAChangeOfUnknownSeverityNeverARemoval) {
  ObjectId first = add("first", {params({{"a", {}}}), params({{"x", {}}})});
  ObjectId odd = add("f made by a factory",
                     {SignatureState::failed(Status::unresolved, "bound to a call"), params({{"x", {}}})});
  process_in_order({first, odd});
  auto history = *m_store.history(std::string("pkg.f"));
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0]["severity"], "unknown");
  EXPECT_EQ(changed("pkg.f"), std::vector<std::string>{"state_changed"});
}

TEST_F(CommitProcessorTest, ACommitThatCannotBeReadIsRecordedFailedAndIsNoError) {
  ObjectId first = add("first", {params({{"a", {}}}), params({{"x", {}}})});
  ObjectId unreadable = add("unreadable", {});
  m_source.fail(unreadable.hex, Error(ErrorCode::not_found, "object 1234 is missing from the mirror"));
  process_in_order({first, unreadable});
  auto status = **m_store.commit_status(unreadable);
  EXPECT_EQ(status.outcome, CommitOutcome::failed);
  EXPECT_NE(status.error.find("missing from the mirror"), std::string::npos);
}

TEST_F(CommitProcessorTest, ChangesAtATargetsSeverityOrAboveAreQueuedForIt) {
  ObjectId first = add("first", {params({{"a", {}}, {"b", "1"}}), params({{"x", {}}})});
  ObjectId second = add("two changes", {params({{"a", {}}, {"b", "2"}}), params({{"y", {}}})});
  process_in_order({first, second},
                   {{"webhook", Severity::behavioural, false}, {"github_issue", Severity::breaking, false}});
  std::set<std::pair<std::string, std::string>> queued;
  auto due = m_store.due_notifications(TimePoint::max(), 100);
  ASSERT_TRUE(due);
  for (const OutboxItem& item : *due) queued.emplace(item.target, item.payload["function_path"]);
  EXPECT_EQ(queued, (std::set<std::pair<std::string, std::string>>{
                        {"webhook", "pkg.f"}, {"webhook", "g"}, {"github_issue", "g"}}));
}

// tenacity's Retrying.iter: its module stopped parsing, and the commit that mended it had also
// removed two defaults and added a required parameter. The two unknown changes say nothing of that;
// the signature read again is compared with the one read before, and a notifier of breaking
// changes hears of it, with the commit the unreadable stretch began at.
TEST_F(CommitProcessorTest, ASignatureReadAgainIsComparedWithTheOneReadBeforeTheUnreadableStretch) {
  const auto broken = SignatureState::failed(Status::syntax_error, "pkg/__init__.py:3: invalid syntax");
  ObjectId first = add("first", {params({{"result", "NO_RESULT"}}), params({{"x", {}}})});
  ObjectId breaks = add("breaks", {broken, params({{"x", {}}})});
  ObjectId still = add("still broken",
                       {SignatureState::failed(Status::unresolved, "bound to a call"), params({{"x", {}}})});
  ObjectId mended = add("mended", {params({{"result", {}}, {"start", {}}}), params({{"x", {}}})});
  process_in_order({first, breaks, still, mended}, {{"github_issue", Severity::breaking, false}});
  auto history = *m_store.history(std::string("pkg.f"));
  ASSERT_EQ(history.size(), 3u);
  const Json& last = history.back();
  EXPECT_EQ(last["commit"], mended.hex);
  EXPECT_EQ(last["severity"], "breaking");
  std::vector<std::string> kinds;
  for (const Json& change : last["changes"]) {
    kinds.push_back(change["kind"]);
    if (change["kind"] == "state_changed") {
      EXPECT_FALSE(change.contains("unreadable_since"));
    } else {
      EXPECT_EQ(change["unreadable_since"], breaks.hex) << change.dump();
    }
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"state_changed", "default_removed", "parameter_added"}));
  auto due = m_store.due_notifications(TimePoint::max(), 100);
  ASSERT_TRUE(due);
  ASSERT_EQ(due->size(), 1u);
  EXPECT_EQ((*due)[0].payload["commit"], mended.hex);

  // The same found in the store's history by a processor started after the stretch began.
  ObjectId again = add("breaks again", {broken, params({{"x", {}}})});
  ObjectId back = add("back", {params({{"result", {}}}), params({{"x", {}}})});
  process_in_order({mended, again});
  process_in_order({again, back});
  const Json restarted = m_store.history(std::string("pkg.f"))->back();
  EXPECT_EQ(restarted["commit"], back.hex);
  EXPECT_EQ(restarted["severity"], "breaking");
  bool removed = false;
  for (const Json& change : restarted["changes"])
    removed |= change["kind"] == "parameter_removed" && change["unreadable_since"] == again.hex;
  EXPECT_TRUE(removed) << restarted.dump();
}

// The consumer's call sites are bound against the signature read before the stretch: a call that
// bound then and fails now is broken by the change, which the unreadable base could not tell.
TEST_F(CommitProcessorTest, TheConsumerImpactOfASignatureReadAgainIsAssessedAgainstTheOneReadBefore) {
  test::FakeCallBinder binder;
  ConsumerScan scan;
  scan.functions.push_back({m_functions[0], "pkg.f", {test::site("user.py", 7, 2)}});
  ImpactAssessor assessor(scan, binder);
  ObjectId first = add("first", {params({{"a", {}}, {"b", {}}}), params({{"x", {}}})});
  ObjectId breaks =
      add("breaks", {SignatureState::failed(Status::syntax_error, "pkg/__init__.py:3: invalid syntax"),
                     params({{"x", {}}})});
  ObjectId mended = add("mended", {params({{"a", {}}}), params({{"x", {}}})});
  CommitProcessor processor(m_functions, m_git, m_source, m_store, m_events, *m_log, m_clock, {});
  processor.use_consumer(&assessor);
  std::optional<ObjectId> against;
  for (const ObjectId& commit : {first, breaks, mended}) {
    ASSERT_TRUE(processor.process(commit, against, true, "Checking commit"));
    against = commit;
  }
  const Json last = m_store.history(std::string("pkg.f"))->back();
  ASSERT_TRUE(last.contains("consumer_impact")) << last.dump();
  EXPECT_EQ(last["consumer_impact"]["breaks_consumer"], true) << last.dump();
  ASSERT_EQ(last["consumer_impact"]["broken"].size(), 1u);
  EXPECT_EQ(last["consumer_impact"]["broken"][0]["file"], "user.py");
}

TEST_F(CommitProcessorTest, AFunctionAddedToTheConfigGetsItsHistoryBackFilledWithoutNotifications) {
  m_source.know(m_functions);
  ObjectId one = add("one", {params({{"a", {}}}), params({{"x", {}}, {"y", {}}})});
  ObjectId two = add("drop y", {params({{"a", {}}}), params({{"x", {}}})});
  ObjectId three = add("add b", {params({{"a", {}}, {"b", "1"}}), params({{"x", {}}})});
  std::vector<MonitoredFunction> all = m_functions;
  m_functions = {all[0]};  // the history was processed with pkg.f alone
  process_in_order({one, two, three});
  ASSERT_EQ(changed("g").size(), 0u);

  CommitProcessor processor(all, m_git, m_source, m_store, m_events, *m_log, m_clock,
                            {NotificationTarget{"webhook", Severity::annotation, false}});
  ASSERT_TRUE(processor.record_new_functions(three));
  for (const ObjectId& commit : {one, two, three})
    EXPECT_EQ(m_store.states_at(commit)->size(), 2u) << commit.hex;
  auto history = *m_store.history("g");
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0]["commit"], two.hex) << "recorded where it happened, not where it was found";
  EXPECT_EQ(history[0]["subject"], "drop y");
  EXPECT_EQ(history[0]["backfilled"], true);
  EXPECT_EQ(changed("pkg.f"), (std::vector<std::string>{"parameter_added"}))
      << "pkg.f's history is untouched";
  EXPECT_EQ(m_store.outbox_counts()->pending, 0) << "a back-filled change is old news: not notified";
  EXPECT_EQ(**m_store.line_head(), three);
  int initial = 0;
  const std::vector<StoredEvent> recorded = *m_store.events_after(0);
  for (const StoredEvent& e : recorded)
    if (e.event["type"] == "initial" && e.event["function_path"] == "g") {
      ++initial;
      EXPECT_EQ(e.event["commit"], one.hex);
      EXPECT_EQ(e.event["backfilled"], true);
    }
  EXPECT_EQ(initial, 1);

  // Done once: a second start finds every function with a state and changes nothing.
  auto events = m_store.events_after(0)->size();
  ASSERT_TRUE(processor.record_new_functions(three));
  EXPECT_EQ(m_store.events_after(0)->size(), events);
}

TEST_F(CommitProcessorTest, ARecordTheStoreRefusesIsAnErrorAndLeavesNoEvent) {
  ObjectId first = add("first", {params({{"a", {}}}), params({{"x", {}}})});
  CommitProcessor processor(m_functions, m_git, m_source, m_store, m_events, *m_log, m_clock);
  m_store.fail_records(1);
  EXPECT_FALSE(processor.process(first, std::nullopt, true, "Checking commit"));
  EXPECT_EQ(*m_store.commit_count(), 0);
  EXPECT_EQ(m_events.last_id(), 0);
}

}  // namespace
}  // namespace aaw
