// BothSource over two fake sources: runtime states recorded, disagreements on names, kinds and
// defaults counted (annotations ignored), a static failure costing only the cross-check.
#include "extract/both_source.hpp"

#include <gtest/gtest.h>

#include "support/fake_signature_source.hpp"

namespace aaw {
namespace {

using test::FakeSignatureSource;

Parameter param(std::string name, std::optional<std::string> default_value = std::nullopt,
                ParameterKind kind = ParameterKind::positional_or_keyword,
                std::optional<std::string> annotation = std::nullopt) {
  return Parameter{std::move(name), kind, std::move(default_value), std::move(annotation)};
}

SignatureState ok(std::vector<Parameter> parameters, std::optional<std::string> returns = std::nullopt) {
  return SignatureState::ok(Signature{std::move(parameters), std::move(returns)});
}

class BothSourceTest : public ::testing::Test {
 protected:
  Result<std::vector<SignatureState>> extract() { return m_both.extract(ObjectId{"c1"}, m_functions); }

  std::vector<MonitoredFunction> m_functions = {{"import pkg", "pkg.f"}, {"import pkg", "pkg.g"}};
  FakeSignatureSource m_static;
  FakeSignatureSource m_runtime;
  std::shared_ptr<Logger> m_log = null_logger();
  BothSource m_both{m_static, m_runtime, *m_log};
};

TEST_F(BothSourceTest, RecordsTheRuntimeStates) {
  m_static.set("c1", {ok({param("a")}), SignatureState::failed(Status::unresolved, "made by a factory")});
  m_runtime.set("c1", {ok({param("a")}), ok({param("x"), param("y", "1")})});
  auto states = extract();
  ASSERT_TRUE(states);
  EXPECT_EQ((*states)[1], ok({param("x"), param("y", "1")}));
  EXPECT_EQ(m_static.asked(), std::vector<std::string>{"c1"});
  // One side sure of a signature and the other not (issue 10): worth a warning.
  EXPECT_EQ(m_both.disagreement_count(), 1u);
}

TEST_F(BothSourceTest, TheClosingSummaryCountsTheDisagreements) {
  m_static.set("c1", {ok({param("a")}), ok({param("b")})});
  m_runtime.set("c1", {ok({param("a")}), ok({param("c")})});
  ASSERT_TRUE(extract());
  EXPECT_EQ(m_both.work_summary(),
            "static and runtime extraction disagreed on 1 function state (runtime recorded)");
  ASSERT_TRUE(extract());
  EXPECT_EQ(m_both.work_summary(),
            "static and runtime extraction disagreed on 2 function states (runtime recorded)");
}

TEST_F(BothSourceTest, MachineryFailuresOnOneSideAreNoDisagreement) {
  m_static.set("c1", {ok({param("a")}), ok({param("b")})});
  m_runtime.set("c1", {SignatureState::failed(Status::build_failed, "build exited with status 1"),
                       SignatureState::failed(Status::extract_failed, "timed out")});
  ASSERT_TRUE(extract());
  EXPECT_EQ(m_both.disagreement_count(), 0u);
}

TEST_F(BothSourceTest, ComparesDefaultsByValueAndTrustsAStaticName) {
  m_static.set("c1", {ok({param("a", "0.000001"), param("b", "'x'")}), ok({param("c", "BLOCK_SIZE_M")})});
  m_runtime.set("c1", {ok({param("a", "1e-06"), param("b", "\"x\"")}), ok({param("c", "32")})});
  ASSERT_TRUE(extract());
  EXPECT_EQ(m_both.disagreement_count(), 0u);
  m_runtime.set("c1", {ok({param("a", "2e-06"), param("b", "'x'")}), ok({param("c", "32")})});
  ASSERT_TRUE(extract());
  EXPECT_EQ(m_both.disagreement_count(), 1u);
}

TEST_F(BothSourceTest, CountsDisagreementsOnNamesKindsAndDefaults) {
  m_static.set("c1", {ok({param("a"), param("b", "1")}), ok({param("k", "None")})});
  m_runtime.set("c1",
                {ok({param("a"), param("b", "2")}), ok({param("k", "None", ParameterKind::keyword_only)})});
  ASSERT_TRUE(extract());
  EXPECT_EQ(m_both.disagreement_count(), 2u);
}

TEST_F(BothSourceTest, IgnoresAnnotationSpelling) {
  m_static.set(
      "c1", {ok({param("a", std::nullopt, ParameterKind::positional_or_keyword, "Tensor")}, "None"), ok({})});
  m_runtime.set(
      "c1", {ok({param("a", std::nullopt, ParameterKind::positional_or_keyword, "torch.Tensor")}), ok({})});
  ASSERT_TRUE(extract());
  EXPECT_EQ(m_both.disagreement_count(), 0u);
}

TEST_F(BothSourceTest, StaticFailureCostsOnlyTheCrossCheck) {
  m_static.fail("c1", Error(ErrorCode::not_found, "object missing"));
  m_runtime.set("c1", {ok({param("a")}), ok({})});
  auto states = extract();
  ASSERT_TRUE(states);
  EXPECT_EQ((*states)[0], ok({param("a")}));
}

TEST_F(BothSourceTest, RuntimeFailureIsTheError) {
  m_static.set("c1", {ok({param("a")}), ok({})});
  m_runtime.fail("c1", Error(ErrorCode::git, "cannot check out"));
  auto states = extract();
  ASSERT_FALSE(states);
  EXPECT_EQ(states.error().message(), "cannot check out");
}

}  // namespace
}  // namespace aaw
