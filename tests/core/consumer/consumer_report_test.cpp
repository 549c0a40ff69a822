// The report's detail source for a consumer: the call sites each change breaks, on fakes.
#include "core/consumer/consumer_report.hpp"

#include <gtest/gtest.h>

#include "support/fake_call_binder.hpp"

namespace aaw {
namespace {

TimelineEntry change(SignatureState before, SignatureState after) {
  TimelineEntry entry;
  entry.commit = "c1";
  entry.before = std::move(before);
  entry.after = std::move(after);
  return entry;
}

class ConsumerReportTest : public ::testing::Test {
 protected:
  ConsumerReportTest() {
    ConsumerScan scan;
    scan.functions.push_back(
        {{"import aiter", "aiter.a"},
         "aiter.a",
         {test::site("z.py", 9, 1), test::site("a.py", 3, 3), test::site("b.py", 4, 9)}});
    m_source =
        std::make_unique<ConsumerDetailSource>(std::move(scan), std::make_unique<test::FakeCallBinder>());
  }
  std::unique_ptr<ConsumerDetailSource> m_source;
};

TEST_F(ConsumerReportTest, ListsTheCallSitesThatBoundBeforeAndBreakAfter) {
  auto tables = m_source->details({"import aiter", "aiter.a"}, change(test::params(3), test::params(2)));
  ASSERT_TRUE(tables);
  ASSERT_EQ(tables->size(), 1u);
  const DetailTable& table = tables->front();
  ASSERT_EQ(table.rows.size(), 1u);  // b.py never bound: not this change's doing
  EXPECT_EQ(table.rows[0],
            (std::vector<std::string>{"breaks", "a.py:3 (f)", "aiter.x", "too many positional arguments"}));
}

TEST_F(ConsumerReportTest, AChangeThatBreaksNoCallSiteSaysSo) {
  auto tables = m_source->details({"import aiter", "aiter.a"}, change(test::params(3), test::params(4)));
  ASSERT_TRUE(tables);
  EXPECT_TRUE(tables->front().rows.empty());
  EXPECT_EQ(tables->front().note, "breaks none of the consumer's 3 call sites of this function");
}

TEST_F(ConsumerReportTest, FunctionsTheConsumerDoesNotCallAndInitialSignaturesGetNoTable) {
  auto other = m_source->details({"import aiter", "aiter.b"}, change(test::params(3), test::params(0)));
  ASSERT_TRUE(other);
  EXPECT_TRUE(other->empty());
  TimelineEntry initial;
  initial.after = test::params(1);
  auto first = m_source->details({"import aiter", "aiter.a"}, initial);
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->empty());
}

TEST_F(ConsumerReportTest, AScanThatFailedIsTheErrorOfEveryChange) {
  ConsumerDetailSource source(Error(ErrorCode::invalid_input, "consumer path '/x': no such directory"),
                              std::make_unique<test::FakeCallBinder>());
  auto tables = source.details({"import aiter", "aiter.a"}, change(test::params(3), test::params(2)));
  ASSERT_FALSE(tables);
  EXPECT_EQ(tables.error().message(), "consumer path '/x': no such directory");
}

}  // namespace
}  // namespace aaw
