#include "core/compare/levels.hpp"

#include <gtest/gtest.h>

#include "support/sample_values.hpp"

namespace aaw {
namespace {

using test::k_b_removed;

const Change k_default{ChangeKind::default_changed, Severity::behavioural, "c", "1", "2"};

TEST(LevelsTest, WithFailOnAnyEveryChangeIsDenied) {
  LevelPolicy policy;
  EXPECT_EQ(policy.level_of(k_b_removed), Level::deny);
  EXPECT_EQ(policy.level_of(k_default), Level::deny);
}

TEST(LevelsTest, WithFailOnBreakingOnlyBreakingChangesAreDenied) {
  LevelPolicy policy{{}, FailOn::breaking};
  EXPECT_EQ(policy.level_of(k_b_removed), Level::deny);
  EXPECT_EQ(policy.level_of(k_default), Level::warn);
}

TEST(LevelsTest, AConfiguredLevelWinsOverFailOnAndSeverity) {
  LevelPolicy policy{
      {{ChangeKind::parameter_removed, Level::warn}, {ChangeKind::default_changed, Level::deny}},
      FailOn::breaking};
  EXPECT_EQ(policy.level_of(k_b_removed), Level::warn);
  EXPECT_EQ(policy.level_of(k_default), Level::deny);
}

TEST(LevelsTest, ParsesTheThreeLevelNamesOnly) {
  EXPECT_EQ(parse_level("allow"), Level::allow);
  EXPECT_EQ(parse_level("deny"), Level::deny);
  EXPECT_FALSE(parse_level("error"));
  EXPECT_EQ(change_kind_names().size(), 14u);
  EXPECT_EQ(change_kind_names().back(), "drift_resolved");
}

}  // namespace
}  // namespace aaw
