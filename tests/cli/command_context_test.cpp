// The config as the binary reads it: the core's reader (src/core/model/config.cpp) with the
// vocabulary cli::config_schema() gives it, the built-in extractors and notification channels.
#include "cli/command_context.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "core/model/config.hpp"
#include "notify/channel_registry.hpp"
#include "support/temp_dir.hpp"

namespace aaw {
namespace {

// The config as the binary reads it: with the vocabulary of the built-in extractors and channels.
Result<LoadedConfig> parse_binary_config(std::string_view text, std::string_view source) {
  return aaw::parse_config(text, source, cli::config_schema());
}
Result<LoadedConfig> load_binary_config(const std::filesystem::path& path) {
  return aaw::load_config(path, cli::config_schema());
}

// The original script's default config, exactly as it wrote it (with the state it kept inside).
constexpr const char* k_original = R"json({
  "functions_to_monitor": [
    {"import_statement": "import aiter.fused_moe_bf16_asm as rocm_aiter_asm_fmoe",
     "function_path": "rocm_aiter_asm_fmoe.moe_sorting_ck",
     "last_signature": {"exists": true, "signature": "(a, b)", "parameters": [], "source": null, "error": null}},
    {"import_statement": "import aiter.fused_moe_bf16_asm as rocm_aiter_asm_fmoe",
     "function_path": "rocm_aiter_asm_fmoe.asm_moe"},
    {"import_statement": "from aiter.fused_moe_bf16_asm import ck_moe_2stages",
     "function_path": "ck_moe_2stages"}
  ],
  "check_interval_seconds": 3600,
  "last_checked_commit": "",
  "start_commit": "",
  "repository_url": "https://github.com/ROCm/aiter.git",
  "commit_list": [],
  "compare_pair": []
})json";

std::string with_functions(const std::string& functions, const std::string& extra = "") {
  return R"({"repository_url": "https://example.invalid/r.git", "functions_to_monitor": )" + functions +
         extra + "}";
}

const std::string k_one_function = R"([{"import_statement": "import a", "function_path": "a.f"}])";

class ConfigTest : public ::testing::Test {
 protected:
  static std::string error_of(const std::string& text) {
    auto loaded = parse_binary_config(text, "config.json");
    EXPECT_FALSE(loaded) << "expected an error for " << text;
    return loaded ? "" : loaded.error().message();
  }
};

TEST_F(ConfigTest, AcceptsOriginalScriptConfigUnchanged) {
  auto loaded = parse_binary_config(k_original, "config.json");
  ASSERT_TRUE(loaded) << loaded.error().message();
  EXPECT_TRUE(loaded->warnings.empty()) << loaded->warnings.front();
  const Config& c = loaded->config;
  EXPECT_EQ(c.repository_url, "https://github.com/ROCm/aiter.git");
  ASSERT_EQ(c.functions_to_monitor.size(), 3u);
  EXPECT_EQ(c.functions_to_monitor[2].function_path, "ck_moe_2stages");
  EXPECT_EQ(c.check_interval_seconds, 3600);
  EXPECT_TRUE(c.compare_pair.empty());
}

TEST_F(ConfigTest, AppliesContractDefaults) {
  auto loaded = parse_binary_config(with_functions(k_one_function), "config.json");
  ASSERT_TRUE(loaded);
  const Config& c = loaded->config;
  EXPECT_EQ(c.branch, "main");
  EXPECT_EQ(c.state_dir, "./aiter-api-watcher-state");
  EXPECT_EQ(c.extractor, "static");
  EXPECT_EQ(c.log.file, "aiter_api_watcher.log");
  EXPECT_EQ(c.log.max_size_mb, 10);
  EXPECT_EQ(c.log.max_files, 5);
  EXPECT_EQ(c.build.command, (std::vector<std::string>{"{python}", "setup.py", "develop"}));
  EXPECT_EQ(c.build.env.at("PREBUILD_KERNELS"), "0");
  EXPECT_EQ(c.github.api_url, "https://api.github.com");
  EXPECT_EQ(builtin_channels().find("github_issue")->default_min_severity, Severity::breaking);
  EXPECT_EQ(builtin_channels().find("webhook")->default_min_severity, Severity::compatible);
}

TEST_F(ConfigTest, ReadsNestedSections) {
  auto loaded = parse_binary_config(with_functions(k_one_function, R"(, "extractor": "both",
      "log": {"file": "", "level": "debug", "max_files": 2},
      "build": {"command": ["make"], "env": {"X": "1"}, "timeout_seconds": 60, "paths": ["csrc"]},
      "sandbox": {"kind": "landlock", "network": false, "accept_unconfined": true},
      "notify": {"github_issue": {"repo": "o/r", "labels": ["api"]}, "webhook": {"url": "http://127.0.0.1:9/h"}})"),
                                    "config.json");
  ASSERT_TRUE(loaded) << loaded.error().message();
  const Config& c = loaded->config;
  EXPECT_EQ(c.extractor, "both");
  EXPECT_EQ(c.log.file, "");
  EXPECT_EQ(c.log.level, "debug");
  EXPECT_EQ(c.build.command, std::vector<std::string>{"make"});
  EXPECT_EQ(c.build.env.at("X"), "1");
  EXPECT_EQ(c.build.env.count("PREBUILD_KERNELS"), 0u);
  EXPECT_FALSE(c.sandbox.network);
  EXPECT_EQ(c.sandbox.kind, "landlock");
  EXPECT_TRUE(c.sandbox.accept_unconfined);
  EXPECT_EQ(c.notify.sections.at("github_issue")["labels"], Json::array({"api"}));
  EXPECT_EQ(c.notify.sections.at("webhook")["url"], "http://127.0.0.1:9/h");
}

TEST_F(ConfigTest, WarnsAboutUnknownKeyWithSuggestion) {
  auto loaded =
      parse_binary_config(with_functions(k_one_function, R"(, "check_intervall_seconds": 5)"), "config.json");
  ASSERT_TRUE(loaded);
  ASSERT_EQ(loaded->warnings.size(), 1u);
  EXPECT_EQ(loaded->warnings[0],
            "config.json: unknown key 'check_intervall_seconds', did you mean 'check_interval_seconds'?");
}

TEST_F(ConfigTest, WarnsAboutUnknownNestedKeyWithItsPath) {
  auto loaded =
      parse_binary_config(with_functions(k_one_function, R"(, "log": {"max_size": 3})"), "config.json");
  ASSERT_TRUE(loaded);
  ASSERT_EQ(loaded->warnings.size(), 1u);
  EXPECT_EQ(loaded->warnings[0], "config.json: unknown key 'log.max_size', did you mean 'max_size_mb'?");
}

TEST_F(ConfigTest, WarnsWithoutSuggestionWhenNothingIsClose) {
  auto loaded = parse_binary_config(with_functions(k_one_function, R"(, "zzzzzz": 1)"), "config.json");
  ASSERT_TRUE(loaded);
  ASSERT_EQ(loaded->warnings.size(), 1u);
  EXPECT_EQ(loaded->warnings[0], "config.json: unknown key 'zzzzzz'");
}

// "$schema" names the JSON Schema an editor validates and completes the file with: accepted, not read.
TEST_F(ConfigTest, AcceptsAndIgnoresAnEditorsSchemaKey) {
  auto loaded = parse_binary_config(
      with_functions(k_one_function, R"(, "$schema": "../schemas/config.schema.json")"), "config.json");
  ASSERT_TRUE(loaded) << loaded.error().message();
  EXPECT_TRUE(loaded->warnings.empty()) << loaded->warnings.front();
  EXPECT_EQ(loaded->config.functions_to_monitor.size(), 1u);
  EXPECT_EQ(error_of(with_functions(k_one_function, R"(, "$schema": 7)")),
            "config.json: $schema: expected a string");
}

TEST_F(ConfigTest, NamesJsonPathOfWrongType) {
  std::string functions = R"([{"import_statement": "import a", "function_path": "a.f"},
      {"import_statement": "import a", "function_path": "a.g"},
      {"import_statement": "import a", "function_path": 3}])";
  EXPECT_EQ(error_of(with_functions(functions)),
            "config.json: functions_to_monitor[2].function_path: expected a string");
}

TEST_F(ConfigTest, RejectsMissingRepositoryUrl) {
  EXPECT_EQ(
      error_of(R"({"functions_to_monitor": [{"import_statement": "import a", "function_path": "a.f"}]})"),
      "config.json: repository_url: required key is missing");
}

TEST_F(ConfigTest, RejectsMissingFunctions) {
  EXPECT_EQ(error_of(R"({"repository_url": "x"})"),
            "config.json: functions_to_monitor: required key is missing");
}

TEST_F(ConfigTest, RejectsEmptyFunctionList) {
  EXPECT_EQ(error_of(with_functions("[]")),
            "config.json: functions_to_monitor: expected at least one function");
}

TEST_F(ConfigTest, RejectsFunctionWithoutImportStatement) {
  EXPECT_EQ(error_of(with_functions(R"([{"function_path": "f"}])")),
            "config.json: functions_to_monitor[0].import_statement: required key is missing");
}

TEST_F(ConfigTest, RejectsCompareSpecWithOneCommit) {
  EXPECT_EQ(error_of(with_functions(k_one_function, R"(, "compare_pair": ["abc1"])")),
            "config.json: compare_pair: expected two commits [old, new], got 1");
}

TEST_F(ConfigTest, RejectsNonPositiveInterval) {
  EXPECT_EQ(error_of(with_functions(k_one_function, R"(, "check_interval_seconds": 0)")),
            "config.json: check_interval_seconds: expected an integer from 1 to 1000000000");
}

TEST_F(ConfigTest, RejectsStringWhereIntegerExpected) {
  EXPECT_EQ(error_of(with_functions(k_one_function, R"(, "check_interval_seconds": "3600")")),
            "config.json: check_interval_seconds: expected an integer");
}

TEST_F(ConfigTest, RejectsUnknownExtractor) {
  EXPECT_EQ(error_of(with_functions(k_one_function, R"(, "extractor": "dynamic")")),
            "config.json: extractor: expected one of static, runtime, both, static+import, got 'dynamic'");
}

TEST_F(ConfigTest, RejectsWrongTypeInNestedSection) {
  EXPECT_EQ(error_of(with_functions(k_one_function, R"(, "build": {"env": {"A": 1}})")),
            "config.json: build.env.A: expected a string");
}

TEST_F(ConfigTest, RejectsNonObjectDocument) {
  EXPECT_EQ(error_of("[1, 2]"), "config.json: the document: expected an object");
}

TEST_F(ConfigTest, ReportsLineAndColumnOfMalformedJson) {
  std::string message = error_of("{\n  \"repository_url\": \"x\",\n}");
  EXPECT_EQ(message.rfind("config.json:3:1: malformed JSON: ", 0), 0u) << message;
}

TEST_F(ConfigTest, WarnsAboutRepeatedFunction) {
  std::string functions = R"([{"import_statement": "import a", "function_path": "a.f"},
                              {"import_statement": "import a", "function_path": "a.f"}])";
  auto loaded = parse_binary_config(with_functions(functions), "config.json");
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->config.functions_to_monitor.size(), 1u);
  ASSERT_EQ(loaded->warnings.size(), 1u);
  EXPECT_NE(loaded->warnings[0].find("functions_to_monitor[1] repeats"), std::string::npos);
}

TEST_F(ConfigTest, LoadsFromFile) {
  test::TempDir dir;
  auto path = dir.path() / "aiter_api_watcher_config.json";
  std::ofstream(path) << k_original;
  auto loaded = load_binary_config(path);
  ASSERT_TRUE(loaded) << loaded.error().message();
  EXPECT_EQ(loaded->config.functions_to_monitor.size(), 3u);
}

TEST_F(ConfigTest, RelativePathsAreRelativeToTheConfigFile) {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path() / "etc");
  auto path = dir.path() / "etc" / "config.json";
  std::ofstream(path) << with_functions(k_one_function, R"(, "repository_url": "../repos/aiter.git",
      "log": {"file": "logs/w.log"}, "github": {"token_file": "token"}, "consumer": {"path": "vllm"})");
  auto loaded = load_binary_config(path);
  ASSERT_TRUE(loaded) << loaded.error().message();
  const Config& c = loaded->config;
  auto etc = std::filesystem::absolute(dir.path() / "etc");
  EXPECT_EQ(c.state_dir, etc / "aiter-api-watcher-state") << "the default too";
  EXPECT_EQ(c.log.file, (etc / "logs" / "w.log").string());
  EXPECT_EQ(c.github.token_file, (etc / "token").string());
  EXPECT_EQ(c.consumer.path, (etc / "vllm").string());
  EXPECT_EQ(c.repository_url, (std::filesystem::absolute(dir.path()) / "repos" / "aiter.git").string());
}

TEST_F(ConfigTest, AbsolutePathsUrlsAndAnEmptyLogFileStayAsWritten) {
  test::TempDir dir;
  auto path = dir.path() / "config.json";
  std::ofstream(path) << with_functions(
      k_one_function, R"(, "repository_url": "git@github.com:ROCm/aiter.git", "state_dir": "/var/lib/aaw",
      "log": {"file": ""}, "consumer": {"repository_url": "https://github.com/vllm-project/vllm.git"})");
  auto loaded = load_binary_config(path);
  ASSERT_TRUE(loaded) << loaded.error().message();
  EXPECT_EQ(loaded->config.repository_url, "git@github.com:ROCm/aiter.git");
  EXPECT_EQ(loaded->config.state_dir, "/var/lib/aaw");
  EXPECT_EQ(loaded->config.log.file, "");
  EXPECT_EQ(loaded->config.consumer.repository_url, "https://github.com/vllm-project/vllm.git");
}

TEST_F(ConfigTest, RejectsAFunctionPathThatIsNoDottedName) {
  for (const char* bad :
       {" aiter.fmoe", "aiter.fmoe ", "aiter..fmoe", "aiter.fmoe()", "aiter/fmoe", "1x.f"}) {
    Json functions = Json::array({{{"import_statement", "import aiter"}, {"function_path", bad}}});
    std::string message = error_of(with_functions(functions.dump()));
    EXPECT_NE(message.find("functions_to_monitor[0].function_path: '" + std::string(bad) +
                           "' is not a dotted Python name"),
              std::string::npos)
        << message;
  }
  EXPECT_NE(error_of(with_functions(R"([{"import_statement": "import a", "function_path": " a.f"}])"))
                .find("(stray spaces?)"),
            std::string::npos);
  EXPECT_TRUE(parse_binary_config(
      with_functions(R"([{"import_statement": "import a", "function_path": "a._f2.K"}])"), "c.json"));
}

TEST_F(ConfigTest, RejectsAnImportStatementNoCommitCouldRun) {
  // Each would be a function missing at every commit, which a range of commits never shows.
  for (const auto& [statement, why] : std::vector<std::pair<std::string, std::string>>{
           {"import aiter,", "a name was expected after ',', not the end"},
           {"from .ops import f", "a relative import has no package to resolve against"},
           {"import aiter; import os", "it holds more than one statement"}}) {
    Json functions = Json::array({{{"import_statement", statement}, {"function_path", "aiter.f"}}});
    std::string message = error_of(with_functions(functions.dump()));
    EXPECT_NE(message.find("functions_to_monitor[0].import_statement: '" + statement +
                           "' is not one import statement Python can run: " + why),
              std::string::npos)
        << message;
  }
}

TEST_F(ConfigTest, RejectsAConsumerPackageThatIsNoDottedName) {
  EXPECT_NE(error_of(with_functions(k_one_function, R"(, "consumer": {"path": "v", "package": "ai ter"})"))
                .find("consumer.package: 'ai ter' is not a dotted Python name"),
            std::string::npos);
}

TEST_F(ConfigTest, RejectsAnEmptyStateDir) {
  EXPECT_NE(
      error_of(with_functions(k_one_function, R"(, "state_dir": "")")).find("state_dir: must not be empty"),
      std::string::npos);
}

TEST_F(ConfigTest, RejectsModuleAliasesThatLeadBackToWhatTheyRedirect) {
  for (const char* aliases : {R"({"aiter": "aiter"})", R"({"a": "b", "b": "a"})", R"({"a": "a.b"})"}) {
    std::string message = error_of(
        with_functions(k_one_function, std::string(R"(, "static": {"module_aliases": )") + aliases + "}"));
    EXPECT_NE(message.find("static.module_aliases: '"), std::string::npos) << aliases << ": " << message;
    EXPECT_NE(message.find("is redirected without end"), std::string::npos) << message;
  }
  EXPECT_TRUE(parse_binary_config(
      with_functions(k_one_function, R"(, "static": {"module_aliases": {"a.old": "a.new", "a.new": "b"}})"),
      "c.json"))
      << "a chain that ends is fine";
}

TEST_F(ConfigTest, RejectsAFunctionPathItsImportStatementDoesNotBind) {
  EXPECT_NE(
      error_of(with_functions(
                   R"([{"import_statement": "from aiter import fmoe", "function_path": "aiter.fmoe"}])"))
          .find("functions_to_monitor[0].function_path: 'aiter' is not bound by 'from aiter import fmoe', "
                "which binds fmoe"),
      std::string::npos);
  EXPECT_NE(error_of(with_functions(
                         R"([{"import_statement": "import aiter.ops as ops", "function_path": "op.f"}])"))
                .find("'op' is not bound by 'import aiter.ops as ops'; did you mean 'ops'?"),
            std::string::npos);
  EXPECT_TRUE(parse_binary_config(
      with_functions(R"([{"import_statement": "from aiter import *", "function_path": "fmoe"}])"), "c.json"));
}

TEST_F(ConfigTest, ReportDirIsRelativeToTheConfigFile) {
  test::TempDir dir;
  auto path = dir.path() / "conf" / "config.json";
  std::filesystem::create_directories(path.parent_path());
  std::string text = k_original;
  std::ofstream(path) << text.insert(1, R"("report": {"dir": "../site/report"},)");
  auto loaded = load_binary_config(path);
  ASSERT_TRUE(loaded) << loaded.error().message();
  EXPECT_EQ(loaded->config.report.dir, dir.path() / "site" / "report");
  EXPECT_TRUE(loaded->warnings.empty());
}

TEST_F(ConfigTest, AbsoluteReportDirIsKeptAndNoneMeansNoReport) {
  auto loaded = parse_binary_config(R"({"report": {"dir": "/srv/www/aaw"},)" + std::string(k_original + 1),
                                    "config.json");
  ASSERT_TRUE(loaded) << loaded.error().message();
  EXPECT_EQ(loaded->config.report.dir, "/srv/www/aaw");
  auto plain = parse_binary_config(k_original, "config.json");
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->config.report.dir.empty());
}

TEST_F(ConfigTest, ReportDirMustBeAString) {
  EXPECT_EQ(error_of(R"({"report": {"dir": 3},)" + std::string(k_original + 1)),
            "config.json: report.dir: expected a string");
}

TEST_F(ConfigTest, NamesUnreadableFile) {
  auto loaded = load_binary_config("/nonexistent/dir/config.json");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().code(), ErrorCode::io);
  EXPECT_NE(loaded.error().message().find("'/nonexistent/dir/config.json'"), std::string::npos);
}

TEST_F(ConfigTest, ReadsTheStaticSection) {
  auto loaded =
      parse_binary_config(with_functions(k_one_function, R"(, "static": {"source_roots": ["lib", "."],
      "module_aliases": {"pkg.old": "pkg.new"}})"),
                          "config.json");
  ASSERT_TRUE(loaded) << loaded.error().message();
  EXPECT_EQ(loaded->config.static_extraction.source_roots, (std::vector<std::string>{"lib", "."}));
  EXPECT_EQ(loaded->config.static_extraction.module_aliases.at("pkg.old"), "pkg.new");
  EXPECT_EQ(error_of(with_functions(k_one_function, R"(, "static": {"module_aliases": {"a": 1}})")),
            "config.json: static.module_aliases.a: expected a string");
}

TEST_F(ConfigTest, StaticCacheMbBoundsTheParsedModulesAndMustBePositive) {
  auto defaults = parse_binary_config(with_functions(k_one_function, ""), "config.json");
  ASSERT_TRUE(defaults) << defaults.error().message();
  EXPECT_EQ(defaults->config.static_extraction.cache_mb, 32);
  auto loaded =
      parse_binary_config(with_functions(k_one_function, R"(, "static": {"cache_mb": 16})"), "config.json");
  ASSERT_TRUE(loaded) << loaded.error().message();
  EXPECT_EQ(loaded->config.static_extraction.cache_mb, 16);
  EXPECT_NE(
      error_of(with_functions(k_one_function, R"(, "static": {"cache_mb": 0})")).find("static.cache_mb"),
      std::string::npos);
  EXPECT_NE(
      error_of(with_functions(k_one_function, R"(, "static": {"cache_mb": "big"})")).find("static.cache_mb"),
      std::string::npos);
}

TEST_F(ConfigTest, StaticParseAheadIsOnUnlessTurnedOff) {
  auto defaults = parse_binary_config(with_functions(k_one_function, ""), "config.json");
  ASSERT_TRUE(defaults) << defaults.error().message();
  EXPECT_TRUE(defaults->config.static_extraction.parse_ahead);
  auto off = parse_binary_config(with_functions(k_one_function, R"(, "static": {"parse_ahead": false})"),
                                 "config.json");
  ASSERT_TRUE(off) << off.error().message();
  EXPECT_FALSE(off->config.static_extraction.parse_ahead);
  EXPECT_NE(error_of(with_functions(k_one_function, R"(, "static": {"parse_ahead": "yes"})"))
                .find("static.parse_ahead"),
            std::string::npos);
}

}  // namespace
}  // namespace aaw
