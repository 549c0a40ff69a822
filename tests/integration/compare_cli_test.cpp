// The built binary against real remotes on loopback: `compare` and the original compare_pair mode
// over a git daemon and a file:// URL, every output format, and each bad input -> exit 2 with a
// message naming it.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/git_daemon.hpp"
#include "support/process.hpp"
#include "support/synthetic_aiter.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"
#include "support/watcher_binary.hpp"

namespace aaw::test {
namespace {

class CompareCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = std::make_unique<TempDir>("aaw-cli");
    GitFixture repo(s_dir->path() / "work");
    s_commits = SyntheticAiter::build(repo);
    repo.bare_clone(s_dir->path() / "served" / "aiter.git");
    s_daemon = std::make_unique<GitDaemon>(s_dir->path() / "served");
  }
  static void TearDownTestSuite() {
    s_daemon.reset();
    s_dir.reset();
  }

  std::filesystem::path write_config(const std::string& url, const std::string& extra = "") {
    auto path = m_work.path() / "config.json";
    std::ofstream(path) << SyntheticAiter::config_json(url, m_work.path(), extra);
    return path;
  }
  std::filesystem::path write_raw_config(const std::string& text) {
    auto path = m_work.path() / "raw.json";
    std::ofstream(path) << text;
    return path;
  }
  ProcessResult run(const std::vector<std::string>& args) { return run_watcher(m_work.path(), args); }
  static std::string daemon_url() { return s_daemon->url("aiter.git"); }

  TempDir m_work{"aaw-cli-run"};
  static std::unique_ptr<TempDir> s_dir;
  static std::unique_ptr<GitDaemon> s_daemon;
  static SyntheticAiterCommits s_commits;
};

std::unique_ptr<TempDir> CompareCliTest::s_dir;
std::unique_ptr<GitDaemon> CompareCliTest::s_daemon;
SyntheticAiterCommits CompareCliTest::s_commits;

TEST_F(CompareCliTest, TextOutputOverGitDaemonReportsPlantedChange) {
  auto config = write_config(daemon_url());
  auto r = run({"compare", "--config", config.string(), s_commits.reformatted, s_commits.renamed});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(
      r.out,
      " - aiter_api_watcher - INFO - API change detected for rocm_aiter_asm_fmoe.moe_sorting_ck between " +
          s_commits.reformatted + " and " + s_commits.renamed + " (breaking)"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "breaking: parameter 'expert_mask' removed (was 'expert_mask=None')")) << r.out;
  EXPECT_TRUE(contains(r.out, "compatible: parameter 'mask' added: 'mask=None'")) << r.out;
  EXPECT_TRUE(contains(r.out, "INFO - No API change for gemm_a8w8_CK between " + s_commits.reformatted +
                                  " and " + s_commits.renamed))
      << r.out;
  EXPECT_TRUE(contains(r.out, "INFO - Exiting after comparing two commits")) << r.out;
  std::ifstream log(m_work.path() / "watcher.log");
  std::stringstream logged;
  logged << log.rdbuf();
  EXPECT_TRUE(contains(logged.str(), "API change detected for rocm_aiter_asm_fmoe.moe_sorting_ck"));
}

TEST_F(CompareCliTest, NoChangeExitsZeroOverFileUrl) {
  auto config = write_config("file://" + (s_dir->path() / "served" / "aiter.git").string());
  auto r = run({"compare", "--config", config.string(), s_commits.base, s_commits.reformatted});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(contains(r.out, "No API change for rocm_aiter_asm_fmoe.asm_moe")) << r.out;
}

TEST_F(CompareCliTest, JsonOutputIsTheContractDocumentOnStdout) {
  auto config = write_config(daemon_url());
  auto r = run(
      {"compare", "--config", config.string(), "--format", "json", s_commits.inserted, s_commits.defaults});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["old"], s_commits.inserted);
  EXPECT_EQ(json["new"], s_commits.defaults);
  ASSERT_EQ(json["functions"].size(), 10u);
  std::map<std::string, nlohmann::json> by_path;
  for (const auto& f : json["functions"]) by_path[f["function_path"]] = f;
  const auto& fmoe = by_path["aiter.fmoe_fp8_blockscale_g1u1"];
  ASSERT_EQ(fmoe["changes"].size(), 1u);
  // The contract's CHANGE object, kept as it was; the compare document adds the gate's fields.
  nlohmann::json change = fmoe["changes"][0];
  for (const char* gate_key : {"description", "fingerprint", "level", "accepted", "waiver"})
    EXPECT_EQ(change.erase(gate_key), 1u) << gate_key;
  EXPECT_EQ(change, nlohmann::json({{"kind", "default_changed"},
                                    {"severity", "behavioural"},
                                    {"parameter", "fc_scale_blkn"},
                                    {"old", "128"},
                                    {"new", "256"}}));
  EXPECT_EQ(json["schema"], "aiter-api-watcher/compare/1");
  EXPECT_EQ(fmoe["old"]["status"], "ok");
  EXPECT_TRUE(by_path["gemm_a8w8_CK"]["changes"].empty());
  EXPECT_TRUE(contains(r.err, "Comparing two commits")) << "log lines go to stderr in json mode";
}

TEST_F(CompareCliTest, FailOnBreakingIgnoresNonBreakingChanges) {
  auto config = write_config(daemon_url());
  auto r = run({"compare", "--config", config.string(), "--fail-on", "breaking", s_commits.inserted,
                s_commits.defaults});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run({"compare", "--config", config.string(), "--fail-on", "breaking", s_commits.renamed,
           s_commits.inserted});
  EXPECT_EQ(r.exit_code, 1) << r.err;
}

TEST_F(CompareCliTest, MarkdownOutputListsChanges) {
  auto config = write_config(daemon_url());
  auto r = run({"compare", "--config", config.string(), "--format", "markdown", "v0.1", "feature"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.out, "# API changes " + s_commits.base.substr(0, 12))) << r.out;
  EXPECT_TRUE(contains(r.out, "## `gemm_a8w8_CK` — breaking")) << r.out;
}

TEST_F(CompareCliTest, OriginalModeComparesComparePairAndExits) {
  auto config = write_config(daemon_url(), "\"compare_pair\": [\"" + s_commits.broken.substr(0, 10) +
                                               "\", \"" + s_commits.deleted + "\"]");
  auto r = run({"--config", config.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.out, "INFO - Starting aiter API watcher")) << r.out;
  EXPECT_TRUE(contains(r.out, "INFO - Monitoring 10 functions")) << r.out;
  EXPECT_TRUE(contains(r.out, "INFO - Check interval: 3600 seconds")) << r.out;
  EXPECT_TRUE(contains(
      r.out, "INFO - Comparing two commits: " + s_commits.broken.substr(0, 10) + " -> " + s_commits.deleted))
      << r.out;
  EXPECT_TRUE(contains(r.out, "API change detected for legacy.old_fn")) << r.out;
  EXPECT_TRUE(contains(r.out, "breaking: function removed")) << r.out;
  EXPECT_TRUE(contains(r.out, "INFO - Exiting after comparing two commits")) << r.out;
}

TEST_F(CompareCliTest, KnownCommitsNeedNoRemote) {
  auto config = write_config(daemon_url());
  ASSERT_EQ(run({"compare", "--config", config.string(), s_commits.base, s_commits.renamed}).exit_code, 1);
  s_daemon->stop();
  auto r = run({"compare", "--config", config.string(), s_commits.base, s_commits.renamed});
  s_daemon->restart();
  EXPECT_EQ(r.exit_code, 1) << r.err;
}

TEST_F(CompareCliTest, UnknownCommitExitsTwoNamingIt) {
  auto config = write_config(daemon_url());
  auto r = run({"compare", "--config", config.string(), s_commits.base, "0123abcd"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "aiter-api-watcher: error: new commit '0123abcd'")) << r.err;
}

TEST_F(CompareCliTest, MalformedRevisionExitsTwoNamingIt) {
  auto config = write_config(daemon_url());
  auto r = run({"compare", "--config", config.string(), "--upload-pack=touch", s_commits.base});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = run({"compare", "--config", config.string(), "main..feature", s_commits.base});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "'main..feature'")) << r.err;
}

// A repository with enough objects that two ids share a 4-hex prefix.
std::string ambiguous_prefix(const GitFixture& repo) {
  std::istringstream objects(repo.git({"rev-list", "--objects", "--all"}));
  std::map<std::string, int> seen;
  for (std::string line; std::getline(objects, line);)
    if (++seen[line.substr(0, 4)] == 2) return line.substr(0, 4);
  return "";
}

TEST_F(CompareCliTest, AmbiguousShortShaExitsTwoNamingIt) {
  GitFixture repo(m_work.path() / "many");
  for (int i = 0; i < 600; ++i) repo.write_file("f" + std::to_string(i) + ".txt", std::to_string(i) + "\n");
  repo.write_file("m/__init__.py", "def f(a):\n    pass\n");
  repo.commit("many objects");
  std::string prefix = ambiguous_prefix(repo);
  ASSERT_FALSE(prefix.empty());
  auto config = write_raw_config(
      R"({"repository_url": ")" + repo.path().string() +
      R"(", "functions_to_monitor": [{"import_statement": "import m", "function_path": "m.f"}],
                                 "state_dir": "state", "log": {"file": ""}})");
  auto r = run({"compare", "--config", config.string(), "main", prefix});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains(r.err, "'" + prefix + "'")) << r.err;
  EXPECT_TRUE(contains(r.err, "ambiguous")) << r.err;
}

TEST_F(CompareCliTest, UnreachableRemoteExitsTwoNamingIt) {
  auto config = write_config("git://127.0.0.1:1/nothing.git");
  auto r = run({"compare", "--config", config.string(), "main", "feature"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "aiter-api-watcher: error: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "git://127.0.0.1:1/nothing.git")) << r.err;
}

TEST_F(CompareCliTest, ConfigTypeErrorExitsTwoWithJsonPath) {
  auto config = write_raw_config(R"({"repository_url": "x", "functions_to_monitor": [
      {"import_statement": "import a", "function_path": "a.f"},
      {"import_statement": "import a", "function_path": ["a.g"]}]})");
  auto r = run({"compare", "--config", config.string(), "a", "b"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "functions_to_monitor[1].function_path: expected a string")) << r.err;
}

TEST_F(CompareCliTest, MalformedConfigExitsTwoWithPosition) {
  auto config = write_raw_config("{\"repository_url\": \"x\",,}");
  auto r = run({"check-config", "--config", config.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, config.string() + ":1:")) << r.err;
  EXPECT_TRUE(contains(r.err, "malformed JSON")) << r.err;
}

TEST_F(CompareCliTest, MissingConfigFileExitsTwo) {
  auto r = run({"compare", "--config", "does-not-exist.json", "a", "b"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "cannot read config 'does-not-exist.json'")) << r.err;
}

TEST_F(CompareCliTest, UnknownKeyWarnsButRuns) {
  auto config = write_config(daemon_url(), "\"check_intervall_seconds\": 5");
  auto r = run({"compare", "--config", config.string(), s_commits.base, s_commits.reformatted});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(
      contains(r.err, "warning: " + config.string() +
                          ": unknown key 'check_intervall_seconds', did you mean 'check_interval_seconds'?"))
      << r.err;
}

TEST_F(CompareCliTest, UnknownExtractorIsRefusedClearly) {
  auto config = write_config(daemon_url());
  auto r = run({"compare", "--config", config.string(), "--extractor", "dynamic", "main", "feature"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--extractor")) << r.err;
  EXPECT_TRUE(contains(r.err, "dynamic")) << r.err;
}

TEST_F(CompareCliTest, UnknownFlagExitsTwo) {
  auto r = run({"compare", "--frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "aiter-api-watcher: error:")) << r.err;
}

TEST_F(CompareCliTest, CheckConfigSummarisesValidConfig) {
  auto config = write_config(daemon_url());
  auto r = run({"check-config", "--config", config.string(), "--at", s_commits.base});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "functions (10) at '" + s_commits.base + "'")) << r.out;
  EXPECT_TRUE(contains(r.out, "ok        rocm_aiter_asm_fmoe.asm_moe")) << r.out;
}

}  // namespace
}  // namespace aaw::test
