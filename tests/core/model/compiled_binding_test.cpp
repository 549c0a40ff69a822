// A compile_ops stub against its binding, on the shapes aiter's history really has: grouped_topk's
// topk_group/topk_grp, fmoe_fp8_blockscale_g1u1's reordered binding (b0c4ed67e2), a binding without
// py::arg, an overload, a ctypes entry point, and the binding facet of a change.
#include "core/model/compiled_binding.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/sample_values.hpp"

namespace aaw {
namespace {

using test::param;

Signature sig(std::vector<Parameter> parameters) { return Signature{std::move(parameters), std::nullopt}; }

CompiledBinding pybind(std::vector<Parameter> parameters) {
  CompiledBinding b;
  b.name = "f";
  b.module = "module_f";
  b.file = "csrc/include/rocm_ops.hpp";
  b.line = 10;
  b.signature = sig(std::move(parameters));
  return b;
}

SignatureState stub_state(Signature stub, CompiledBinding binding) {
  SignatureState s = SignatureState::ok(std::move(stub));
  s.binding = std::move(binding);
  return s;
}

TEST(BindingDriftTest, AgreementIsNoDrift) {
  Signature stub = sig({param("gating_output", std::nullopt, "torch.Tensor"),
                        param("is_softmax", "True", "bool"), param("scale", "1.0", "float")});
  EXPECT_TRUE(binding_drift(
                  stub, pybind({param("gating_output"), param("is_softmax", "true"), param("scale", "1.0f")}))
                  .empty());
}

TEST(BindingDriftTest, ARenamedParameterSaysWhichKeywordFails) {
  Signature stub = sig({param("gating_output"), param("topk_group")});
  auto drift = binding_drift(stub, pybind({param("gating_output"), param("topk_grp")}));
  ASSERT_EQ(drift.size(), 1u);
  EXPECT_EQ(drift[0].kind, DriftKind::name);
  EXPECT_EQ(drift[0].parameter, "topk_group");
  EXPECT_EQ(drift[0].sentence,
            "the stub's 'topk_group' is 'topk_grp' in the binding: a call passing topk_group= fails");
}

TEST(BindingDriftTest, AReorderedBindingWithAnAddedParameter) {
  // b0c4ed67e2: input_scale moved ahead of fc1_scale, fc2_scale in the binding, activation added.
  Signature stub = sig({param("out"), param("fc1_scale"), param("fc2_scale"), param("input_scale")});
  auto drift = binding_drift(stub, pybind({param("out"), param("input_scale"), param("fc1_scale"),
                                           param("fc2_scale"), param("activation")}));
  ASSERT_EQ(drift.size(), 4u);
  EXPECT_EQ(drift[0].kind, DriftKind::count);
  EXPECT_EQ(drift[0].sentence, "the stub takes 4 parameters, the binding 5; only the binding has activation");
  EXPECT_EQ(drift[1].kind, DriftKind::order);
  EXPECT_EQ(
      drift[1].sentence,
      "'fc1_scale' is at position 1 in the stub but 2 in the binding: a caller passing it by position gives "
      "it to 'input_scale'");
  EXPECT_EQ(drift[3].parameter, "input_scale");
}

TEST(BindingDriftTest, ADefaultOnlyTheStubGivesOrAnotherValue) {
  Signature stub =
      sig({param("x"), param("n", "0"), param("eps", "1e-06"), param("kind", "ActivationType.Silu")});
  auto drift = binding_drift(
      stub, pybind({param("x"), param("n"), param("eps", "1e-5f"), param("kind", "ActivationType::Silu")}));
  ASSERT_EQ(drift.size(), 2u);
  EXPECT_EQ(drift[0].sentence,
            "the stub gives 'n' a default (0), the binding none: a call leaving it out fails");
  EXPECT_EQ(drift[1].kind, DriftKind::default_value);
  EXPECT_EQ(drift[1].parameter, "eps");  // an enum member is not a literal: never compared
}

TEST(BindingDriftTest, ABindingWithoutPyArgFailsEveryKeywordCall) {
  CompiledBinding b = pybind({});
  b.named = false;
  auto drift = binding_drift(sig({param("input"), param("output")}), b);
  ASSERT_EQ(drift.size(), 1u);
  EXPECT_EQ(drift[0].kind, DriftKind::unnamed);
  EXPECT_TRUE(binding_drift(sig({}), b).empty());
}

TEST(BindingDriftTest, TheClosestOverloadCounts) {
  CompiledBinding b = pybind({param("x"), param("factor")});
  b.overloads.push_back(sig({param("x"), param("int_factor")}));
  EXPECT_TRUE(binding_drift(sig({param("x"), param("int_factor")}), b).empty());
  EXPECT_EQ(binding_drift(sig({param("x"), param("other")}), b).size(), 1u);
}

TEST(BindingDriftTest, CtypesSeesCountAndOrderButNotNames) {
  CompiledBinding b = pybind({param("Q_"), param("K_"), param("max_qlen")});
  b.kind = BindingKind::ctypes;
  EXPECT_TRUE(binding_drift(sig({param("Q"), param("K"), param("max_qlen", "1")}), b).empty());
  auto drift = binding_drift(sig({param("Q"), param("K")}), b);
  ASSERT_EQ(drift.size(), 1u);
  EXPECT_EQ(drift[0].sentence,
            "the stub takes 2 parameters, the C function 3; only the C function has Q_, K_, "
            "max_qlen; only the stub has Q, K");
}

TEST(BindingDriftTest, AnUnresolvedBindingHasNoDrift) {
  CompiledBinding b;
  b.resolved = false;
  b.detail = "no source of 'module_x' defines a PYBIND11_MODULE";
  EXPECT_TRUE(binding_drift(sig({param("x")}), b).empty());
}

TEST(BindingDiffTest, ABindingOnlyChangeIsABindingChangeAndDriftAppears) {
  Signature stub = sig({param("out"), param("fc1_scale"), param("input_scale")});
  SignatureState before = stub_state(stub, pybind({param("out"), param("fc1_scale"), param("input_scale")}));
  SignatureState after = stub_state(stub, pybind({param("out"), param("input_scale"), param("fc1_scale")}));
  auto changes = diff_states(before, after);
  ASSERT_FALSE(changes.empty());
  for (const Change& c : changes) EXPECT_EQ(c.facet, Facet::binding) << c.describe();
  EXPECT_EQ(changes[0].kind, ChangeKind::parameter_moved);
  EXPECT_EQ(changes[0].describe(), "breaking: binding parameter 'fc1_scale' moved from position 1 to 2");
  EXPECT_EQ(changes.back().kind, ChangeKind::drift_appeared);
  EXPECT_EQ(highest(changes), Severity::breaking);
  EXPECT_EQ(to_json(changes[0])["facet"], "binding");
  auto back = change_from_json(to_json(changes[0]));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, changes[0]);
}

TEST(BindingDiffTest, AChangeMadeToStubAndBindingAlikeIsSaidOnce) {
  SignatureState before = stub_state(sig({param("x")}), pybind({param("x")}));
  SignatureState after =
      stub_state(sig({param("x"), param("n", "0")}), pybind({param("x"), param("n", "0")}));
  auto changes = diff_states(before, after);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].facet, Facet::signature);
}

TEST(BindingDiffTest, DriftGoingAwayIsCompatible) {
  SignatureState before = stub_state(sig({param("topk_group")}), pybind({param("topk_grp")}));
  SignatureState after = stub_state(sig({param("topk_grp")}), pybind({param("topk_grp")}));
  auto changes = diff_states(before, after);
  ASSERT_EQ(changes.back().kind, ChangeKind::drift_resolved);
  EXPECT_EQ(changes.back().severity, Severity::compatible);
}

TEST(BindingDiffTest, NoBindingOnOneSideIsNoBindingChange) {
  // States recorded before bindings were read have none: the first new state must not look changed.
  SignatureState before = SignatureState::ok(sig({param("topk_group")}));
  SignatureState after = stub_state(sig({param("topk_group")}), pybind({param("topk_grp")}));
  EXPECT_TRUE(diff_states(before, after).empty());
}

TEST(BindingDiffTest, ABindingThatCannotBeReadAnyMoreIsUnknown) {
  CompiledBinding unreadable;
  unreadable.resolved = false;
  unreadable.detail = "macro X is defined more than once";
  SignatureState before = stub_state(sig({param("x")}), pybind({param("x")}));
  SignatureState after = stub_state(sig({param("x")}), unreadable);
  auto changes = diff_states(before, after);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].severity, Severity::unknown);
  EXPECT_EQ(changes[0].new_text, "unresolved: macro X is defined more than once");
}

TEST(BindingDiffTest, AnOpMovedFromPybind11ToCtypesIsOneCompatibleChange) {
  // aiter moved ops to ctypes: the C parameters are positional, yet calls bind by the stub's names.
  Signature stub = sig({param("out"), param("topk")});
  CompiledBinding c_function = pybind({param("out"), param("topk")});
  c_function.kind = BindingKind::ctypes;
  for (Parameter& p : c_function.signature.parameters) p.kind = ParameterKind::positional_only;
  auto changes =
      diff_states(stub_state(stub, pybind({param("out"), param("topk")})), stub_state(stub, c_function));
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].kind, ChangeKind::state_changed);
  EXPECT_EQ(changes[0].severity, Severity::compatible);
  EXPECT_EQ(changes[0].new_text, "ctypes f(out, topk, /)");
}

TEST(BindingJsonTest, AStateWithABindingRoundTripsAndShowsItsDrift) {
  CompiledBinding b = pybind({param("gating_output"), param("topk_grp")});
  b.overloads.push_back(sig({param("gating_output")}));
  SignatureState state = stub_state(sig({param("gating_output"), param("topk_group")}), b);
  Json json = to_json(state);
  EXPECT_EQ(json["binding"]["text"], "(gating_output, topk_grp)");
  EXPECT_EQ(json["binding"]["kind"], "pybind11");
  ASSERT_EQ(json["binding_drift"].size(), 1u);
  EXPECT_EQ(json["binding_drift"][0]["kind"], "name");
  auto back = state_from_json(json);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, state);
}

}  // namespace
}  // namespace aaw
