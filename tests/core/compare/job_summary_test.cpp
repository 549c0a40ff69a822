#include "core/compare/job_summary.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/compare/gate.hpp"
#include "support/sample_comparison.hpp"

namespace aaw {
namespace {

TEST(JobSummaryTest, ARowPerChangeWithSeveritySignaturesAndBrokenCallSites) {
  GateOptions options;
  options.levels.fail_on = FailOn::breaking;
  std::string md = render_job_summary(compare_document(testing::sample_gate_comparison(), options));
  EXPECT_NE(md.find("**❌ Failing**: 2 changes in 1 of 2 functions — 1 denied and not waived"),
            std::string::npos)
      << md;
  EXPECT_NE(
      md.find(
          "| ❌ denied | deny | breaking | `` m.f `` | `` breaking: parameter 'b' removed (was 'b: int') `` | "
          "`` (a, b: int, *, c=1) `` | `` (a, *, c=2) `` | 1 of 3: `` consumer/use.py:7 `` |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("compare --suggest-waivers"), std::string::npos);
}

TEST(JobSummaryTest, ListsAcceptedChangesAndUnusedWaivers) {
  auto c = testing::sample_gate_comparison();
  GateOptions options;
  Waiver used = testing::waiver_of(c), unused = used;
  unused.fingerprint = "0123456789abcdef";
  options.waivers.waivers = {used, unused};
  std::string md = render_job_summary(compare_document(c, options));
  EXPECT_NE(md.find("| ✅ accepted |"), std::string::npos) << md;
  EXPECT_NE(md.find("### Accepted changes\n\n- `" + used.fingerprint + "` m.f"), std::string::npos) << md;
  EXPECT_NE(md.find("### Unused waivers\n\n- `0123456789abcdef` (ann: planned): matches no change"),
            std::string::npos);
}

TEST(JobSummaryTest, TableCellsEscapePipes) {
  EXPECT_EQ(markdown_code_cell("int | None\n"), "`` int \\| None  ``");
}

}  // namespace
}  // namespace aaw
