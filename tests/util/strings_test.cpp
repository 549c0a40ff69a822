#include "util/strings.hpp"

#include <gtest/gtest.h>

namespace aaw {
namespace {

TEST(StringsTest, CountedTakesTheNounThatGoesWithTheNumber) {
  EXPECT_EQ(counted(0, "commit", "commits"), "0 commits");
  EXPECT_EQ(counted(1, "commit", "commits"), "1 commit");
  EXPECT_EQ(counted(2, "API change", "API changes"), "2 API changes");
}

TEST(StringsTest, TrimTakesBlanksFromBothEnds) {
  EXPECT_EQ(trim("  a b \t\r\n"), "a b");
  EXPECT_EQ(trim(" \n "), "");
  EXPECT_EQ(trim(""), "");
}

TEST(StringsTest, JoinAndReplaceAll) {
  EXPECT_EQ(join({"static", "runtime", "both"}), "static, runtime, both");
  EXPECT_EQ(join({}), "");
  EXPECT_EQ(join({"a", "b"}, "|"), "a|b");
  EXPECT_EQ(replace_all("{python} -m {python}", "{python}", "/v/bin/python"),
            "/v/bin/python -m /v/bin/python");
  EXPECT_EQ(replace_all("aaa", "a", "aa"), "aaaaaa") << "replacements are not rescanned";
  EXPECT_EQ(replace_all("abc", "", "x"), "abc");
}

TEST(StringsTest, ClosestMatchIsATypoOrATruncationOnly) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  std::vector<std::string> keys = {"check_interval_seconds", "max_size_mb", "branch"};
  EXPECT_EQ(closest_match("check_intervall_seconds", keys), "check_interval_seconds");
  EXPECT_EQ(closest_match("max_size", keys), "max_size_mb");
  EXPECT_EQ(closest_match("zzzzzz", keys), "");
}

TEST(StringsTest, ClosestMatchesAreTheNearestFewBestFirst) {
  std::vector<std::string> names = {"fmoe", "fmoe_int8", "asm_moe", "gemm_a8w8_CK", "gemm_a8w8", "fused_moe"};
  EXPECT_EQ(closest_matches("fmoee", names, 3), (std::vector<std::string>{"fmoe"}));
  EXPECT_EQ(closest_matches("gemm_a8w8_ck", names, 2),
            (std::vector<std::string>{"gemm_a8w8_CK", "gemm_a8w8"}))
      << "a case slip is closer than a missing suffix";
  EXPECT_EQ(closest_matches("fmoe", names, 3), (std::vector<std::string>{"fmoe_int8"}))
      << "never the word itself";
  EXPECT_TRUE(closest_matches("xyz", names, 3).empty());
  EXPECT_EQ(closest_matches("gemm_a8w", names, 1).size(), 1u) << "at most `limit`";
}

}  // namespace
}  // namespace aaw
