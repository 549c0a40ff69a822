// What a change does to a consumer's call sites, on fakes: which sites it breaks, what it says
// when it breaks none, and the JSON every output carries.
#include "core/consumer/consumer_impact.hpp"

#include <gtest/gtest.h>

#include "support/fake_call_binder.hpp"

namespace aaw {
namespace {

const MonitoredFunction k_a{"import aiter", "aiter.a"};

class ConsumerImpactTest : public ::testing::Test {
 protected:
  ConsumerImpactTest() : m_assessor(scan(), m_binder) {}
  static ConsumerScan scan() {
    ConsumerScan s;
    s.functions.push_back(
        {k_a,
         "aiter.a",
         {test::site("a.py", 3, 3), test::site("b.py", 4, 9), test::site("c.py", 5, 3, {"hasattr probe"})}});
    return s;
  }
  Result<std::optional<ConsumerImpact>> assess(int before, int after) {
    SignatureState was = test::params(before);
    return m_assessor.assess(k_a, &was, test::params(after));
  }
  test::FakeCallBinder m_binder;
  ImpactAssessor m_assessor;
};

TEST_F(ConsumerImpactTest, ASiteThatBoundBeforeAndFailsAfterIsBroken) {
  auto impact = assess(3, 2);
  ASSERT_TRUE(impact);
  ASSERT_TRUE(impact->has_value());
  const ConsumerImpact& i = **impact;
  EXPECT_EQ(i.call_sites, 3u);
  ASSERT_EQ(i.broken.size(), 2u);  // b.py never bound: not this change's doing
  EXPECT_EQ(i.broken[0].describe(), "breaks a.py:3 (f): too many positional arguments");
  EXPECT_TRUE(i.breaks_consumer());
  EXPECT_EQ(i.summary(), "breaks 2 of the consumer's 3 call sites");
  EXPECT_EQ(m_binder.calls, 1);  // both sides in one call to the interpreter
}

TEST_F(ConsumerImpactTest, AGuardedSiteIsReportedButDoesNotBreakTheConsumer) {
  ConsumerScan only_guarded;
  only_guarded.functions.push_back({k_a, "aiter.a", {test::site("c.py", 5, 1, {"hasattr probe"})}});
  ImpactAssessor assessor(only_guarded, m_binder);
  SignatureState before = test::params(1);
  SignatureState gone = SignatureState::failed(Status::missing, "module 'aiter' has no 'a'");
  auto impact = assessor.assess(k_a, &before, gone);
  ASSERT_TRUE(impact && impact->has_value());
  ASSERT_EQ((*impact)->broken.size(), 1u);
  EXPECT_EQ((*impact)->broken[0].binding.verdict, Verdict::guarded);
  EXPECT_FALSE((*impact)->breaks_consumer());
  EXPECT_EQ((*impact)->summary(), "breaks none of the consumer's 1 call site (1 more fail behind a guard)");
}

// A call that cannot be checked against the new signature is listed and counted, never dropped,
// and goes through the JSON every output carries.
TEST_F(ConsumerImpactTest, ASiteThatCannotBeCheckedIsListedBesideTheBrokenOnes) {
  ConsumerScan forwarding = scan();
  CallSite star = test::site("d.py", 6, 1);
  star.star_args = true;
  forwarding.functions[0].call_sites.push_back(star);
  ImpactAssessor assessor(forwarding, m_binder);
  SignatureState before = test::params(3);
  auto impact = assessor.assess(k_a, &before, test::params(2));
  ASSERT_TRUE(impact && impact->has_value());
  const ConsumerImpact& i = **impact;
  ASSERT_EQ(i.unknown.size(), 1u);
  EXPECT_EQ(i.unknown[0].describe(), "unknown d.py:6 (f): the call forwards *args");
  EXPECT_EQ(i.summary(), "breaks 2 of the consumer's 4 call sites; 1 more cannot be checked");
  ASSERT_EQ(i.listed().size(), 3u);
  EXPECT_EQ(i.listed().back().site.file, "d.py");
  auto back = consumer_impact_from_json(to_json(i));
  ASSERT_TRUE(back);
  ASSERT_EQ(back->unknown.size(), 1u);
  EXPECT_EQ(back->unknown[0].binding.verdict, Verdict::unknown);
  EXPECT_EQ(back->summary(), i.summary());
}

TEST_F(ConsumerImpactTest, AChangeThatBreaksNothingSaysHowManySitesItSpared) {
  auto impact = assess(3, 5);
  ASSERT_TRUE(impact && impact->has_value());
  EXPECT_TRUE((*impact)->broken.empty());
  EXPECT_EQ((*impact)->summary(), "breaks none of the consumer's 3 call sites");
}

TEST_F(ConsumerImpactTest, UncalledFunctionsAndInitialSignaturesHaveNoImpact) {
  SignatureState was = test::params(1);
  auto other = m_assessor.assess({"import aiter", "aiter.b"}, &was, test::params(0));
  ASSERT_TRUE(other);
  EXPECT_FALSE(other->has_value());
  auto initial = m_assessor.assess(k_a, nullptr, test::params(0));
  ASSERT_TRUE(initial);
  EXPECT_FALSE(initial->has_value());
  EXPECT_EQ(m_binder.calls, 0);
}

TEST_F(ConsumerImpactTest, JsonRoundTripsEverySiteWithItsVerdictAndReason) {
  auto impact = assess(3, 2);
  ASSERT_TRUE(impact && impact->has_value());
  Json json = to_json(**impact);
  EXPECT_EQ(json.at("call_sites"), 3);
  EXPECT_EQ(json.at("breaks_consumer"), true);
  EXPECT_EQ(json.at("broken")[0].at("file"), "a.py");
  EXPECT_EQ(json.at("broken")[0].at("verdict"), "breaks");
  auto back = consumer_impact_from_json(json);
  ASSERT_TRUE(back) << back.error().message();
  ASSERT_EQ(back->broken.size(), 2u);
  EXPECT_EQ(back->broken[1].describe(), (*impact)->broken[1].describe());
  EXPECT_EQ(back->call_sites, 3u);
}

TEST_F(ConsumerImpactTest, MalformedJsonNamesTheFieldThatDoesNotFit) {
  Json json = {{"call_sites", 1}, {"broken", {{{"file", "a.py"}}}}};
  auto back = consumer_impact_from_json(json);
  ASSERT_FALSE(back);
  EXPECT_NE(back.error().message().find("consumer impact.broken[0]"), std::string::npos);
}

}  // namespace
}  // namespace aaw
