#include "core/compare/gate.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/sample_comparison.hpp"

namespace aaw {
namespace {

using testing::sample_gate_comparison;

Waiver waiver_for(const Comparison& c, std::size_t change, std::optional<std::int64_t> expires_after = {}) {
  Waiver w = testing::waiver_of(c, change);
  if (expires_after) w.expires = "2026-01-01", w.expires_after = expires_after;
  return w;
}

TEST(GateTest, TheDocumentIsVersionedAndKeepsTheCompareKeys) {
  Json doc = compare_document(sample_gate_comparison(), {});
  EXPECT_EQ(doc["schema"], "aiter-api-watcher/compare/1");
  EXPECT_EQ(doc["old"], std::string(40, 'a'));
  const Json& f = doc["functions"][0];
  EXPECT_EQ(f["old"]["text"], "(a, b: int, *, c=1)");
  EXPECT_EQ(f["new_location"]["line"], 12);
  EXPECT_EQ(f["consumer_impact"]["call_sites"], 3);
  EXPECT_EQ(f["changes"][0]["kind"], "parameter_removed");
  EXPECT_EQ(f["changes"][0]["description"], "breaking: parameter 'b' removed (was 'b: int')");
}

TEST(GateTest, DeniedChangesFailTheGate) {
  GateOptions options;
  options.levels.fail_on = FailOn::breaking;
  Json doc = compare_document(sample_gate_comparison(), options);
  EXPECT_EQ(doc["functions"][0]["changes"][0]["level"], "deny");
  EXPECT_EQ(doc["functions"][0]["changes"][1]["level"], "warn");
  EXPECT_EQ(doc["summary"]["failing"], 1);
  EXPECT_EQ(doc["exit_code"], 1);
}

TEST(GateTest, AnErrorOfTheRunIsInTheDocumentAndMakesItTwoWhateverTheChanges) {
  GateOptions options;
  options.levels.fail_on = FailOn::breaking;
  EXPECT_TRUE(compare_document(sample_gate_comparison(), options)["errors"].empty());
  options.errors = {"'pkg.tpok' is found at neither commit"};
  Json doc = compare_document(sample_gate_comparison(), options);
  EXPECT_EQ(doc["errors"], Json::array({"'pkg.tpok' is found at neither commit"}));
  EXPECT_EQ(doc["summary"]["failing"], 1);
  EXPECT_EQ(doc["exit_code"], 2) << "an error comes before a failing change: the run cannot be trusted";
}

TEST(GateTest, AWaivedChangeIsShownAsAcceptedAndDoesNotFail) {
  Comparison c = sample_gate_comparison();
  GateOptions options;
  options.levels.fail_on = FailOn::breaking;
  options.waivers.path = "w.json";
  options.waivers.waivers = {waiver_for(c, 0)};
  Json doc = compare_document(c, options);
  const Json& removed = doc["functions"][0]["changes"][0];
  EXPECT_TRUE(removed["accepted"]);
  EXPECT_EQ(removed["waiver"]["accepted_by"], "ann");
  EXPECT_EQ(doc["summary"]["accepted"], 1);
  EXPECT_TRUE(doc["waivers"]["unused"].empty());
  EXPECT_EQ(doc["exit_code"], 0);
}

TEST(GateTest, AnExpiredWaiverDoesNotApplyAndIsReported) {
  Comparison c = sample_gate_comparison();
  GateOptions options;
  options.levels.fail_on = FailOn::breaking;
  options.now = 2000;
  options.waivers.waivers = {waiver_for(c, 0, 1000)};
  Json doc = compare_document(c, options);
  EXPECT_FALSE(doc["functions"][0]["changes"][0]["accepted"]);
  EXPECT_TRUE(doc["functions"][0]["changes"][0]["waiver"]["expired"]);
  ASSERT_EQ(doc["waivers"]["expired"].size(), 1u);
  EXPECT_EQ(doc["exit_code"], 1);
}

TEST(GateTest, AnUnusedWaiverIsReportedAndFailsOnlyWhenStrict) {
  Comparison c = sample_gate_comparison();
  GateOptions options;
  options.levels.by_kind = {{ChangeKind::parameter_removed, Level::warn},
                            {ChangeKind::default_changed, Level::allow}};
  Waiver stale = waiver_for(c, 0);
  stale.fingerprint = "0123456789abcdef";
  options.waivers.waivers = {stale};
  Json doc = compare_document(c, options);
  ASSERT_EQ(doc["waivers"]["unused"].size(), 1u);
  EXPECT_EQ(doc["waivers"]["unused"][0]["fingerprint"], "0123456789abcdef");
  EXPECT_EQ(doc["exit_code"], 0);
  options.strict_waivers = true;
  EXPECT_EQ(compare_document(c, options)["exit_code"], 1);
}

TEST(GateTest, LogsTheVerdictAndUnusedWaiversEvenWithoutAWaiversFile) {
  Comparison c = sample_gate_comparison();
  GateOptions options;
  Waiver stale = waiver_for(c, 0);
  stale.fingerprint = "0123456789abcdef";
  options.waivers.waivers = {stale};
  auto log = null_logger();
  EXPECT_NO_THROW(log_gate(*log, compare_document(c, options)));
}

TEST(GateTest, SuggestsAWaiverForEachChangeNotAcceptedYet) {
  Comparison c = sample_gate_comparison();
  GateOptions options;
  options.waivers.waivers = {waiver_for(c, 0)};
  Json suggested = suggest_waivers(c, compare_document(c, options));
  ASSERT_EQ(suggested["waivers"].size(), 1u);
  EXPECT_EQ(suggested["waivers"][0]["kind"], "default_changed");
  EXPECT_EQ(suggested["waivers"][0]["reason"], "");
}

}  // namespace
}  // namespace aaw
