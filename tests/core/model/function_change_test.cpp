#include "core/model/function_change.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace aaw {
namespace {

TEST(FunctionChangeTest, FormatsDateInAuthorsOffset) {
  EXPECT_EQ(iso8601(1745689314, 120), "2025-04-26T19:41:54+02:00");
  EXPECT_EQ(iso8601(1745689314, -330), "2025-04-26T12:11:54-05:30");
  EXPECT_EQ(iso8601(0, 0), "1970-01-01T00:00:00+00:00");
}

TEST(FunctionChangeTest, FormatsUtcTimesWithZ) {
  EXPECT_EQ(iso8601_utc(1745689314), "2025-04-26T17:41:54Z");
  EXPECT_EQ(iso8601_utc(0), "1970-01-01T00:00:00Z");
}

TEST(FunctionChangeTest, JsonFollowsContract) {
  FunctionChange c;
  c.commit.id = ObjectId{std::string(40, 'c')};
  c.commit.author_name = "Ada";
  c.commit.author_email = "ada@example.com";
  c.commit.author_time = 1745689314;
  c.commit.subject = "Rename mask";
  c.function = {"import m", "m.f"};
  Signature before{{{"a", ParameterKind::positional_or_keyword, std::nullopt, std::nullopt}}, std::nullopt};
  c.before = SignatureState::ok(before);
  c.after = SignatureState::failed(Status::missing, "'f' not found in module 'm'");
  c.changes = diff_states(c.before, c.after);
  Json json = to_json(c);
  EXPECT_EQ(json["commit"], std::string(40, 'c'));
  EXPECT_EQ(json["commit_date"], "2025-04-26T17:41:54+00:00");
  EXPECT_EQ(json["author"], "Ada <ada@example.com>");
  EXPECT_EQ(json["subject"], "Rename mask");
  EXPECT_TRUE(json["pull_request"].is_null());
  EXPECT_EQ(json["import_statement"], "import m");
  EXPECT_EQ(json["function_path"], "m.f");
  EXPECT_EQ(json["old"]["text"], "(a)");
  EXPECT_EQ(json["new"]["status"], "missing");
  EXPECT_EQ(json["changes"][0]["kind"], "function_removed");
  EXPECT_EQ(json["severity"], "breaking");
}

}  // namespace
}  // namespace aaw
