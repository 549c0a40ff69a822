// build_report on an in-memory state store written the way the commit processor writes it: initial
// events, FUNCTION_CHANGE records with their pull requests, machinery failures, a function no
// longer monitored, and detail sources (the seam the consumer call-site check plugs into).
#include "core/report/report.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/model/function_change.hpp"
#include "core/watch/poll_status.hpp"
#include "support/memory_state_store.hpp"
#include "support/sample_values.hpp"

namespace aaw {
namespace {

using test::k_fixed_now;
using test::param;

const std::string k_url = "https://user:secret@github.com/ROCm/aiter.git";
const MonitoredFunction k_fmoe{"import aiter", "aiter.fmoe"};
const MonitoredFunction k_gemm{"from aiter import gemm", "gemm"};
const MonitoredFunction k_gone{"import aiter", "aiter.old_fn"};

std::string sha(char c) { return std::string(40, c); }

SignatureState signature(std::vector<Parameter> parameters) {
  return SignatureState::ok(Signature{std::move(parameters), std::nullopt});
}

CommitInfo commit(char c, std::int64_t time, std::string subject) {
  CommitInfo info;
  info.id = ObjectId{sha(c)};
  info.author_name = "Ada";
  info.author_email = "ada@example.com";
  info.author_time = time;
  info.subject = std::move(subject);
  return info;
}

class BuildReportTest : public ::testing::Test {
 protected:
  // Records `info` with these states: an initial event for a function seen for the first time,
  // a change where its state differs from the last one.
  void record(const CommitInfo& info, const std::vector<FunctionState>& states) {
    CommitRecord rec;
    rec.commit = info;
    rec.advances_line = true;
    rec.states = states;
    for (const FunctionState& s : states) {
      auto last = m_last.find(s.function.function_path);
      FunctionChange change{info, std::nullopt, s.function, SignatureState{}, s.state, {}};
      if (last == m_last.end()) {
        Json initial = to_json(change);
        initial["old"] = nullptr;
        initial["type"] = "initial";
        rec.events.push_back(initial);
      } else if (!is_machinery_failure(s.state.status)) {
        change.before = last->second;
        change.changes = diff_states(last->second, s.state);
        if (change.changes.empty()) continue;
        Json json = to_json(change);
        rec.changes.push_back(json);
        json["type"] = "change";
        rec.events.push_back(json);
      }
      if (!is_machinery_failure(s.state.status)) m_last[s.function.function_path] = s.state;
    }
    ASSERT_TRUE(m_store->record(rec));
  }

  Report build(std::vector<ReportDetailSource*> sources = {}) {
    ReportInput input{k_url, "", "main", {k_fmoe, k_gemm}, std::move(sources)};
    auto report = build_report(*m_store, input, k_fixed_now);
    EXPECT_TRUE(report) << report.error().message();
    return report ? *report : Report{};
  }

  // fmoe: initial (a, b=1), then b's default changes, then c is added; gemm: initial, then a
  // machinery failure (never a change), then x removed.
  void record_history() {
    record(commit('a', 1000, "first"), {{k_fmoe, signature({param("a"), param("b", "1")})},
                                        {k_gemm, signature({param("x"), param("y")})}});
    record(commit('b', 2000, "tune b"), {{k_fmoe, signature({param("a"), param("b", "2")})},
                                         {k_gemm, SignatureState::failed(Status::build_failed, "boom")}});
    record(commit('c', 3000, "drop x"),
           {{k_fmoe, signature({param("a"), param("b", "2"), param("c", "None")})},
            {k_gemm, signature({param("y")})}});
  }

  std::unique_ptr<StateStore> m_store = std::make_unique<test::InMemoryStateStore>();
  std::map<std::string, SignatureState> m_last;
};

TEST_F(BuildReportTest, TimelineStartsWithTheInitialSignatureThenEveryChangeOldestFirst) {
  record_history();
  Report report = build();
  ASSERT_EQ(report.functions.size(), 2u);
  const FunctionReport& fmoe = report.functions[0];
  EXPECT_EQ(fmoe.function, k_fmoe);
  EXPECT_TRUE(fmoe.monitored);
  ASSERT_EQ(fmoe.timeline.size(), 3u);
  EXPECT_TRUE(fmoe.timeline[0].initial());
  EXPECT_EQ(fmoe.timeline[0].commit, sha('a'));
  EXPECT_EQ(fmoe.timeline[0].after.summary(), "(a, b=1)");
  EXPECT_EQ(fmoe.timeline[0].severity(), std::nullopt);
  EXPECT_EQ(fmoe.timeline[1].commit, sha('b'));
  EXPECT_EQ(fmoe.timeline[1].before->summary(), "(a, b=1)");
  EXPECT_EQ(fmoe.timeline[1].after.summary(), "(a, b=2)");
  EXPECT_EQ(fmoe.timeline[1].severity(), Severity::behavioural);
  EXPECT_EQ(fmoe.timeline[1].subject, "tune b");
  EXPECT_EQ(fmoe.timeline[1].author, "Ada <ada@example.com>");
  EXPECT_EQ(fmoe.timeline[2].severity(), Severity::compatible);
  ASSERT_TRUE(fmoe.latest);
  EXPECT_EQ(fmoe.latest->summary(), "(a, b=2, c=None)");
}

TEST_F(BuildReportTest, MachineryFailuresAreNotEntriesAndTheLatestStateIsTheLastGoodOne) {
  record(commit('a', 1000, "first"), {{k_fmoe, signature({param("a")})}, {k_gemm, signature({param("x")})}});
  record(commit('b', 2000, "broken build"),
         {{k_fmoe, SignatureState::failed(Status::build_failed, "boom")}, {k_gemm, signature({param("x")})}});
  Report report = build();
  EXPECT_EQ(report.functions[0].timeline.size(), 1u);
  ASSERT_TRUE(report.functions[0].latest);
  EXPECT_EQ(report.functions[0].latest->summary(), "(a)");
}

TEST_F(BuildReportTest, ChangesCarryTheirPullRequestOnceKnown) {
  record_history();
  ASSERT_TRUE(m_store->set_pull_request(ObjectId{sha('c')}, "https://github.com/ROCm/aiter/pull/7"));
  Report report = build();
  const FunctionReport& gemm = report.functions[1];
  ASSERT_EQ(gemm.timeline.size(), 2u);
  EXPECT_EQ(gemm.timeline[1].pull_request, "https://github.com/ROCm/aiter/pull/7");
  EXPECT_EQ(gemm.timeline[1].severity(), Severity::breaking);
  EXPECT_EQ(report.functions[0].timeline[1].pull_request, std::nullopt);
}

TEST_F(BuildReportTest, FactsComeFromTheStoreAndTheUrlIsRedacted) {
  record_history();
  ASSERT_TRUE(record_poll(*m_store, k_fixed_now, std::nullopt));
  Report report = build();
  EXPECT_EQ(report.repository_url, "https://github.com/ROCm/aiter.git");
  EXPECT_EQ(report.branch, "main");
  EXPECT_EQ(report.line_head, sha('c'));
  EXPECT_EQ(report.commits_recorded, 3);
  EXPECT_EQ(report.poll.last_poll_result, "ok");
  EXPECT_EQ(report.generated_at, iso8601_utc(k_fixed_now));
}

TEST_F(BuildReportTest, AFunctionNoLongerMonitoredComesLastAndIsMarked) {
  record(commit('a', 1000, "first"), {{k_gone, signature({param("a")})}, {k_fmoe, signature({param("a")})}});
  Report report = build();
  ASSERT_EQ(report.functions.size(), 3u);
  EXPECT_EQ(report.functions[0].function, k_fmoe);
  EXPECT_EQ(report.functions[1].function, k_gemm);
  EXPECT_TRUE(report.functions[1].timeline.empty()) << "monitored, nothing recorded yet";
  EXPECT_FALSE(report.functions[1].latest);
  EXPECT_EQ(report.functions[2].function, k_gone);
  EXPECT_FALSE(report.functions[2].monitored);
}

TEST_F(BuildReportTest, AnEmptyStoreGivesTheMonitoredFunctionsWithNoTimeline) {
  Report report = build();
  ASSERT_EQ(report.functions.size(), 2u);
  EXPECT_TRUE(report.functions[0].timeline.empty());
  EXPECT_EQ(report.line_head, std::nullopt);
  EXPECT_EQ(report.commits_recorded, 0);
  EXPECT_EQ(report.poll.last_poll_time, std::nullopt);
}

// What the consumer call-site check will be: a table per change, or an error.
class FakeDetails final : public ReportDetailSource {
 public:
  Result<std::vector<DetailTable>> details(const MonitoredFunction& function,
                                           const TimelineEntry& entry) override {
    seen.push_back(function.function_path + "@" + entry.commit.substr(0, 1));
    if (function == k_gemm) return Error(ErrorCode::io, "consumer clone missing");
    return std::vector<DetailTable>{{"Call sites", {"file", "line"}, {{"vllm/x.py", "12"}}, ""}};
  }
  std::string name() const override { return "Consumer call sites"; }
  std::vector<std::string> seen;
};

TEST_F(BuildReportTest, DetailSourcesAnnotateEveryChangeButNotInitialSignatures) {
  record_history();
  FakeDetails details;
  Report report = build({&details});
  EXPECT_EQ(details.seen, (std::vector<std::string>{"aiter.fmoe@b", "aiter.fmoe@c", "gemm@c"}));
  EXPECT_TRUE(report.functions[0].timeline[0].details.empty());
  ASSERT_EQ(report.functions[0].timeline[1].details.size(), 1u);
  EXPECT_EQ(report.functions[0].timeline[1].details[0].rows,
            (std::vector<std::vector<std::string>>{{"vllm/x.py", "12"}}));
}

TEST_F(BuildReportTest, AFailingDetailSourceLeavesANoteAndTheReportStands) {
  record_history();
  FakeDetails details;
  Report report = build({&details});
  const auto& tables = report.functions[1].timeline[1].details;
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].title, "Consumer call sites");
  EXPECT_EQ(tables[0].note, "unavailable: consumer clone missing");
}

TEST_F(BuildReportTest, ADamagedRecordNamesItsCommitAndFunction) {
  CommitRecord rec;
  rec.commit = commit('d', 1000, "x");
  Json bad = {{"type", "initial"},
              {"commit", sha('d')},
              {"import_statement", "import aiter"},
              {"function_path", "aiter.fmoe"},
              {"old", nullptr},
              {"new", {{"status", "bogus"}}}};
  rec.events.push_back(bad);
  ASSERT_TRUE(m_store->record(rec));
  ReportInput input{k_url, "", "main", {k_fmoe}, {}};
  auto report = build_report(*m_store, input, k_fixed_now);
  ASSERT_FALSE(report);
  EXPECT_NE(report.error().message().find("'aiter.fmoe' at commit '" + sha('d') + "'"), std::string::npos)
      << report.error().message();
}

}  // namespace
}  // namespace aaw
