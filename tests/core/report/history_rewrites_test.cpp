// select_rewrites and in_recorded_order: the force-pushes `history` lists among the changes.
#include "core/report/history_rewrites.hpp"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>

namespace aaw {
namespace {

Json rewrite_function(const std::string& path, const std::string& severity) {
  return {{"function_path", path}, {"import_statement", "from p import " + path}, {"severity", severity}};
}

Json rewrite(const std::string& time, const std::string& new_head, std::vector<Json> functions) {
  return {{"type", "history_rewritten"},
          {"time", time},
          {"old_head", "o"},
          {"new_head", new_head},
          {"merge_base", "b"},
          {"abandoned_commits", 3},
          {"functions", std::move(functions)}};
}

Json recorded_change(const std::string& commit, const std::string& path) {
  return {{"type", "change"},
          {"commit", commit},
          {"import_statement", "from p import " + path},
          {"function_path", path}};
}

// Lines as the store keeps them: a change at c1, a rewrite, a change at c2, a rewrite of nothing.
const std::vector<StoredEvent> k_events = {
    {1, recorded_change("c1", "f")},
    {2, rewrite("2025-01-10T10:00:00Z", "n1",
                {rewrite_function("f", "breaking"), rewrite_function("g", "annotation")})},
    {3, recorded_change("c2", "g")},
    {4, rewrite("2025-02-10T10:00:00Z", "n2", {})}};

Json history_change(const std::string& commit, const std::string& path) {
  Json c = recorded_change(commit, path);
  c.erase("type");
  return c;
}

std::vector<std::int64_t> ids_of(const Result<std::vector<StoredEvent>>& rewrites) {
  EXPECT_TRUE(rewrites) << rewrites.error().message();
  std::vector<std::int64_t> out;
  if (rewrites)
    for (const StoredEvent& e : *rewrites) out.push_back(e.event["event_id"].get<std::int64_t>());
  return out;
}

TEST(HistoryRewritesTest, NoFilterKeepsEveryRewriteWithItsEventId) {
  EXPECT_EQ(ids_of(select_rewrites(k_events, std::nullopt, {})), (std::vector<std::int64_t>{2, 4}));
}

TEST(HistoryRewritesTest, AFunctionOrSeverityKeepsOnlyTheFunctionsThatMatch) {
  auto only_g = select_rewrites(k_events, std::string("g"), {});
  ASSERT_EQ(ids_of(only_g), (std::vector<std::int64_t>{2}));
  ASSERT_EQ((*only_g)[0].event["functions"].size(), 1u);
  EXPECT_EQ((*only_g)[0].event["functions"][0]["function_path"], "g");
  HistoryQuery breaking;
  breaking.min_severity = Severity::breaking;
  auto kept = select_rewrites(k_events, std::nullopt, breaking);
  ASSERT_EQ(ids_of(kept), (std::vector<std::int64_t>{2}));
  EXPECT_EQ((*kept)[0].event["functions"][0]["function_path"], "f");
}

TEST(HistoryRewritesTest, ARewriteIsDatedWhenSeenAndInARangeWhenItsNewHeadIs) {
  HistoryQuery february;
  february.since = *parse_iso8601("2025-02-01");
  EXPECT_EQ(ids_of(select_rewrites(k_events, std::nullopt, february)), (std::vector<std::int64_t>{4}));
  HistoryQuery range;
  range.in_range = [](const ObjectId& commit) -> Result<bool> { return commit.hex == "n1"; };
  EXPECT_EQ(ids_of(select_rewrites(k_events, std::nullopt, range)), (std::vector<std::int64_t>{2}));
  range.in_range = [](const ObjectId&) -> Result<bool> {
    return Error(ErrorCode::not_found, "no such commit");
  };
  EXPECT_FALSE(select_rewrites(k_events, std::nullopt, range));
}

std::string order_of(const std::vector<HistoryEntry>& entries) {
  std::string out;
  for (const HistoryEntry& e : entries)
    out +=
        e.change ? (*e.change)["commit"].get<std::string>() + " " : "r" + std::to_string(e.rewrite->id) + " ";
  return out;
}

TEST(HistoryRewritesTest, EachRewriteComesBeforeTheFirstChangeRecordedAfterIt) {
  auto rewrites = *select_rewrites(k_events, std::nullopt, {});
  std::vector<Json> changes = {history_change("c1", "f"), history_change("c2", "g")};
  EXPECT_EQ(order_of(in_recorded_order(changes, rewrites, k_events, false)), "c1 r2 c2 r4 ");
  // --limit 1 kept c2 only: the rewrite before it goes with c1.
  std::vector<Json> newest = {history_change("c2", "g")};
  EXPECT_EQ(order_of(in_recorded_order(newest, rewrites, k_events, true)), "c2 r4 ");
  EXPECT_EQ(order_of(in_recorded_order({}, rewrites, k_events, false)), "r2 r4 ");
}

TEST(MarkAbandonedTest, AChangeAtACommitARewriteTookOffTheBranchIsMarkedWithThatRewrite) {
  Json first = rewrite("2025-01-10T10:00:00Z", "n1", {});
  first["abandoned"] = {"c1", "c2"};
  Json second = rewrite("2025-02-10T10:00:00Z", "n2", {});
  second["abandoned"] = {"c2", "c3"};
  const std::vector<StoredEvent> events = {{1, recorded_change("c1", "f")}, {2, first}, {5, second}};
  std::vector<Json> changes = {history_change("c1", "f"), history_change("c2", "g"),
                               history_change("c3", "f"), history_change("c4", "f")};
  std::map<std::string, std::string> recorded = {
      {"c1", "2025-01-09T00:00:00Z"},
      {"c2", "2025-01-10T10:00:00Z"},   // the same second: still gone
      {"c3", "2025-02-11T00:00:00Z"}};  // processed again since
  mark_abandoned(changes, events, [&](const std::string& sha) -> std::optional<std::string> {
    auto found = recorded.find(sha);
    return found == recorded.end() ? std::nullopt : std::optional<std::string>(found->second);
  });
  EXPECT_EQ(changes[0]["abandoned_by"], Json({{"event_id", 2}, {"time", "2025-01-10T10:00:00Z"}}));
  EXPECT_EQ(changes[1]["abandoned_by"]["event_id"], 2) << "the first rewrite that took it off";
  EXPECT_FALSE(changes[2].contains("abandoned_by")) << "back on the branch after the second rewrite";
  EXPECT_FALSE(changes[3].contains("abandoned_by")) << "never abandoned";
}

TEST(MarkAbandonedTest, RewritesRecordedWithoutTheirCommitsMarkNothing) {
  std::vector<Json> changes = {history_change("c1", "f")};
  mark_abandoned(changes, k_events, [](const std::string&) { return std::optional<std::string>(); });
  EXPECT_FALSE(changes[0].contains("abandoned_by"));
}

}  // namespace
}  // namespace aaw
