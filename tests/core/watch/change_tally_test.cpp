#include "core/watch/change_tally.hpp"

#include <gtest/gtest.h>

namespace aaw {
namespace {

TEST(ChangeTallyTest, DescribesNothingChanged) {
  EXPECT_EQ(describe(ChangeTally{5, 0, 0, 0, 0}), "no API change");
}

TEST(ChangeTallyTest, DescribesChangesWithTheBreakingOnesAndWhere) {
  EXPECT_EQ(describe(ChangeTally{9, 2, 3, 1, 0}), "3 API changes (1 breaking) at 2 commits");
  EXPECT_EQ(describe(ChangeTally{9, 1, 1, 0, 0}), "1 API change at 1 commit");
}

TEST(ChangeTallyTest, CountsFailedCommitsApart) {
  EXPECT_EQ(describe(ChangeTally{3, 0, 0, 0, 2}), "no API change; 2 commits could not be processed");
}

TEST(ChangeTallyTest, SaysWhatTheLastCommitCouldNotVouchFor) {
  EXPECT_EQ(describe(ChangeTally{3, 1, 1, 0, 0, 2, 1}),
            "1 API change at 1 commit; at the last commit, 2 functions unverified, 1 function unresolved");
  EXPECT_EQ(describe(ChangeTally{3, 0, 0, 0, 0, 1, 0}),
            "no API change; at the last commit, 1 function unverified");
  EXPECT_EQ(describe(ChangeTally{3, 0, 0, 0, 0, 0, 3}),
            "no API change; at the last commit, 3 functions unresolved");
}

TEST(ChangeTallyTest, ARangeIsTheDifferenceOfTwoReadings) {
  ChangeTally before{10, 2, 4, 1, 1};
  ChangeTally after{15, 3, 6, 2, 1, 4, 1};
  ChangeTally range = after - before;
  EXPECT_EQ(range.unverified, 4u);  // a snapshot of the last commit, not a sum
  EXPECT_EQ(range.unresolved, 1u);
  EXPECT_EQ(range.commits, 5u);
  EXPECT_EQ(range.commits_with_changes, 1u);
  EXPECT_EQ(range.changes, 2u);
  EXPECT_EQ(range.breaking, 1u);
  EXPECT_EQ(range.failed, 0u);
}

}  // namespace
}  // namespace aaw
