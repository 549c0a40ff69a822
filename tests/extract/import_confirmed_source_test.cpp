// ImportConfirmedSource over fake sources: the doubtful states (unverified, unresolved) are asked
// of the import, its answer wins (agreeing: the static state without its doubt; disagreeing: its
// own, marked by_import), an import that cannot answer keeps the static state, and a replay imports
// only where static extraction resolved a doubtful function again.
#include "extract/import_confirmed_source.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "support/fake_signature_source.hpp"

namespace aaw {
namespace {

using test::FakeSignatureSource;

Parameter arg(std::string name, std::optional<std::string> default_value = std::nullopt) {
  return Parameter{std::move(name), ParameterKind::positional_or_keyword, std::move(default_value),
                   std::nullopt};
}

SignatureState ok_state(std::vector<Parameter> parameters) {
  return SignatureState::ok(Signature{std::move(parameters), std::nullopt});
}

SignatureState doubted(SignatureState state, std::string why = "decorated with @dispatch") {
  state.unverified = std::move(why);
  return state;
}

SignatureState by_import(SignatureState state) {
  state.by_import = true;
  return state;
}

// A static source that, like the memo, looks at each commit only at the positions listed for it
// (a file they read changed), and reports those whose state differs from the one given.
class MemoLikeSource final : public SignatureSource {
 public:
  void set(const std::string& commit, std::vector<SignatureState> states, std::set<std::size_t> resolved) {
    m_table.set(commit, std::move(states));
    m_resolved[commit] = std::move(resolved);
  }
  Result<std::vector<SignatureState>> extract(const ObjectId& commit,
                                              const std::vector<MonitoredFunction>& functions) override {
    return m_table.extract(commit, functions);
  }
  Result<std::vector<StateUpdate>> advance(const ObjectId&, const ObjectId& commit,
                                           const std::vector<MonitoredFunction>& functions,
                                           const std::vector<SignatureState>& states) override {
    auto now = m_table.extract(commit, functions);
    if (!now) return now.error();
    std::vector<StateUpdate> updates;
    m_touched.assign(m_resolved[commit.hex].begin(), m_resolved[commit.hex].end());
    for (std::size_t i : m_touched)
      if (!((*now)[i] == states[i])) updates.push_back({i, (*now)[i]});
    return updates;
  }
  std::optional<std::vector<std::size_t>> inputs_changed() const override { return m_touched; }

 private:
  FakeSignatureSource m_table;
  std::map<std::string, std::set<std::size_t>> m_resolved;
  std::vector<std::size_t> m_touched;
};

class ImportConfirmedSourceTest : public ::testing::Test {
 protected:
  std::vector<MonitoredFunction> m_functions = {
      {"import pkg", "pkg.plain"}, {"import pkg", "pkg.decorated"}, {"import pkg", "pkg.made"}};
  MemoLikeSource m_static;
  FakeSignatureSource m_import;
  std::shared_ptr<Logger> m_log = null_logger();
  ImportConfirmedSource m_source{m_static, m_import, *m_log};

  void SetUp() override { m_import.know(m_functions); }
};

TEST_F(ImportConfirmedSourceTest, TheImportConfirmsOrCorrectsOnlyTheDoubtfulStates) {
  m_static.set("c1",
               {ok_state({arg("a")}), doubted(ok_state({arg("x"), arg("n", "BLOCK")})),
                SignatureState::failed(Status::unresolved, "made by a call")},
               {});
  m_import.set(
      "c1", {ok_state({arg("zzz")}), ok_state({arg("x"), arg("n", "128")}), ok_state({arg("p"), arg("q")})});
  auto states = m_source.extract(ObjectId{"c1"}, m_functions);
  ASSERT_TRUE(states);
  EXPECT_EQ((*states)[0], ok_state({arg("a")}));  // plain ok: never imported
  // Agreeing (a default spelled as a name agrees with its value): the static state, vouched for.
  EXPECT_EQ((*states)[1], ok_state({arg("x"), arg("n", "BLOCK")}));
  EXPECT_EQ((*states)[2], by_import(ok_state({arg("p"), arg("q")})));
  EXPECT_EQ(m_source.tally().imports, 1u);
  EXPECT_EQ(m_source.tally().asked, 2u);
  EXPECT_EQ(m_source.tally().confirmed, 1u);
  EXPECT_EQ(m_source.tally().resolved, 1u);
}

TEST_F(ImportConfirmedSourceTest, ADisagreementRecordsTheImportsAnswerAndIsCounted) {
  m_static.set("c1", {ok_state({}), doubted(ok_state({arg("x")})), doubted(ok_state({arg("y")}))}, {});
  m_import.set("c1", {ok_state({}), ok_state({arg("x"), arg("backend", "None")}),
                      SignatureState::failed(Status::missing, "AttributeError: no 'made'")});
  auto states = m_source.extract(ObjectId{"c1"}, m_functions);
  ASSERT_TRUE(states);
  EXPECT_EQ((*states)[1], by_import(ok_state({arg("x"), arg("backend", "None")})));
  EXPECT_EQ((*states)[2], SignatureState::failed(Status::missing, "AttributeError: no 'made'"));
  EXPECT_EQ(m_source.tally().differed, 2u);
  EXPECT_EQ(m_source.work_summary(),
            "import confirmation: 2 states of doubtful functions in 1 import: 0 confirmed, 2 differed and 0 "
            "resolved (the import's recorded), 0 unanswered (static kept)");
}

TEST_F(ImportConfirmedSourceTest, AnObjectWithoutASignatureInspectCanReadIsAnAnswer) {
  m_static.set(
      "c1",
      {ok_state({}), doubted(ok_state({arg("args")})), SignatureState::failed(Status::unresolved, "hook")},
      {});
  m_import.set("c1",
               {ok_state({}), SignatureState::failed(Status::unresolved, "no signature inspect can read"),
                SignatureState::failed(Status::unresolved, "no signature inspect can read")});
  auto states = m_source.extract(ObjectId{"c1"}, m_functions);
  ASSERT_TRUE(states);
  EXPECT_EQ((*states)[1], SignatureState::failed(Status::unresolved, "no signature inspect can read"));
  EXPECT_EQ((*states)[2], SignatureState::failed(Status::unresolved, "hook"));  // neither can tell
  EXPECT_EQ(m_source.tally().differed, 1u);
  EXPECT_EQ(m_source.tally().confirmed, 1u);
}

TEST_F(ImportConfirmedSourceTest, AnImportThatCannotAnswerKeepsTheStaticState) {
  m_static.set(
      "c1", {ok_state({}), doubted(ok_state({arg("x")})), SignatureState::failed(Status::unresolved, "hook")},
      {});
  m_import.set("c1",
               {ok_state({}), SignatureState::failed(Status::import_error, "ModuleNotFoundError: torch"),
                SignatureState::failed(Status::extract_failed, "the child timed out")});
  auto states = m_source.extract(ObjectId{"c1"}, m_functions);
  ASSERT_TRUE(states);
  EXPECT_EQ((*states)[1], doubted(ok_state({arg("x")})));
  EXPECT_EQ((*states)[2], SignatureState::failed(Status::unresolved, "hook"));
  EXPECT_EQ(m_source.tally().unanswered, 2u);
  EXPECT_NE(
      m_source.work_summary().find("2 unanswered (static kept); first: import_error: ModuleNotFoundError"),
      std::string::npos);
  // A child that cannot even start, or a tree that cannot be checked out: the same.
  m_import.fail("c1", Error(ErrorCode::io, "cannot create the sandbox"));
  states = m_source.extract(ObjectId{"c1"}, m_functions);
  ASSERT_TRUE(states);
  EXPECT_EQ((*states)[1], doubted(ok_state({arg("x")})));
  EXPECT_EQ(m_source.tally().unanswered, 4u);
}

TEST_F(ImportConfirmedSourceTest, AStopDuringTheImportRecordsNothing) {
  m_static.set("c1", {ok_state({}), doubted(ok_state({arg("x")})), ok_state({})}, {});
  m_import.fail("c1", Error(ErrorCode::cancelled, "extracting c1: stop requested"));
  auto states = m_source.extract(ObjectId{"c1"}, m_functions);
  ASSERT_FALSE(states);
  EXPECT_EQ(states.error().code(), ErrorCode::cancelled);
}

TEST_F(ImportConfirmedSourceTest, AReplayImportsOnlyWhereAFileADoubtfulFunctionReadChanged) {
  const SignatureState decorated = doubted(ok_state({arg("x")}));
  m_static.set("c1", {ok_state({arg("a")}), decorated, ok_state({})}, {});
  m_import.set("c1", {ok_state({arg("a")}), ok_state({arg("x"), arg("k", "None")}), ok_state({})});
  auto first = m_source.extract(ObjectId{"c1"}, m_functions);
  ASSERT_TRUE(first);
  ASSERT_EQ((*first)[1], by_import(ok_state({arg("x"), arg("k", "None")})));
  // c2: the plain function changed; nothing the decorated one read did. No import.
  m_static.set("c2", {ok_state({arg("a"), arg("b", "1")}), decorated, ok_state({})}, {0});
  auto second = m_source.advance(ObjectId{"c1"}, ObjectId{"c2"}, m_functions, *first);
  ASSERT_TRUE(second);
  EXPECT_EQ(*second, (std::vector<StateUpdate>{{0, ok_state({arg("a"), arg("b", "1")})}}));
  EXPECT_EQ(m_import.asked(), std::vector<std::string>{"c1"});
  // c3: a file the decorated function read changed (its decorator's) while the def did not:
  // static extraction reads the same state, and the import, asked again, gives another signature.
  m_static.set("c3", {ok_state({arg("a"), arg("b", "1")}), decorated, ok_state({})}, {1});
  m_import.set("c3", {ok_state({}), ok_state({arg("x"), arg("k", "None"), arg("j", "0")}), ok_state({})});
  std::vector<SignatureState> states = *first;
  states[0] = ok_state({arg("a"), arg("b", "1")});
  auto third = m_source.advance(ObjectId{"c2"}, ObjectId{"c3"}, m_functions, states);
  ASSERT_TRUE(third);
  EXPECT_EQ(
      *third,
      (std::vector<StateUpdate>{{1, by_import(ok_state({arg("x"), arg("k", "None"), arg("j", "0")}))}}));
  EXPECT_EQ(m_import.asked(), (std::vector<std::string>{"c1", "c3"}));
  EXPECT_EQ(m_source.tally().asked, 2u);
  // c4: its files changed again, and the import gives what it gave at c3: nothing to record.
  m_static.set("c4", {ok_state({arg("a"), arg("b", "1")}), decorated, ok_state({})}, {1});
  m_import.set("c4", {ok_state({}), ok_state({arg("x"), arg("k", "None"), arg("j", "0")}), ok_state({})});
  states[1] = (*third)[0].state;
  auto fourth = m_source.advance(ObjectId{"c3"}, ObjectId{"c4"}, m_functions, states);
  ASSERT_TRUE(fourth);
  EXPECT_TRUE(fourth->empty());
  // c5: its files changed, static extraction reads the same, and the import fails: the import's
  // last answer stands (no change made of a failure).
  m_static.set("c5", {ok_state({arg("a"), arg("b", "1")}), decorated, ok_state({})}, {1});
  m_import.set(
      "c5", {ok_state({}), SignatureState::failed(Status::import_error, "ImportError: torch"), ok_state({})});
  auto fifth = m_source.advance(ObjectId{"c4"}, ObjectId{"c5"}, m_functions, states);
  ASSERT_TRUE(fifth);
  EXPECT_TRUE(fifth->empty());
  EXPECT_EQ(m_source.tally().unanswered, 1u);
  // c6: the def changed too, and the import still fails: static extraction's reading, doubt and all.
  const SignatureState grown = doubted(ok_state({arg("x"), arg("z")}));
  m_static.set("c6", {ok_state({arg("a"), arg("b", "1")}), grown, ok_state({})}, {1});
  m_import.set(
      "c6", {ok_state({}), SignatureState::failed(Status::import_error, "ImportError: torch"), ok_state({})});
  auto sixth = m_source.advance(ObjectId{"c5"}, ObjectId{"c6"}, m_functions, states);
  ASSERT_TRUE(sixth);
  EXPECT_EQ(*sixth, (std::vector<StateUpdate>{{1, grown}}));
}

TEST_F(ImportConfirmedSourceTest, AnotherStartingPointIsAWholeExtraction) {
  m_static.set("c1", {ok_state({}), doubted(ok_state({arg("x")})), ok_state({})}, {});
  m_import.set("c1", {ok_state({}), ok_state({arg("x")}), ok_state({})});
  std::vector<SignatureState> recorded = {ok_state({}), doubted(ok_state({arg("x")})), ok_state({})};
  // Never extracted before: advance() extracts c1 whole and reports what differs.
  auto updates = m_source.advance(ObjectId{"c0"}, ObjectId{"c1"}, m_functions, recorded);
  ASSERT_TRUE(updates);
  EXPECT_EQ(*updates, (std::vector<StateUpdate>{{1, ok_state({arg("x")})}}));
}

}  // namespace
}  // namespace aaw
