// CachedOpRegistry over a fake registry and an in-memory cache: the same question is answered from
// the cache, anything else in it (commit, package, modules, ops, context) asks again, errors are
// not kept, and a damaged answer is asked again.
#include "core/consumer/cached_op_registry.hpp"

#include <gtest/gtest.h>

#include "support/memory_result_cache.hpp"

namespace aaw {
namespace {

class CountingRegistry : public OpRegistry {
 public:
  int calls = 0;
  bool failing = false;
  Result<OpRegistrations> registered_ops(const ObjectId& commit, const std::string&,
                                         const std::vector<std::string>& modules,
                                         const std::vector<std::string>& ops) override {
    ++calls;
    if (failing) return Error(ErrorCode::not_found, "commit " + commit.hex + " is not in the mirror");
    OpRegistrations out;
    out.modules_searched = modules.size() + 40;
    for (const std::string& op : ops)
      if (op == "nowhere")
        out.ops[op] = std::nullopt;
      else
        out.ops[op] =
            RegisteredOp{{"from aiter.ops.sampling import " + op, op},
                         "aiter.ops.sampling." + op,
                         "direct_register_custom_op at aiter/ops/sampling.py:" + std::to_string(op.size()),
                         op == "flags"};
    return out;
  }
};

const ObjectId k_commit{std::string(40, 'a')};
const ObjectId k_other{std::string(40, 'b')};

class CachedOpRegistryTest : public ::testing::Test {
 protected:
  Result<OpRegistrations> ask(const ObjectId& commit = k_commit,
                              std::vector<std::string> modules = {"aiter.ops"},
                              std::vector<std::string> ops = {"top_k", "flags", "nowhere"}) {
    return m_cached.registered_ops(commit, "aiter", modules, ops);
  }
  CountingRegistry m_inner;
  test::MemoryResultCache m_cache;
  CachedOpRegistry m_cached{m_inner, m_cache, "{\"source_roots\":[]}"};
};

TEST_F(CachedOpRegistryTest, TheSameQuestionIsAnsweredFromTheCacheWithTheSameAnswer) {
  auto first = ask();
  ASSERT_TRUE(first) << first.error().message();
  auto second = ask();
  ASSERT_TRUE(second) << second.error().message();
  EXPECT_EQ(m_inner.calls, 1);
  EXPECT_EQ(m_cache.hits, 1);
  EXPECT_EQ(op_registrations_to_json(*second), op_registrations_to_json(*first));
  EXPECT_EQ(second->modules_searched, 41u);
  EXPECT_FALSE(second->ops.at("nowhere").has_value());
  EXPECT_TRUE(second->ops.at("flags")->prepends_tensor);
  EXPECT_EQ(second->ops.at("top_k")->target, "aiter.ops.sampling.top_k");
}

TEST_F(CachedOpRegistryTest, AnotherCommitModuleListOpListOrContextAsksAgain) {
  ASSERT_TRUE(ask());
  ASSERT_TRUE(ask(k_other));
  ASSERT_TRUE(ask(k_commit, {"aiter.ops", "aiter.mla"}));
  ASSERT_TRUE(ask(k_commit, {"aiter.ops"}, {"top_k"}));
  CachedOpRegistry other_roots(m_inner, m_cache, "{\"source_roots\":[\"src\"]}");
  ASSERT_TRUE(other_roots.registered_ops(k_commit, "aiter", {"aiter.ops"}, {"top_k", "flags", "nowhere"}));
  EXPECT_EQ(m_inner.calls, 5);
  EXPECT_EQ(m_cache.hits, 0);
}

TEST_F(CachedOpRegistryTest, AnErrorIsPassedOnAndNotKept) {
  m_inner.failing = true;
  auto failed = ask();
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message().find("not in the mirror"), std::string::npos);
  EXPECT_EQ(m_cache.puts, 0);
  m_inner.failing = false;
  ASSERT_TRUE(ask());
  EXPECT_EQ(m_inner.calls, 2);
}

TEST_F(CachedOpRegistryTest, ADamagedAnswerIsAskedAgainAndReplaced) {
  ASSERT_TRUE(ask());
  ASSERT_EQ(m_cache.stored.size(), 1u);
  for (const char* damaged : {"[]", "{\"ops\":{\"top_k\":7},\"searched\":1,\"unknown\":\"\"}",
                              "{\"ops\":{\"top_k\":{\"target\":\"x\"}},\"searched\":1,\"unknown\":\"\"}",
                              "{\"ops\":{},\"searched\":-1,\"unknown\":\"\"}"}) {
    m_cache.stored.begin()->second = damaged;
    auto again = ask();
    ASSERT_TRUE(again) << damaged;
    EXPECT_EQ(again->ops.at("top_k")->target, "aiter.ops.sampling.top_k") << damaged;
  }
  EXPECT_EQ(m_inner.calls, 5);
  EXPECT_TRUE(op_registrations_from_json(Json::parse(m_cache.stored.begin()->second)).has_value());
}

}  // namespace
}  // namespace aaw
