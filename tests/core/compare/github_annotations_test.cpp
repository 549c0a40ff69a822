#include "core/compare/github_annotations.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/compare/gate.hpp"
#include "support/sample_comparison.hpp"

namespace aaw {
namespace {

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(GithubAnnotationsTest, AnErrorAtTheDefLineForADeniedChange) {
  GateOptions options;
  options.levels.fail_on = FailOn::breaking;
  std::string out = render_github_annotations(compare_document(testing::sample_gate_comparison(), options));
  EXPECT_EQ(
      out.rfind(
          "::error file=m/core.py,line=12,title=parameter_removed%3A m.f::breaking: parameter 'b' removed",
          0),
      0u)
      << out;
  EXPECT_NE(out.find("::warning file=m/core.py,line=12,title=default_changed%3A m.f::"), std::string::npos);
  EXPECT_NE(out.find("%0Aconsumer: 1 of 3 call sites break"), std::string::npos);
}

TEST(GithubAnnotationsTest, PastTenOfAKindTheLastOneSaysHowManyMore) {
  Comparison c = testing::sample_gate_comparison();
  FunctionComparison copy = c.functions[0];
  c.functions.clear();
  for (int i = 0; i < 12; ++i) {
    copy.function.function_path = "m.f" + std::to_string(i);
    c.functions.push_back(copy);
  }
  std::string out = render_github_annotations(compare_document(c, {}));  // 24 errors
  EXPECT_EQ(count_of(out, "::error "), 10u);
  EXPECT_NE(out.find("::error title=15 more::15 more error annotations not shown"), std::string::npos) << out;
}

TEST(GithubAnnotationsTest, EscapesDataAndProperties) {
  EXPECT_EQ(escape_command_data("a%b\nc:d,e"), "a%25b%0Ac:d,e");
  EXPECT_EQ(escape_command_property("a%b\nc:d,e"), "a%25b%0Ac%3Ad%2Ce");
}

}  // namespace
}  // namespace aaw
