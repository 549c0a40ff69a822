#include "util/hash.hpp"

#include <gtest/gtest.h>

namespace aaw {
namespace {

// The published FNV-1a test vectors: these hashes are persisted, so they must never change.
TEST(HashTest, Fnv1aMatchesTheReferenceVectors) {
  EXPECT_EQ(fnv1a_32(""), 0x811c9dc5u);
  EXPECT_EQ(fnv1a_32("a"), 0xe40c292cu);
  EXPECT_EQ(fnv1a_32("foobar"), 0xbf9cf968u);
  EXPECT_EQ(fnv1a_64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a_64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a_64("foobar"), 0x85944171f73967e8ULL);
}

TEST(HashTest, Hex8IsEightLowercaseDigits) {
  EXPECT_EQ(hex8(0xbf9cf968u), "bf9cf968");
  EXPECT_EQ(hex8(0x1u), "00000001");
}

}  // namespace
}  // namespace aaw
