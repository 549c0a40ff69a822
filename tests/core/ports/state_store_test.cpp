// The StateStore port: its contract run against the in-memory store the core's tests use (the
// SQLite store runs the same suite in tests/io/sqlite/sqlite_state_store_test.cpp), and the rules
// the port defines for every store.
#include "core/ports/state_store.hpp"

#include <gtest/gtest.h>

#include "support/memory_state_store.hpp"
#include "support/state_store_contract.hpp"

namespace aaw::test {
namespace {

struct MemoryStoreMaker {
  std::unique_ptr<StateStore> make() { return std::make_unique<InMemoryStateStore>(); }
};

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(InMemory, StateStoreContract, MemoryStoreMaker);

namespace {

TEST(StateStoreTest, AnEventIsTheSameByItsCommitAndFunctionWhateverItsTime) {
  Json event = contract_event(sha(1), contract_function(0), "t1");
  Json later = contract_event(sha(1), contract_function(0), "t2");
  later["detail"] = "worded otherwise";
  EXPECT_EQ(event_identity(event), event_identity(later));
  EXPECT_NE(event_identity(event), event_identity(contract_event(sha(2), contract_function(0), "t1")));
  Json plain = {{"type", "rewrite"}, {"time", "t1"}, {"head", "abc"}};
  Json plain_later = {{"type", "rewrite"}, {"time", "t2"}, {"head", "abc"}};
  EXPECT_EQ(event_identity(plain), event_identity(plain_later));
}

TEST(StateStoreTest, AChangeNamesItsFunctionAndItsOwnCommit) {
  auto function = function_of_change(contract_change(sha(1), contract_function(3)), sha(1));
  ASSERT_TRUE(function);
  EXPECT_EQ(*function, contract_function(3));
  auto elsewhere = function_of_change(contract_change(sha(2), contract_function(3)), sha(1));
  ASSERT_FALSE(elsewhere);
  EXPECT_EQ(elsewhere.error().code(), ErrorCode::invalid_input);
  EXPECT_FALSE(function_of_change(Json{{"commit", sha(1).hex}}, sha(1)));
}

}  // namespace
}  // namespace aaw::test
