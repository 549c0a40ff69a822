#include "core/compare/render.hpp"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/compare/gate.hpp"
#include "support/sample_comparison.hpp"
#include "support/sample_values.hpp"
#include "support/temp_dir.hpp"

namespace aaw {
namespace {

Comparison sample() {
  Signature before{{{"a", ParameterKind::positional_or_keyword, std::nullopt, std::nullopt},
                    {"block_size", ParameterKind::positional_or_keyword, "32", std::nullopt}},
                   std::nullopt};
  Signature after = before;
  after.parameters[1].default_value = "64";
  Comparison c{ObjectId{std::string(40, 'a')}, ObjectId{std::string(40, 'b')}, {}};
  c.functions.push_back({{"import m", "m.f"},
                         SignatureState::ok(before),
                         SignatureState::ok(after),
                         diff_states(SignatureState::ok(before), SignatureState::ok(after))});
  c.functions.push_back(
      {{"from m import g", "g"}, SignatureState::ok(before), SignatureState::ok(before), {}});
  c.functions.push_back({{"from m import h", "h"},
                         SignatureState::ok(before),
                         SignatureState::failed(Status::extract_failed, "object 1234 is missing"),
                         {}});
  return c;
}

TEST(RenderTest, JsonFollowsCompareContract) {
  Json json = comparison_to_json(sample());
  EXPECT_EQ(json["old"], std::string(40, 'a'));
  EXPECT_EQ(json["new"], std::string(40, 'b'));
  ASSERT_EQ(json["functions"].size(), 3u);
  const Json& f = json["functions"][0];
  EXPECT_EQ(f["import_statement"], "import m");
  EXPECT_EQ(f["function_path"], "m.f");
  EXPECT_EQ(f["old"]["text"], "(a, block_size=32)");
  EXPECT_EQ(f["new"]["text"], "(a, block_size=64)");
  ASSERT_EQ(f["changes"].size(), 1u);
  EXPECT_EQ(f["changes"][0]["kind"], "default_changed");
  EXPECT_EQ(f["changes"][0]["severity"], "behavioural");
  EXPECT_TRUE(json["functions"][1]["changes"].empty());
  EXPECT_EQ(json["functions"][2]["new"]["status"], "extract_failed");
  EXPECT_EQ(json["functions"][2]["new"]["detail"], "object 1234 is missing");
}

TEST(RenderTest, MarkdownTableCellsEscapePipesAndLineBreaks) {
  Signature before{{{"kernelName", ParameterKind::positional_or_keyword, "''", "str | None"}}, std::nullopt};
  Signature after = before;
  after.return_annotation = "int | None";
  Comparison c{ObjectId{std::string(40, 'a')}, ObjectId{std::string(40, 'b')}, {}};
  c.functions.push_back({{"import m", "m.f"},
                         SignatureState::ok(before),
                         SignatureState::ok(after),
                         diff_states(SignatureState::ok(before), SignatureState::ok(after))});
  c.functions.push_back({{"import m", "m.g"},
                         SignatureState::ok(before),
                         SignatureState::failed(Status::build_failed, "Traceback:\n  line 1\nSystemExit"),
                         {}});
  std::string md = render_markdown(c);
  EXPECT_NE(md.find("| old | `` (kernelName: str \\| None = '') `` |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| new | `` (kernelName: str \\| None = '') -> int \\| None `` |\n"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| new | `` build_failed: Traceback:   line 1 SystemExit `` |\n"), std::string::npos)
      << md;
  for (std::istringstream lines(md); !lines.eof();) {
    std::string line;
    std::getline(lines, line);
    if (line.rfind("| ", 0) != 0) continue;
    std::size_t cells = 0;
    for (std::size_t i = 0; i < line.size(); ++i) cells += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
    EXPECT_EQ(cells, 3u) << "two cells in: " << line;
  }
}

TEST(RenderTest, MarkdownNamesEveryFunctionAndChange) {
  std::string md = render_markdown(sample());
  EXPECT_NE(md.find("1 of 3 functions changed"), std::string::npos) << md;
  EXPECT_NE(md.find("## `m.f` — behavioural"), std::string::npos) << md;
  EXPECT_NE(md.find("behavioural: parameter 'block_size' default changed from '32' to '64'"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("## `g` — no change"), std::string::npos) << md;
}

TEST(RenderTest, ABindingChangeShowsBothBindingsUnderTheSignatures) {
  Comparison c = sample();
  FunctionComparison& f = c.functions[0];
  f.after = f.before;  // the stub unchanged
  CompiledBinding binding = test::binding_of(f.before.signature, 7);
  f.before.binding = binding;
  binding.signature.parameters[1].default_value = "64";
  f.after.binding = binding;
  f.changes = diff_states(f.before, f.after);
  std::string md = render_markdown(c);
  EXPECT_NE(md.find("| old binding | `` pybind11 f(a, block_size=32) at csrc/include/rocm_ops.hpp:7 `` |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("behavioural: binding parameter 'block_size' default changed from '32' to '64'"),
            std::string::npos)
      << md;
}

TEST(RenderTest, MarkdownShowsAWaivedChangeAsAcceptedWithItsReason) {
  Comparison c = sample();
  GateOptions options;
  options.waivers.waivers = {testing::waiver_of(c, 0, "new default tuned for MI300")};
  std::string md = render_markdown(compare_document(c, options));
  EXPECT_NE(md.find("default changed from '32' to '64' — accepted (ann: new default tuned for MI300)\n"),
            std::string::npos)
      << md;
}

TEST(RenderTest, LogLinesUseOriginalWording) {
  test::TempDir dir;
  LogConfig config;
  config.file = (dir.path() / "c.log").string();
  auto log = make_logger(config, ConsoleStream::none);
  ASSERT_TRUE(log);
  log_comparison(**log, sample());
  std::ifstream in(config.file);
  std::stringstream text;
  text << in.rdbuf();
  std::string a(40, 'a'), b(40, 'b');
  EXPECT_NE(
      text.str().find("INFO - API change detected for m.f between " + a + " and " + b + " (behavioural)"),
      std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("INFO -   old: (a, block_size=32)"), std::string::npos);
  EXPECT_NE(text.str().find("INFO -   new: (a, block_size=64)"), std::string::npos);
  EXPECT_NE(text.str().find("INFO - No API change for g between " + a + " and " + b), std::string::npos);
  EXPECT_NE(
      text.str().find("WARNING - Could not extract h at " + b + ": extract_failed: object 1234 is missing"),
      std::string::npos)
      << text.str();
  EXPECT_EQ(text.str().find("No API change for h"), std::string::npos);
}

// The log lines without their time stamps ("2026-... - aiter_api_watcher - INFO - ...").
std::vector<std::string> logged(const std::function<void(Logger&)>& write) {
  test::TempDir dir;
  LogConfig config;
  config.file = (dir.path() / "c.log").string();
  auto log = make_logger(config, ConsoleStream::none);
  write(**log);
  std::ifstream in(config.file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line.substr(line.find(" - ")));
  return lines;
}

TEST(RenderTest, TextFromTheCompareDocumentIsTheComparisonsLogLines) {
  Comparison c = testing::sample_gate_comparison();
  c.functions.push_back(sample().functions[2]);  // a failure to extract
  auto from_comparison = logged([&](Logger& log) { log_comparison(log, c); });
  auto from_document = logged([&](Logger& log) { log_comparison(log, compare_document(c, {})); });
  EXPECT_EQ(from_document, from_comparison);
  EXPECT_GT(from_document.size(), 5u);
}

}  // namespace
}  // namespace aaw
