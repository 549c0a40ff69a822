#include "core/compare/sarif.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/compare/gate.hpp"
#include "support/sample_comparison.hpp"
#include "support/sample_values.hpp"

namespace aaw {
namespace {

Json sarif_of(const Comparison& c, const GateOptions& options = {}) {
  return render_sarif(compare_document(c, options), "9.9");
}

TEST(SarifTest, TheInvocationSaysWhetherTheRunWorkedAndWhyNot) {
  GateOptions options;
  options.levels.fail_on = FailOn::breaking;
  const Json clean = sarif_of(testing::sample_gate_comparison(), options)["runs"][0]["invocations"][0];
  EXPECT_EQ(clean["executionSuccessful"], true);
  EXPECT_EQ(clean["exitCode"], 1);
  EXPECT_TRUE(clean["toolExecutionNotifications"].empty());
  options.errors = {"the consumer cannot be read"};
  const Json failed = sarif_of(testing::sample_gate_comparison(), options)["runs"][0]["invocations"][0];
  EXPECT_EQ(failed["executionSuccessful"], false);
  EXPECT_EQ(failed["exitCode"], 2);
  EXPECT_EQ(failed["toolExecutionNotifications"][0]["level"], "error");
  EXPECT_EQ(failed["toolExecutionNotifications"][0]["message"]["text"], "the consumer cannot be read");
}

TEST(SarifTest, HasOneRuleWithHelpPerChangeKind) {
  Json sarif = sarif_of(testing::sample_gate_comparison());
  EXPECT_EQ(sarif["version"], "2.1.0");
  const Json& rules = sarif["runs"][0]["tool"]["driver"]["rules"];
  ASSERT_EQ(rules.size(), 14u);
  for (const Json& rule : rules) EXPECT_FALSE(rule["help"]["text"].get<std::string>().empty()) << rule["id"];
  EXPECT_EQ(rules[0]["id"], "parameter_removed");
}

TEST(SarifTest, AResultPerChangeAtTheNewDefLineWithLevelAndFingerprint) {
  Comparison c = testing::sample_gate_comparison();
  GateOptions options;
  options.levels.fail_on = FailOn::breaking;
  Json sarif = sarif_of(c, options);
  const Json& results = sarif["runs"][0]["results"];
  ASSERT_EQ(results.size(), 2u);
  const Json& removed = results[0];
  EXPECT_EQ(removed["ruleId"], "parameter_removed");
  EXPECT_EQ(removed["ruleIndex"], 0);
  EXPECT_EQ(removed["level"], "error");
  EXPECT_EQ(results[1]["level"], "warning");
  const Json& region = removed["locations"][0]["physicalLocation"];
  EXPECT_EQ(region["artifactLocation"]["uri"], "m/core.py");
  EXPECT_EQ(region["region"]["startLine"], 12);
  EXPECT_EQ(removed["partialFingerprints"]["aiterApiWatcher/v1"],
            change_fingerprint(c.functions[0].function, c.functions[0].changes[0]));
}

TEST(SarifTest, ARemovedFunctionPointsAtItsDefInTheOldCommit) {
  Comparison c = testing::sample_gate_comparison();
  FunctionComparison& f = c.functions[0];
  f.after = SignatureState::failed(Status::missing, "gone");
  f.changes = diff_states(f.before, f.after);
  f.new_location.reset();
  const Json sarif = sarif_of(c);
  const Json& result = sarif["runs"][0]["results"][0];
  EXPECT_EQ(result["ruleId"], "function_removed");
  EXPECT_EQ(result["locations"][0]["physicalLocation"]["region"]["startLine"], 10);
}

TEST(SarifTest, ABindingChangePointsAtTheBindingAndItsRuleSaysDrift) {
  Comparison c = testing::sample_gate_comparison();
  FunctionComparison& f = c.functions[0];
  CompiledBinding binding = test::binding_of(f.before.signature, 1372);
  f.before.binding = binding;
  f.after = f.before;
  binding.signature.parameters[1].name = "b_renamed";
  f.after.binding = binding;
  f.changes = diff_states(f.before, f.after);
  const Json sarif = sarif_of(c);
  const Json& results = sarif["runs"][0]["results"];
  ASSERT_FALSE(results.empty());
  for (const Json& result : results) {
    EXPECT_EQ(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
              "csrc/include/rocm_ops.hpp");
    EXPECT_EQ(result["locations"][0]["physicalLocation"]["region"]["startLine"], 1372);
  }
  EXPECT_EQ(results.back()["ruleId"], "drift_appeared");
  EXPECT_NE(results.back()["message"]["text"].get<std::string>().find("'b' is 'b_renamed' in the binding"),
            std::string::npos);
}

TEST(SarifTest, BrokenConsumerCallSitesAreRelatedLocations) {
  const Json sarif = sarif_of(testing::sample_gate_comparison());
  const Json& result = sarif["runs"][0]["results"][0];
  const Json& related = result["relatedLocations"][0];
  EXPECT_EQ(related["physicalLocation"]["artifactLocation"]["uri"], "consumer/use.py");
  EXPECT_EQ(related["physicalLocation"]["artifactLocation"]["uriBaseId"], "CONSUMER");
  EXPECT_EQ(related["physicalLocation"]["region"]["startLine"], 7);
}

TEST(SarifTest, AWaivedChangeCarriesAnAcceptedSuppression) {
  Comparison c = testing::sample_gate_comparison();
  GateOptions options;
  options.waivers.waivers = {testing::waiver_of(c)};
  const Json sarif = sarif_of(c, options);
  const Json& result = sarif["runs"][0]["results"][0];
  EXPECT_EQ(result["suppressions"][0]["status"], "accepted");
  EXPECT_EQ(result["suppressions"][0]["justification"], "planned (accepted by ann)");
}

}  // namespace
}  // namespace aaw
