// with_registered_ops on a fake registry: a torch.ops call becomes a call site of the function
// registering its op, or stays unchecked with the reason.
#include "core/consumer/consumer_ops.hpp"

#include <gtest/gtest.h>

#include "support/fake_call_binder.hpp"

namespace aaw {
namespace {

class FakeRegistry : public OpRegistry {
 public:
  OpRegistrations answer;
  std::vector<std::string> asked_ops, asked_modules;
  int calls = 0;
  Result<OpRegistrations> registered_ops(const ObjectId&, const std::string&,
                                         const std::vector<std::string>& modules,
                                         const std::vector<std::string>& ops) override {
    ++calls;
    asked_ops = ops;
    asked_modules = modules;
    return answer;
  }
};

UncheckedSite op_call(const std::string& op, int line) {
  return {"s.py", line, "Sampler.sample", "call of torch.ops.aiter." + op, op, test::site("s.py", line, 2)};
}

class ConsumerOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_scan.package = "aiter";
    m_scan.document = {{"modules", {{{"name", "aiter.ops.sampling"}, {"files", {"s.py"}}}}}};
    m_scan.functions.push_back({{"from aiter.ops.sampling import top_k", "top_k"},
                                "aiter.ops.sampling.top_k",
                                {test::site("t.py", 4, 1)}});
    m_scan.unchecked = {op_call("top_k", 10),
                        op_call("renorm", 11),
                        op_call("flags", 12),
                        op_call("nowhere", 13),
                        {"d.py", 1, "f", "importlib.import_module(name)", "", std::nullopt}};
    m_registry.answer.modules_searched = 7;
    m_registry.answer.ops = {{"top_k", RegisteredOp{{"from aiter.ops.sampling import top_k", "top_k"},
                                                    "aiter.ops.sampling.top_k",
                                                    "direct_register_custom_op at x.py:3"}},
                             {"renorm", RegisteredOp{{"from aiter.ops.sampling import renorm", "renorm"},
                                                     "aiter.ops.sampling.renorm",
                                                     "direct_register_custom_op at x.py:9"}},
                             {"flags", RegisteredOp{{"from aiter.ops.misc import get_flags", "get_flags"},
                                                    "aiter.ops.misc.get_flags",
                                                    "@compile_ops at y.py:2",
                                                    true}},
                             {"nowhere", std::nullopt}};
  }
  ConsumerScan m_scan;
  FakeRegistry m_registry;
};

TEST_F(ConsumerOpsTest, ACallOfARegisteredOpBecomesACallOfItsFunction) {
  auto out = with_registered_ops(m_scan, m_registry, ObjectId{"c1"});
  ASSERT_TRUE(out) << out.error().message();
  ASSERT_EQ(out->functions.size(), 2u);
  const ConsumerFunction& top_k = out->functions[0];
  ASSERT_EQ(top_k.call_sites.size(), 2u) << "joins the function's own entry";
  EXPECT_EQ(top_k.call_sites[1].line, 10);
  EXPECT_EQ(*top_k.call_sites[1].indirect,
            "through torch.ops.aiter.top_k, registered by direct_register_custom_op at x.py:3");
  EXPECT_EQ(out->functions[1].target, "aiter.ops.sampling.renorm");
  EXPECT_EQ(out->functions[1].function.import_statement, "from aiter.ops.sampling import renorm");
  EXPECT_EQ(m_registry.asked_ops, (std::vector<std::string>{"flags", "nowhere", "renorm", "top_k"}));
  EXPECT_EQ(m_registry.asked_modules, (std::vector<std::string>{"aiter.ops.sampling"}));
}

TEST_F(ConsumerOpsTest, AnOpRegisteredNowhereOrWithALeadingTensorStaysUncheckedWithTheReason) {
  auto out = with_registered_ops(m_scan, m_registry, ObjectId{"c1"});
  ASSERT_TRUE(out);
  ASSERT_EQ(out->unchecked.size(), 3u);
  EXPECT_EQ(out->unchecked[0].what,
            "call of torch.ops.aiter.flags: the op's schema starts with a tensor get_flags does not declare "
            "(@compile_ops at y.py:2)");
  EXPECT_EQ(
      out->unchecked[1].what,
      "call of torch.ops.aiter.nowhere: no registration of 'nowhere' in the 7 modules importing aiter and "
      "the consumer's imports load");
  EXPECT_EQ(out->unchecked[2].what, "importlib.import_module(name)");
  m_registry.answer.unknown = "the modules importing aiter loads cannot be told statically";
  m_registry.answer.ops["top_k"] = std::nullopt;
  out = with_registered_ops(m_scan, m_registry, ObjectId{"c1"});
  ASSERT_TRUE(out);
  EXPECT_EQ(out->unchecked[0].what,
            "call of torch.ops.aiter.top_k: the modules importing aiter loads cannot be told statically");
}

TEST_F(ConsumerOpsTest, WithoutTorchOpCallsTheRegistryIsNotAsked) {
  m_scan.unchecked.resize(0);
  auto out = with_registered_ops(m_scan, m_registry, ObjectId{"c1"});
  ASSERT_TRUE(out);
  EXPECT_EQ(m_registry.calls, 0);
}

TEST_F(ConsumerOpsTest, ARegistryThatFailsNamesTheCommit) {
  class Failing : public OpRegistry {
    Result<OpRegistrations> registered_ops(const ObjectId&, const std::string&,
                                           const std::vector<std::string>&,
                                           const std::vector<std::string>&) override {
      return Error(ErrorCode::not_found, "tree missing");
    }
  } failing;
  auto out = with_registered_ops(m_scan, failing, ObjectId{"c1c1c1c1c1c1c1"});
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message(), "finding the torch.ops registrations at c1c1c1c1c1c1: tree missing");
}

}  // namespace
}  // namespace aaw
