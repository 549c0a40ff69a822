#include "core/compare/waivers.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/sample_values.hpp"
#include "util/time.hpp"

namespace aaw {
namespace {

using test::k_b_removed;

const MonitoredFunction k_f{"import m", "m.f"};

std::string entry(const std::string& fields) {
  return R"({"waivers": [{"fingerprint": ")" + change_fingerprint(k_f, k_b_removed) + R"(", )" + fields +
         "}]}";
}

TEST(WaiversTest, FingerprintIsStableAndNamesKindFunctionImportAndParameter) {
  const std::string fp = change_fingerprint(k_f, k_b_removed);
  EXPECT_EQ(fp.size(), 16u);
  EXPECT_EQ(fp, change_fingerprint(k_f, k_b_removed));
  Change other_parameter = k_b_removed;
  other_parameter.parameter = "c";
  EXPECT_NE(fp, change_fingerprint(k_f, other_parameter));
  EXPECT_NE(fp, change_fingerprint({"import m as n", "n.f"}, k_b_removed));
  Change other_kind = k_b_removed;
  other_kind.kind = ChangeKind::default_removed;
  EXPECT_NE(fp, change_fingerprint(k_f, other_kind));
}

TEST(WaiversTest, ReadsEntriesWithAnExpiryAtTheEndOfThatDay) {
  auto file =
      parse_waivers(entry(R"("reason": "planned", "accepted_by": "ann", "expires": "2026-12-31")"), "w.json");
  ASSERT_TRUE(file) << file.error().message();
  ASSERT_EQ(file->waivers.size(), 1u);
  const Waiver& w = file->waivers[0];
  EXPECT_EQ(w.reason, "planned");
  EXPECT_FALSE(w.expired_at(*parse_iso8601("2026-12-31T23:59:00Z")));
  EXPECT_TRUE(w.expired_at(*parse_iso8601("2027-01-01T00:00:01Z")));
}

TEST(WaiversTest, AnEntryWithoutReasonIsAnErrorNamingFileAndEntry) {
  auto file = parse_waivers(entry(R"("reason": " ", "accepted_by": "ann")"), "w.json");
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().message(), "waivers file 'w.json': waivers[0].reason: must not be empty");
}

TEST(WaiversTest, MalformedFilesAreErrorsNamingTheFile) {
  EXPECT_EQ(parse_waivers("{\n  nope", "w.json").error().message(),
            "waivers file 'w.json':2:4: malformed JSON: syntax error while parsing object key - invalid literal; "
            "last read: '{<U+000A>  no'; expected string literal")
      << "the position, and no exception id of the JSON library";
  EXPECT_NE(
      parse_waivers(R"({"waivers": {}})", "w.json").error().message().find("waivers: expected an array"),
      std::string::npos);
  auto bad_date =
      parse_waivers(entry(R"("reason": "r", "accepted_by": "a", "expires": "next week")"), "w.json");
  EXPECT_NE(bad_date.error().message().find("waivers[0].expires: expected a date YYYY-MM-DD"),
            std::string::npos);
  auto bad_fp =
      parse_waivers(R"({"waivers": [{"fingerprint": "xyz", "reason": "r", "accepted_by": "a"}]})", "w.json");
  EXPECT_NE(bad_fp.error().message().find("waivers[0].fingerprint: expected 16 lower-case hex digits"),
            std::string::npos);
  auto typo = parse_waivers(entry(R"("reason": "r", "accepted_by": "a", "expire": "2026-01-01")"), "w.json");
  EXPECT_NE(typo.error().message().find("unknown key 'waivers[0].expire'"), std::string::npos);
}

TEST(WaiversTest, AFingerprintWaivedTwiceIsAnError) {
  const std::string fp = change_fingerprint(k_f, k_b_removed);
  const std::string one = R"({"fingerprint": ")" + fp + R"(", "reason": "r", "accepted_by": "a"})";
  auto file = parse_waivers(R"({"waivers": [)" + one + "," + one + "]}", "w.json");
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().message().find("waivers[1].fingerprint: fingerprint '" + fp + "' is waived twice"),
            std::string::npos);
}

TEST(WaiversTest, ASuggestedEntryRoundTripsOnceReasonAndNameAreFilledIn) {
  Json suggested = suggested_waiver(k_f, k_b_removed);
  EXPECT_EQ(suggested["reason"], "");
  EXPECT_FALSE(parse_waivers(Json{{"waivers", {suggested}}}.dump(), "w.json"));
  suggested["reason"] = "kernel API cleanup";
  suggested["accepted_by"] = "ann";
  auto file = parse_waivers(Json{{"waivers", {suggested}}}.dump(), "w.json");
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_EQ(file->waivers[0].fingerprint, change_fingerprint(k_f, k_b_removed));
  EXPECT_EQ(file->waivers[0].function, "m.f");
}

}  // namespace
}  // namespace aaw
