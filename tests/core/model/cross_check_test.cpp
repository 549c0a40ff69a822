// A signature read from source against one read by import: names, kinds and literal defaults
// compared; defaults spelled as names and annotations taken as agreeing.
#include "core/model/cross_check.hpp"

#include <gtest/gtest.h>

namespace aaw {
namespace {

Parameter parameter(std::string name, std::optional<std::string> default_value = std::nullopt,
                    ParameterKind kind = ParameterKind::positional_or_keyword,
                    std::optional<std::string> annotation = std::nullopt) {
  return Parameter{std::move(name), kind, std::move(default_value), std::move(annotation)};
}

TEST(SignatureDisagreementsTest, NamesEachDifference) {
  Signature a{{parameter("x"), parameter("y", "1"), parameter("z")}, std::nullopt};
  Signature b{{parameter("x", std::nullopt, ParameterKind::positional_only), parameter("w", "1")},
              std::nullopt};
  auto differences = signature_disagreements(a, b);
  EXPECT_EQ(differences, (std::vector<std::string>{
                             "3 parameters static, 2 runtime",
                             "parameter 1: 'x' is POSITIONAL_OR_KEYWORD static, POSITIONAL_ONLY runtime",
                             "parameter 2: 'y' static, 'w' runtime",
                         }));
  EXPECT_TRUE(signature_disagreements(a, a).empty());
}

TEST(SignatureDisagreementsTest, AnnotationsAreNotCompared) {
  Signature a{{parameter("x", std::nullopt, ParameterKind::positional_or_keyword, "Optional[Tensor]")},
              "None"};
  Signature b{
      {parameter("x", std::nullopt, ParameterKind::positional_or_keyword, "typing.Optional[torch.Tensor]")},
      std::nullopt};
  EXPECT_TRUE(signature_disagreements(a, b).empty());
}

TEST(DefaultsAgreeTest, ByWhatBothSidesCanState) {
  struct Row {
    std::optional<std::string> written, printed;
    bool agree;
  };
  const Row rows[] = {
      {"1", "1", true},
      {"0x10", "16", true},  // one number, two spellings
      {"1.0", "1", true},
      {"'a'", "\"a\"", true},       // one string, two quotes
      {"BLOCK_SIZE", "128", true},  // a name: its value is not known from source
      {"torch.float16", "torch.float16", true},
      {"None", "None", true},
      {"None", "0", false},
      {"True", "False", false},
      {"1", "2", false},
      {"'a'", "'b'", false},
      {"1", std::nullopt, false},  // a default on one side only
      {std::nullopt, "1", false},
      {std::nullopt, std::nullopt, true},
  };
  for (const Row& row : rows)
    EXPECT_EQ(defaults_agree(row.written, row.printed), row.agree)
        << row.written.value_or("<none>") << " / " << row.printed.value_or("<none>");
}

}  // namespace
}  // namespace aaw
