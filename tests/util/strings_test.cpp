#include "aaw/util/strings.hpp"

#include <gtest/gtest.h>

namespace aaw {
namespace {

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

}  // namespace
}  // namespace aaw
