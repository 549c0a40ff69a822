#include "core/model/signature.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace aaw {
namespace {

using K = ParameterKind;

Parameter parameter(std::string name, K kind = K::positional_or_keyword, std::optional<std::string> def = {},
                    std::optional<std::string> ann = {}) {
  return Parameter{std::move(name), kind, std::move(def), std::move(ann)};
}

TEST(SignatureTest, PrintsPlainParametersAsPython) {
  Signature s{{parameter("a"), parameter("b", K::positional_or_keyword, "1")}, std::nullopt};
  EXPECT_EQ(s.text(), "(a, b=1)");
}

TEST(SignatureTest, SpacesEqualsOnlyWithAnAnnotation) {
  Signature s{{parameter("a", K::positional_or_keyword, std::nullopt, "int"),
               parameter("b", K::positional_or_keyword, "None", "Optional[int]")},
              "None"};
  EXPECT_EQ(s.text(), "(a: int, b: Optional[int] = None) -> None");
}

TEST(SignatureTest, InsertsSlashAfterPositionalOnlyAndStarBeforeKeywordOnly) {
  Signature s{{parameter("a", K::positional_only), parameter("b"), parameter("c", K::keyword_only, "2")},
              std::nullopt};
  EXPECT_EQ(s.text(), "(a, /, b, *, c=2)");
}

TEST(SignatureTest, OmitsBareStarWhenVarPositionalPrecedesKeywordOnly) {
  Signature s{{parameter("args", K::var_positional), parameter("c", K::keyword_only),
               parameter("kw", K::var_keyword, {}, "Any")},
              std::nullopt};
  EXPECT_EQ(s.text(), "(*args, c, **kw: Any)");
}

TEST(SignatureTest, ClosesSlashWhenOnlyPositionalOnlyParameters) {
  Signature s{{parameter("a", K::positional_only), parameter("b", K::positional_only)}, std::nullopt};
  EXPECT_EQ(s.text(), "(a, b, /)");
}

TEST(SignatureTest, PrintsEmptySignature) { EXPECT_EQ(Signature{}.text(), "()"); }

TEST(SignatureTest, OkStateRoundTripsThroughContractJson) {
  auto state =
      SignatureState::ok(Signature{{parameter("x", K::keyword_only, "(1, 2)", "Tuple[int, ...]")}, "int"});
  Json json = to_json(state);
  EXPECT_EQ(json["status"], "ok");
  EXPECT_EQ(json["text"], "(*, x: Tuple[int, ...] = (1, 2)) -> int");
  EXPECT_EQ(json["signature"]["parameters"][0]["kind"], "KEYWORD_ONLY");
  EXPECT_EQ(json["signature"]["parameters"][0]["default"], "(1, 2)");
  EXPECT_FALSE(json.contains("detail"));
  auto back = state_from_json(json);
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(*back, state);
}

TEST(SignatureTest, FailedStateCarriesDetailAndNoSignature) {
  auto state = SignatureState::failed(Status::missing, "module 'a.b' not found");
  Json json = to_json(state);
  EXPECT_EQ(json, Json({{"status", "missing"}, {"detail", "module 'a.b' not found"}}));
  auto back = state_from_json(json);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, state);
}

TEST(SignatureTest, RejectsStateWithUnknownStatus) {
  auto back = state_from_json(Json({{"status", "gone"}}));
  ASSERT_FALSE(back);
  EXPECT_NE(back.error().message().find("status"), std::string::npos);
}

TEST(SignatureTest, RejectsParameterWithBadKindNamingIt) {
  Json json = {{"status", "ok"},
               {"signature",
                {{"parameters", {{{"name", "a"}, {"kind", "POSITIONAL"}}}}, {"return_annotation", nullptr}}}};
  auto back = state_from_json(json);
  ASSERT_FALSE(back);
  EXPECT_NE(back.error().message().find("signature.parameters[0]: kind"), std::string::npos)
      << back.error().message();
}

TEST(SignatureTest, ClassifiesMachineryFailures) {
  EXPECT_TRUE(is_machinery_failure(Status::build_failed));
  EXPECT_TRUE(is_machinery_failure(Status::import_error));
  EXPECT_TRUE(is_machinery_failure(Status::extract_failed));
  EXPECT_FALSE(is_machinery_failure(Status::missing));
  EXPECT_FALSE(is_machinery_failure(Status::syntax_error));
  EXPECT_FALSE(is_machinery_failure(Status::unresolved));
}

// An ok state may carry a note (a decorator that may replace the function): kept in the JSON.
TEST(SignatureNoteTest, OkStateNoteRoundTrips) {
  SignatureState state =
      SignatureState::ok(Signature{{Parameter{"a", ParameterKind::positional_or_keyword, {}, {}}}, {}});
  state.detail = "decorated with @loose";
  Json json = to_json(state);
  EXPECT_EQ(json["detail"], "decorated with @loose");
  EXPECT_EQ(*state_from_json(json), state);
  state.detail.clear();
  EXPECT_FALSE(to_json(state).contains("detail"));
}

// An ok state the resolver cannot vouch for says so in its JSON and in its one-line text, which
// every log line, history entry and `show` prints.
TEST(SignatureNoteTest, UnverifiedFlagRoundTripsAndIsPrinted) {
  SignatureState state =
      SignatureState::ok(Signature{{Parameter{"a", ParameterKind::positional_or_keyword, {}, {}}}, {}});
  state.unverified = "decorated with @dispatch: an instance of class dispatch replaces the function";
  Json json = to_json(state);
  EXPECT_EQ(json["unverified"], state.unverified);
  EXPECT_EQ(*state_from_json(json), state);
  EXPECT_TRUE(state.is_unverified());
  EXPECT_EQ(
      state.summary(),
      "(a)  [unverified: decorated with @dispatch: an instance of class dispatch replaces the function]");
  json["unverified"] = 3;
  auto bad = state_from_json(json);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("unverified"), std::string::npos);
  EXPECT_FALSE(SignatureState::failed(Status::unresolved, "x").is_unverified());
}

// A state read by import (extractor static+import) says so in its JSON, and only then.
TEST(SignatureNoteTest, ByImportRoundTrips) {
  SignatureState state =
      SignatureState::ok(Signature{{Parameter{"a", ParameterKind::positional_or_keyword, "128", {}}}, {}});
  EXPECT_FALSE(to_json(state).contains("by_import"));
  state.by_import = true;
  Json json = to_json(state);
  EXPECT_EQ(json["by_import"], true);
  EXPECT_EQ(*state_from_json(json), state);
  json["by_import"] = "yes";
  auto bad = state_from_json(json);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("by_import"), std::string::npos);
}

}  // namespace
}  // namespace aaw
