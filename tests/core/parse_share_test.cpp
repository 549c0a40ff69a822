// How the parsing is shared between a replay and the helper that parses ahead: which blobs the
// replay's share holds, and how the share follows which process is the busier.
#include "aaw/core/parse_share.hpp"

#include <gtest/gtest.h>

#include <string>

namespace aaw {
namespace {

ObjectId id_starting(char digit) { return ObjectId{std::string(1, digit) + std::string(39, '0')}; }

TEST(ParseShareTest, AShareHoldsTheBlobsWhoseFirstDigitFallsBelowIt) {
  EXPECT_FALSE(ParseShare::replay_parses(id_starting('0'), 0)) << "no share, no blob";
  EXPECT_TRUE(ParseShare::replay_parses(id_starting('0'), 1));
  EXPECT_FALSE(ParseShare::replay_parses(id_starting('1'), 1));
  EXPECT_TRUE(ParseShare::replay_parses(id_starting('7'), 8));
  EXPECT_FALSE(ParseShare::replay_parses(id_starting('8'), 8));
  EXPECT_TRUE(ParseShare::replay_parses(id_starting('e'), 16));
  EXPECT_TRUE(ParseShare::replay_parses(id_starting('E'), 16));
  EXPECT_FALSE(ParseShare::replay_parses(ObjectId{"zz"}, 16)) << "not an id";
  EXPECT_FALSE(ParseShare::replay_parses(ObjectId{""}, 16));
}

TEST(ParseShareTest, TheShareGrowsWhileTheHelperIsTheBusierUpToHalf) {
  ParseShare share;
  for (int step = 1; step <= ParseShare::k_most; ++step) {
    EXPECT_TRUE(share.balance(0.6, 1.0));
    EXPECT_EQ(share.share(), step);
  }
  EXPECT_FALSE(share.balance(0.6, 1.0)) << "never more than half";
  EXPECT_EQ(share.share(), ParseShare::k_most);
}

TEST(ParseShareTest, TheShareShrinksWhileTheReplayIsTheBusierDownToNone) {
  ParseShare share;
  share.balance(0.5, 1.0);
  share.balance(0.5, 1.0);
  EXPECT_TRUE(share.balance(1.0, 0.3));
  EXPECT_EQ(share.share(), 1);
  EXPECT_TRUE(share.balance(1.0, 0.3));
  EXPECT_FALSE(share.balance(1.0, 0.3));
  EXPECT_EQ(share.share(), 0);
}

TEST(ParseShareTest, TwoProcessesAboutAsBusyKeepTheShare) {
  ParseShare share;
  share.balance(0.5, 1.0);
  EXPECT_FALSE(share.balance(0.95, 1.0));
  EXPECT_FALSE(share.balance(1.0, 0.95));
  EXPECT_FALSE(share.balance(0.0, 0.0));
  EXPECT_EQ(share.share(), 1);
}

}  // namespace
}  // namespace aaw
