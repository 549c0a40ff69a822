// How the parsing is shared between a replay and the helper that parses ahead: which blobs the
// replay's share holds, and how the share follows which process is the busier.
#include "core/watch/parse_share.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace aaw {
namespace {

TEST(ParseShareTest, AShareHoldsTheFilesWhosePathsFallInItsBuckets) {
  std::vector<std::string> paths;
  for (int i = 0; i < 1000; ++i) paths.push_back("pkg/module_" + std::to_string(i) + ".py");
  auto held = [&](int share) {
    int count = 0;
    for (const std::string& path : paths) count += ParseShare::replay_parses(path, share) ? 1 : 0;
    return count;
  };
  EXPECT_EQ(held(0), 0) << "no share, no file";
  EXPECT_EQ(held(ParseShare::k_buckets), 1000) << "every bucket, every file";
  EXPECT_NEAR(held(4), 250, 60) << "a quarter of the buckets, about a quarter of the files";
  for (const std::string& path : paths) {
    if (ParseShare::replay_parses(path, 4)) {
      EXPECT_TRUE(ParseShare::replay_parses(path, 5)) << "shares nest";
    }
  }
  EXPECT_EQ(ParseShare::replay_parses("aiter/__init__.py", 3),
            ParseShare::replay_parses("aiter/__init__.py", 3))
      << "a path's bucket is always the same";
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
