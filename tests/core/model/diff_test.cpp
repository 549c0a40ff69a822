// One test per row of docs/design.md's change classification, plus the status transitions.
#include "core/model/diff.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace aaw {
namespace {

using K = ParameterKind;

Parameter p(std::string name, std::optional<std::string> def = {}, K kind = K::positional_or_keyword,
            std::optional<std::string> ann = {}) {
  return Parameter{std::move(name), kind, std::move(def), std::move(ann)};
}

SignatureState ok(std::vector<Parameter> params, std::optional<std::string> ret = {}) {
  return SignatureState::ok(Signature{std::move(params), std::move(ret)});
}

class DiffTest : public ::testing::Test {
 protected:
  // The single change expected between two states.
  static Change only_change(const SignatureState& a, const SignatureState& b) {
    auto changes = diff_states(a, b);
    EXPECT_EQ(changes.size(), 1u) << describe(changes);
    return changes.empty() ? Change{ChangeKind::state_changed, Severity::unknown, {}, {}, {}} : changes[0];
  }
  static std::string describe(const std::vector<Change>& changes) {
    std::string out;
    for (const Change& c : changes) out += c.describe() + "\n";
    return out;
  }
  static bool has(const std::vector<Change>& changes, ChangeKind kind, Severity severity, std::string param) {
    for (const Change& c : changes)
      if (c.kind == kind && c.severity == severity && c.parameter == param) return true;
    return false;
  }
};

TEST_F(DiffTest, IdenticalSignaturesHaveNoChange) {
  EXPECT_TRUE(diff_states(ok({p("a"), p("b", "1")}), ok({p("a"), p("b", "1")})).empty());
}

SignatureState unverified(SignatureState state, std::string why) {
  state.unverified = std::move(why);
  return state;
}

// A reading that went from one basis to another (a decorator the resolver cannot follow appeared
// or went) cannot say what changed for callers: one unknown change, even with the same text
// (networkx's Graph gained a dispatching __new__ whose backend= only the decorator adds).
TEST_F(DiffTest, AFlipOfTheUnverifiedFlagIsOneUnknownChange) {
  auto flip = only_change(ok({p("a")}), unverified(ok({p("a")}), "@jit"));
  EXPECT_EQ(flip.kind, ChangeKind::state_changed);
  EXPECT_EQ(flip.severity, Severity::unknown);
  EXPECT_TRUE(
      diff_states(unverified(ok({p("a")}), "@jit (a.py:1)"), unverified(ok({p("a")}), "@jit (a.py:2)"))
          .empty());
  auto c = only_change(unverified(ok({p("self")}), "@factory(...)"), ok({p("self"), p("s")}));
  EXPECT_EQ(c.kind, ChangeKind::state_changed);
  EXPECT_EQ(c.severity, Severity::unknown);
  EXPECT_NE(c.old_text.value_or("").find("unverified: @factory(...)"), std::string::npos);
  // Both read through a decorator (its line moved): the def's own change is reported as usual.
  auto same = only_change(unverified(ok({p("a")}), "@jit (m.py:3)"),
                          unverified(ok({p("a"), p("b")}), "@jit (m.py:9)"));
  EXPECT_EQ(same.kind, ChangeKind::parameter_added);
  EXPECT_EQ(same.severity, Severity::breaking);
}

SignatureState imported(SignatureState state) {
  state.by_import = true;
  return state;
}

TEST_F(DiffTest, OneSideReadByImportIsComparedOnWhatBothSidesCanState) {
  // Read from source at one commit, by import at the next (or back): the same parameters spelled
  // as written and as Python prints them are no change.
  auto source = ok({p("x", {}, K::positional_or_keyword, "Optional[Tensor]"), p("block", "BLOCK"),
                    p("scale", "0x10"), p("name", "'a'")},
                   "None");
  auto printed = imported(ok({p("x", {}, K::positional_or_keyword, "typing.Optional[torch.Tensor]"),
                              p("block", "128"), p("scale", "16"), p("name", "'a'")}));
  EXPECT_TRUE(diff_states(source, printed).empty()) << describe(diff_states(source, printed));
  EXPECT_TRUE(diff_states(printed, source).empty()) << describe(diff_states(printed, source));
  // What both can state still changes: a literal default, a name, a kind.
  auto c = only_change(imported(ok({p("scale", "16")})), ok({p("scale", "32")}));
  EXPECT_EQ(c.kind, ChangeKind::default_changed);
  EXPECT_EQ(c.severity, Severity::behavioural);
  auto renamed = diff_states(ok({p("a"), p("b", "1")}), imported(ok({p("a"), p("c", "1")})));
  EXPECT_TRUE(has(renamed, ChangeKind::parameter_removed, Severity::breaking, "b")) << describe(renamed);
  auto kind = only_change(ok({p("a")}), imported(ok({p("a", {}, K::keyword_only)})));
  EXPECT_EQ(kind.kind, ChangeKind::kind_changed);
  // Both read by import: compared as usual, annotations included.
  auto annotation = only_change(imported(ok({p("a", {}, K::positional_or_keyword, "int")})),
                                imported(ok({p("a", {}, K::positional_or_keyword, "str")})));
  EXPECT_EQ(annotation.kind, ChangeKind::annotation_changed);
}

Parameter referring(std::string name, std::string text, std::string refers_to) {
  Parameter parameter = p(std::move(name), std::move(text));
  parameter.default_refers_to = std::move(refers_to);
  return parameter;
}

// A default spelled as a name is compared by what it names when both sides know it: a respelling
// is no change, a constant changed behind the same name is a behavioural change.
TEST_F(DiffTest, DefaultsSpelledAsNamesAreComparedByWhatTheyName) {
  EXPECT_TRUE(diff_states(ok({referring("clock", "default_clock", "time.monotonic")}),
                          ok({referring("clock", "time.monotonic", "time.monotonic")}))
                  .empty());
  auto c = only_change(ok({referring("max", "_utils.MAX_WAIT", "= 1073741823")}),
                       ok({referring("max", "_utils.MAX_WAIT", "= sys.maxsize / 2")}));
  EXPECT_EQ(c.kind, ChangeKind::default_changed);
  EXPECT_EQ(c.severity, Severity::behavioural);
  EXPECT_EQ(c.old_text, "_utils.MAX_WAIT (= 1073741823)");
  EXPECT_EQ(c.new_text, "_utils.MAX_WAIT (= sys.maxsize / 2)");
  // One side not followed: by text, as before.
  auto text = only_change(ok({p("a", "X")}), ok({referring("a", "Y", "= 1")}));
  EXPECT_EQ(text.kind, ChangeKind::default_changed);
  EXPECT_EQ(text.old_text, "X");
}

// requests' default_user_agent(name=u'python-requests') lost its prefix: the same object. A state
// recorded with the prefix compares equal to one without; inside a literal or a name a u is text.
TEST_F(DiffTest, AUPrefixOfAStringDefaultIsNoChange) {
  EXPECT_TRUE(
      diff_states(ok({p("name", "u'python-requests'")}), ok({p("name", "'python-requests'")})).empty());
  EXPECT_TRUE(diff_states(ok({p("t", "(U\"a\", u'b')")}), ok({p("t", "(\"a\", 'b')")})).empty());
  EXPECT_EQ(only_change(ok({p("s", "'a u'")}), ok({p("s", "'a '")})).kind, ChangeKind::default_changed);
  EXPECT_EQ(only_change(ok({p("s", "'it''s u'")}), ok({p("s", "'it''s '")})).kind,
            ChangeKind::default_changed);
  EXPECT_EQ(only_change(ok({p("s", "menu('x')")}), ok({p("s", "men('x')")})).kind,
            ChangeKind::default_changed);
}

TEST_F(DiffTest, FunctionRemovedIsBreaking) {
  auto c = only_change(ok({p("a")}), SignatureState::failed(Status::missing, "'f' not found"));
  EXPECT_EQ(c.kind, ChangeKind::function_removed);
  EXPECT_EQ(c.severity, Severity::breaking);
}

TEST_F(DiffTest, RequiredParameterAddedIsBreaking) {
  auto c = only_change(ok({p("a")}), ok({p("a"), p("b")}));
  EXPECT_EQ(c.kind, ChangeKind::parameter_added);
  EXPECT_EQ(c.severity, Severity::breaking);
  EXPECT_EQ(c.parameter, "b");
}

TEST_F(DiffTest, RequiredKeywordOnlyParameterAddedIsBreaking) {
  auto c = only_change(ok({p("a")}), ok({p("a"), p("k", {}, K::keyword_only)}));
  EXPECT_EQ(c.severity, Severity::breaking);
}

TEST_F(DiffTest, ParameterRemovedIsBreaking) {
  auto c = only_change(ok({p("a"), p("b", "1")}), ok({p("a")}));
  EXPECT_EQ(c.kind, ChangeKind::parameter_removed);
  EXPECT_EQ(c.severity, Severity::breaking);
  EXPECT_EQ(c.old_text, "b=1");
}

TEST_F(DiffTest, ParameterRenamedIsRemovalPlusAddition) {
  auto changes = diff_states(ok({p("a"), p("b")}), ok({p("a"), p("c")}));
  EXPECT_TRUE(has(changes, ChangeKind::parameter_removed, Severity::breaking, "b")) << describe(changes);
  EXPECT_TRUE(has(changes, ChangeKind::parameter_added, Severity::breaking, "c")) << describe(changes);
  EXPECT_EQ(highest(changes), Severity::breaking);
}

TEST_F(DiffTest, PositionalParameterMovedIsBreaking) {
  auto changes = diff_states(ok({p("a"), p("b")}), ok({p("b"), p("a")}));
  EXPECT_TRUE(has(changes, ChangeKind::parameter_moved, Severity::breaking, "a")) << describe(changes);
  EXPECT_TRUE(has(changes, ChangeKind::parameter_moved, Severity::breaking, "b")) << describe(changes);
}

TEST_F(DiffTest, OptionalParameterInsertedBeforeOthersMovesThem) {
  auto changes =
      diff_states(ok({p("a"), p("b"), p("c", "1")}), ok({p("a"), p("x", "None"), p("b"), p("c", "1")}));
  EXPECT_TRUE(has(changes, ChangeKind::parameter_added, Severity::compatible, "x")) << describe(changes);
  EXPECT_TRUE(has(changes, ChangeKind::parameter_moved, Severity::breaking, "b")) << describe(changes);
  EXPECT_TRUE(has(changes, ChangeKind::parameter_moved, Severity::breaking, "c")) << describe(changes);
}

TEST_F(DiffTest, KeywordOnlyReorderIsNotAMove) {
  auto before = ok({p("a"), p("x", "1", K::keyword_only), p("y", "2", K::keyword_only)});
  auto after = ok({p("a"), p("y", "2", K::keyword_only), p("x", "1", K::keyword_only)});
  EXPECT_TRUE(diff_states(before, after).empty());
}

TEST_F(DiffTest, NarrowingToKeywordOnlyIsBreaking) {
  auto changes = diff_states(ok({p("a"), p("b", "1")}), ok({p("a"), p("b", "1", K::keyword_only)}));
  EXPECT_TRUE(has(changes, ChangeKind::kind_changed, Severity::breaking, "b")) << describe(changes);
}

TEST_F(DiffTest, NarrowingToPositionalOnlyIsBreaking) {
  auto c = only_change(ok({p("a")}), ok({p("a", {}, K::positional_only)}));
  EXPECT_EQ(c.kind, ChangeKind::kind_changed);
  EXPECT_EQ(c.severity, Severity::breaking);
  EXPECT_EQ(c.old_text, "POSITIONAL_OR_KEYWORD");
  EXPECT_EQ(c.new_text, "POSITIONAL_ONLY");
}

TEST_F(DiffTest, WideningKeywordOnlyIsCompatible) {
  auto c = only_change(ok({p("a"), p("b", "1", K::keyword_only)}), ok({p("a"), p("b", "1")}));
  EXPECT_EQ(c.kind, ChangeKind::kind_changed);
  EXPECT_EQ(c.severity, Severity::compatible);
}

TEST_F(DiffTest, DefaultRemovedIsBreaking) {
  auto c = only_change(ok({p("a", "1")}), ok({p("a")}));
  EXPECT_EQ(c.kind, ChangeKind::default_removed);
  EXPECT_EQ(c.severity, Severity::breaking);
}

TEST_F(DiffTest, VarArgsRemovedIsBreaking) {
  auto c = only_change(ok({p("a"), p("args", {}, K::var_positional)}), ok({p("a")}));
  EXPECT_EQ(c.kind, ChangeKind::parameter_removed);
  EXPECT_EQ(c.severity, Severity::breaking);
  EXPECT_EQ(c.old_text, "*args");
}

TEST_F(DiffTest, VarKeywordsRemovedIsBreaking) {
  auto c = only_change(ok({p("a"), p("kw", {}, K::var_keyword)}), ok({p("a")}));
  EXPECT_EQ(c.severity, Severity::breaking);
  EXPECT_EQ(c.old_text, "**kw");
}

TEST_F(DiffTest, RenamingVarArgsAndVarKeywordsBreaksNoCall) {
  auto before = ok({p("a"), p("args", {}, K::var_positional), p("kw", {}, K::var_keyword)});
  auto after = ok({p("a"), p("rest", {}, K::var_positional), p("options", {}, K::var_keyword)});
  EXPECT_TRUE(diff_states(before, after).empty());
}

TEST_F(DiffTest, RenamingPositionalOnlyParameterBreaksNoCall) {
  auto before = ok({p("a", {}, K::positional_only), p("b")});
  auto after = ok({p("x", {}, K::positional_only), p("b")});
  EXPECT_TRUE(diff_states(before, after).empty());
}

// `def m(self, __x)` in class C is `_C__x` to Python: renaming the class renames the parameter,
// and no caller passes it by keyword.
TEST_F(DiffTest, RenamingAMangledPrivateParameterBreaksNoCall) {
  auto before = ok({p("self"), p("_Old__x"), p("b")});
  auto after = ok({p("self"), p("_New__x"), p("b")});
  EXPECT_TRUE(diff_states(before, after).empty());
  auto public_rename = ok({p("self"), p("x"), p("b")});
  EXPECT_FALSE(diff_states(before, public_rename).empty());
}

TEST_F(DiffTest, RenamedPositionalOnlyParameterStillReportsItsDefault) {
  auto c = only_change(ok({p("a", "1", K::positional_only)}), ok({p("x", "2", K::positional_only)}));
  EXPECT_EQ(c.kind, ChangeKind::default_changed);
  EXPECT_EQ(c.parameter, "a");
}

TEST_F(DiffTest, DefaultChangedIsBehavioural) {
  auto c = only_change(ok({p("a", "32")}), ok({p("a", "64")}));
  EXPECT_EQ(c.kind, ChangeKind::default_changed);
  EXPECT_EQ(c.severity, Severity::behavioural);
  EXPECT_EQ(c.old_text, "32");
  EXPECT_EQ(c.new_text, "64");
}

TEST_F(DiffTest, OptionalParameterAddedIsCompatible) {
  auto c = only_change(ok({p("a")}), ok({p("a"), p("b", "None")}));
  EXPECT_EQ(c.kind, ChangeKind::parameter_added);
  EXPECT_EQ(c.severity, Severity::compatible);
}

TEST_F(DiffTest, OptionalKeywordOnlyParameterAddedIsCompatible) {
  auto c = only_change(ok({p("a")}), ok({p("a"), p("k", "False", K::keyword_only)}));
  EXPECT_EQ(c.severity, Severity::compatible);
}

TEST_F(DiffTest, DefaultAddedIsCompatible) {
  auto c = only_change(ok({p("a")}), ok({p("a", "0")}));
  EXPECT_EQ(c.kind, ChangeKind::default_added);
  EXPECT_EQ(c.severity, Severity::compatible);
}

TEST_F(DiffTest, VarArgsAndVarKeywordsAddedAreCompatible) {
  auto changes =
      diff_states(ok({p("a")}), ok({p("a"), p("args", {}, K::var_positional), p("kw", {}, K::var_keyword)}));
  EXPECT_TRUE(has(changes, ChangeKind::parameter_added, Severity::compatible, "args")) << describe(changes);
  EXPECT_TRUE(has(changes, ChangeKind::parameter_added, Severity::compatible, "kw")) << describe(changes);
  EXPECT_EQ(changes.size(), 2u);
}

TEST_F(DiffTest, FunctionAppearedIsCompatible) {
  auto c = only_change(SignatureState::failed(Status::missing, "not found"), ok({p("a")}));
  EXPECT_EQ(c.kind, ChangeKind::function_added);
  EXPECT_EQ(c.severity, Severity::compatible);
}

TEST_F(DiffTest, AnnotationChangedIsAnnotation) {
  auto c = only_change(ok({p("a", {}, K::positional_or_keyword, "int")}),
                       ok({p("a", {}, K::positional_or_keyword, "float")}));
  EXPECT_EQ(c.kind, ChangeKind::annotation_changed);
  EXPECT_EQ(c.severity, Severity::annotation);
}

TEST_F(DiffTest, ReturnAnnotationChangedIsAnnotation) {
  auto c = only_change(ok({p("a")}, "None"), ok({p("a")}, "Tensor"));
  EXPECT_EQ(c.kind, ChangeKind::return_annotation_changed);
  EXPECT_EQ(c.severity, Severity::annotation);
  EXPECT_EQ(c.parameter, std::nullopt);
}

TEST_F(DiffTest, BecomingUnresolvedIsUnknownNotRemoval) {
  auto c = only_change(ok({p("a")}), SignatureState::failed(Status::unresolved, "bound to an expression"));
  EXPECT_EQ(c.kind, ChangeKind::state_changed);
  EXPECT_EQ(c.severity, Severity::unknown);
}

TEST_F(DiffTest, SyntaxErrorToMissingIsUnknown) {
  auto c = only_change(SignatureState::failed(Status::syntax_error, "a.py:3"),
                       SignatureState::failed(Status::missing, "gone"));
  EXPECT_EQ(c.kind, ChangeKind::state_changed);
  EXPECT_EQ(c.severity, Severity::unknown);
}

TEST_F(DiffTest, SameNonOkStatusIsNoChange) {
  EXPECT_TRUE(
      diff_states(SignatureState::failed(Status::missing, "x"), SignatureState::failed(Status::missing, "y"))
          .empty());
}

TEST_F(DiffTest, MachineryFailuresAreNeverDiffed) {
  auto good = ok({p("a")});
  for (Status failure : {Status::build_failed, Status::import_error, Status::extract_failed}) {
    auto bad = SignatureState::failed(failure, "boom");
    EXPECT_TRUE(diff_states(good, bad).empty()) << to_string(failure);
    EXPECT_TRUE(diff_states(bad, good).empty()) << to_string(failure);
  }
}

TEST_F(DiffTest, HighestRanksBreakingAboveUnknownAboveBehavioural) {
  std::vector<Change> changes = {{ChangeKind::default_changed, Severity::behavioural, "a", "1", "2"},
                                 {ChangeKind::annotation_changed, Severity::annotation, "a", "int", "float"}};
  EXPECT_EQ(highest(changes), Severity::behavioural);
  changes.push_back({ChangeKind::state_changed, Severity::unknown, {}, {}, {}});
  EXPECT_EQ(highest(changes), Severity::unknown);
  changes.push_back({ChangeKind::parameter_removed, Severity::breaking, "b", "b", {}});
  EXPECT_EQ(highest(changes), Severity::breaking);
  EXPECT_EQ(highest({}), std::nullopt);
}

TEST_F(DiffTest, ChangeJsonFollowsContract) {
  Change c{ChangeKind::default_changed, Severity::behavioural, "block_size", "32", "64"};
  EXPECT_EQ(to_json(c), Json({{"kind", "default_changed"},
                              {"severity", "behavioural"},
                              {"parameter", "block_size"},
                              {"old", "32"},
                              {"new", "64"}}));
  Change r{ChangeKind::return_annotation_changed, Severity::annotation, {}, {}, "None"};
  EXPECT_TRUE(to_json(r)["parameter"].is_null());
  EXPECT_TRUE(to_json(r)["old"].is_null());
}

}  // namespace
}  // namespace aaw
