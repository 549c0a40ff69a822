// The built binary as a pull request's gate: `compare --repo CHECKOUT --merge-base BASE HEAD` on a
// plain checkout of a PR-like branch (never written into), every gate format validated against
// its JSON Schema (schemas/, with python3-jsonschema: no network), a waiver round trip
// (--suggest-waivers -> waivers file -> accepted, exit 0; an unused waiver reported, fatal with
// --strict-waivers), per-kind levels, and ci/github/api-check.sh run as the workflow runs it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/git_fixture.hpp"
#include "support/process.hpp"
#include "support/synthetic_consumer.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"
#include "support/watcher_binary.hpp"

namespace aaw::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string read(const fs::path& path) {
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

// Every file under `dir` (the .git directory included) with its size and modification time.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    auto stamp = entry.last_write_time().time_since_epoch().count();
    std::string size = entry.is_regular_file() ? std::to_string(entry.file_size()) : "dir";
    out[fs::relative(entry.path(), dir).string()] = size + "@" + std::to_string(stamp);
  }
  return out;
}

// The suite's repositories, made once: a provider checkout on branch "pr" (the breaking commit and
// what follows it), whose base branch "main" moved on from the commit before the break, so that
// merge-base(main, pr) is `compatible`; and the consumer beside it.
struct PullRequestRepos {
  TempDir dir{"aaw-gate-cli"};
  GitFixture repo{dir.path() / "aiter"};
  SyntheticProviderCommits commits = SyntheticConsumer::build_provider(repo);

  PullRequestRepos() {
    repo.branch("pr");
    repo.git({"reset", "--hard", commits.compatible});
    repo.write_file("NOTES.md", "main moved on\n");
    repo.commit("main: notes");
    repo.checkout("pr");
    SyntheticConsumer::write_consumer(dir.path() / "vllm");
  }
};

class GateCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { s_repos = std::make_unique<PullRequestRepos>(); }
  static void TearDownTestSuite() { s_repos.reset(); }

  static GitFixture& repo() { return s_repos->repo; }
  static const SyntheticProviderCommits& commits() { return s_repos->commits; }
  static fs::path consumer() { return s_repos->dir.path() / "vllm"; }

  // The consumer's functions to monitor (discover), its path for the impact, no usable remote:
  // --repo must not need one.
  fs::path config(const Json& extra = Json::object()) {
    auto path = m_work.path() / "config.json";
    fs::remove(path);  // discover never overwrites
    auto r = run({"discover", "--consumer", consumer().string(), "--write-config", path.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    Json config = Json::parse(std::ifstream(path));
    config["repository_url"] = (m_work.path() / "no-such-remote.git").string();
    config["state_dir"] = "state";
    // The consumer also calls a name the provider never had (the check's not-importable case):
    // a function found at neither end makes compare exit 2, which is not what these tests gate.
    auto& functions = config["functions_to_monitor"];
    functions.erase(std::remove_if(functions.begin(), functions.end(),
                                   [](const Json& f) { return contains(f["import_statement"], "new_name"); }),
                    functions.end());
    config["consumer"] = {{"path", consumer().string()}};
    config.update(extra);
    std::ofstream(path) << config.dump(2);
    return path;
  }
  ProcessResult run(const std::vector<std::string>& args, const RunOptions& extra = {}) {
    return run_watcher(m_work.path(), args, extra);
  }
  ProcessResult gate(const fs::path& config, std::vector<std::string> extra) {
    std::vector<std::string> args = {
        "compare", "--config", config.string(), "--repo",  repo().path().string(), "--merge-base",
        "main",    "pr",       "--fail-on",     "breaking"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  }
  // Runs scripts/validate_json.py; "" when `document` is valid, else its errors.
  std::string schema_errors(const std::string& schema, const std::string& document) {
    auto file = m_work.path() / ("document-" + std::to_string(m_documents++) + ".json");
    std::ofstream(file) << document;
    auto r = run_process({"/usr/bin/python3", std::string(AAW_SOURCE_DIR) + "/scripts/validate_json.py",
                          std::string(AAW_SOURCE_DIR) + "/schemas/" + schema, file.string()});
    return r.exit_code == 0 ? "" : r.out + r.err;
  }
  fs::path waivers_file(const Json& entries) {
    auto path = m_work.path() / "waivers.json";
    std::ofstream(path) << Json{{"waivers", entries}}.dump(2);
    return path;
  }
  // The suggested waivers for the gate's changes, filled in with a reason and a name.
  Json filled_suggestions(const fs::path& config) {
    auto suggested = gate(config, {"--suggest-waivers"});
    EXPECT_EQ(suggested.exit_code, 1) << suggested.err;
    Json entries = Json::parse(suggested.out)["waivers"];
    for (Json& entry : entries) entry.update({{"reason", "planned cleanup"}, {"accepted_by", "ann"}});
    return entries;
  }

  TempDir m_work{"aaw-gate-cli-run"};
  int m_documents = 0;
  static std::unique_ptr<PullRequestRepos> s_repos;
};

std::unique_ptr<PullRequestRepos> GateCliTest::s_repos;

TEST_F(GateCliTest, JsonIsTheVersionedDocumentAndValidatesAgainstItsSchema) {
  auto r = gate(config(), {"--format", "json"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["schema"], "aiter-api-watcher/compare/1");
  EXPECT_EQ(doc["old"], commits().compatible);  // the merge base, not main
  EXPECT_EQ(doc["new"], commits().head);
  EXPECT_TRUE(doc["range"]["merge_base"]);
  EXPECT_GT(doc["summary"]["failing"].get<int>(), 0);
  EXPECT_EQ(schema_errors("compare-1.schema.json", r.out), "");
}

// A run that is an error says so in every document it writes, with the process's own exit code:
// a code-scanning upload or a script reading the JSON never sees a clean run where it exited 2.
TEST_F(GateCliTest, AnErrorIsInEveryDocumentWithTheProcessesExitCode) {
  Json misspelt = Json::parse(std::ifstream(config()));
  misspelt["functions_to_monitor"].push_back(
      {{"import_statement", "import aiter"}, {"function_path", "aiter.tpok"}});
  const fs::path path = m_work.path() / "misspelt.json";
  std::ofstream(path) << misspelt.dump(2);
  const fs::path sarif = m_work.path() / "errors.sarif";
  auto r = gate(path, {"--format", "json", "--sarif", sarif.string()});
  ASSERT_EQ(r.exit_code, 2) << r.err;
  Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["exit_code"], 2);
  ASSERT_EQ(doc["errors"].size(), 1u) << doc["errors"].dump();
  EXPECT_TRUE(contains(doc["errors"][0].get<std::string>(), "aiter.tpok")) << doc["errors"][0];
  EXPECT_EQ(schema_errors("compare-1.schema.json", r.out), "");
  std::string sarif_text = read(sarif);
  EXPECT_EQ(schema_errors("sarif-schema-2.1.0.json", sarif_text), "");
  const Json invocation = Json::parse(sarif_text)["runs"][0]["invocations"][0];
  EXPECT_EQ(invocation["executionSuccessful"], false);
  EXPECT_EQ(invocation["exitCode"], 2);
  EXPECT_TRUE(contains(invocation["toolExecutionNotifications"][0]["message"]["text"].get<std::string>(),
                       "aiter.tpok"));
  auto annotations = gate(path, {"--format", "github"});
  EXPECT_EQ(annotations.exit_code, 2);
  EXPECT_TRUE(contains(annotations.out, "::error title=aiter-api-watcher::")) << annotations.out;
}

TEST_F(GateCliTest, SarifValidatesAndPointsAtTheChangedDefWithTheBrokenCallSites) {
  auto r = gate(config(), {"--format", "sarif"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(schema_errors("sarif-schema-2.1.0.json", r.out), "");
  Json sarif = Json::parse(r.out);
  EXPECT_EQ(sarif["runs"][0]["invocations"][0]["executionSuccessful"], true)
      << "a failing gate is no failed run";
  EXPECT_EQ(sarif["runs"][0]["invocations"][0]["exitCode"], 1);
  const Json* removed = nullptr;
  for (const Json& result : sarif["runs"][0]["results"])
    if (result["ruleId"] == "parameter_removed" && result["properties"]["function_path"] == "rocm_aiter.topk")
      removed = &result;
  ASSERT_NE(removed, nullptr) << r.out;
  EXPECT_EQ((*removed)["level"], "error");
  const Json& where = (*removed)["locations"][0]["physicalLocation"];
  EXPECT_EQ(where["artifactLocation"]["uri"], "aiter/ops.py");
  EXPECT_EQ(where["region"]["startLine"], 5);
  ASSERT_TRUE(removed->contains("relatedLocations")) << removed->dump(2);
  EXPECT_EQ((*removed)["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"],
            "CONSUMER");
}

TEST_F(GateCliTest, ReadsTheCheckoutWithoutWritingIntoIt) {
  // git status refreshes the index's stat data (a write): asked before the snapshot, not after.
  const std::string refs = repo().git({"for-each-ref"});
  const std::string status = repo().git({"status", "--porcelain=v2", "-b"});
  const auto cfg = config();
  const auto before = snapshot(repo().path());
  auto r = gate(cfg, {"--format", "json"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(snapshot(repo().path()), before);
  EXPECT_EQ(repo().git({"for-each-ref"}), refs);
  EXPECT_EQ(repo().git({"status", "--porcelain=v2", "-b"}), status);
  EXPECT_FALSE(fs::exists(m_work.path() / "state" / "mirrors")) << "a mirror was made";
}

TEST_F(GateCliTest, GithubAnnotationsAndAJobSummary) {
  auto summary = m_work.path() / "summary.md";
  auto r = gate(config(), {"--format", "github", "--summary", summary.string()});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(
      contains(r.out, "::error file=aiter/ops.py,line=5,title=parameter_removed%3A rocm_aiter.topk::"))
      << r.out;
  std::string md = read(summary);
  EXPECT_TRUE(contains(md, "**❌ Failing**")) << md;
  EXPECT_TRUE(contains(md, "| ❌ denied | deny | breaking | `` rocm_aiter.topk `` |")) << md;
  EXPECT_TRUE(contains(md, "consumer/ops.py:")) << md;
}

TEST_F(GateCliTest, WaiverRoundTripAcceptsTheChangesAndReportsAnUnusedOne) {
  auto cfg = config();
  Json entries = filled_suggestions(cfg);
  ASSERT_FALSE(entries.empty());
  auto waived = gate(cfg, {"--format", "json", "--waivers", waivers_file(entries).string()});
  EXPECT_EQ(waived.exit_code, 0) << waived.err;
  Json doc = Json::parse(waived.out);
  EXPECT_EQ(doc["summary"]["accepted"], doc["summary"]["changes"]);
  EXPECT_TRUE(doc["waivers"]["unused"].empty());
  EXPECT_EQ(schema_errors("compare-1.schema.json", waived.out), "");

  entries.push_back({{"fingerprint", "0123456789abcdef"}, {"reason", "old"}, {"accepted_by", "bob"}});
  auto with_unused = gate(cfg, {"--waivers", waivers_file(entries).string()});
  EXPECT_EQ(with_unused.exit_code, 0) << with_unused.err;
  EXPECT_TRUE(contains(with_unused.out, "WARNING - Waiver 0123456789abcdef in ")) << with_unused.out;
  EXPECT_TRUE(contains(with_unused.out, "Accepted parameter_removed of rocm_aiter.topk")) << with_unused.out;
  auto strict = gate(cfg, {"--waivers", waivers_file(entries).string(), "--strict-waivers"});
  EXPECT_EQ(strict.exit_code, 1) << strict.err;
}

TEST_F(GateCliTest, AWaiversFileInTheHeadCommitApplies) {
  auto cfg = config();
  Json entries = filled_suggestions(cfg);
  GitFixture clone(m_work.path() / "pr-with-waivers");
  clone.git({"fetch", "--update-head-ok", repo().path().string(), "pr:pr", "main:main"});
  clone.git({"checkout", "pr"});
  clone.write_file(".aiter-api-watcher-waivers.json", Json{{"waivers", entries}}.dump(2));
  clone.commit("waive the planned break");
  auto r = run({"compare", "--config", cfg.string(), "--repo", clone.path().string(), "--merge-base", "main",
                "pr", "--fail-on", "breaking"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST_F(GateCliTest, LevelsDecideWhatFails) {
  Json levels = {{"parameter_removed", "warn"}, {"kind_changed", "warn"},    {"parameter_added", "warn"},
                 {"function_removed", "warn"},  {"default_removed", "warn"}, {"parameter_moved", "warn"},
                 {"state_changed", "warn"}};
  auto r = gate(config({{"levels", levels}}), {"--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(Json::parse(r.out)["summary"]["deny"], 0);
}

TEST_F(GateCliTest, BadGateInputsExitTwoNamingTheInput) {
  auto cfg = config();
  auto bad = waivers_file({{{"fingerprint", "0123456789abcdef"}, {"accepted_by", "ann"}}});
  auto r = gate(cfg, {"--waivers", bad.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "aiter-api-watcher: error: waivers file '" + bad.string() +
                                  "': waivers[0].reason: required key is missing"))
      << r.err;
  auto level = gate(config({{"levels", {{"parameter_remove", "warn"}}}}), {});
  EXPECT_EQ(level.exit_code, 2);
  EXPECT_TRUE(contains(level.err,
                       "levels.parameter_remove: unknown change kind 'parameter_remove', did you mean "
                       "'parameter_removed'?"))
      << level.err;
  auto not_repo =
      run({"compare", "--config", config().string(), "--repo", m_work.path().string(), "main", "pr"});
  EXPECT_EQ(not_repo.exit_code, 2);
  EXPECT_TRUE(contains(not_repo.err, "--repo '" + m_work.path().string() + "': cannot open the repository"))
      << not_repo.err;
}

TEST_F(GateCliTest, CheckJsonIsVersionedAndValidatesAgainstItsSchema) {
  auto cfg = config({{"repository_url", repo().path().string()}});  // check reads a mirror of it
  auto r = run({"check", "--config", cfg.string(), "--format", "json", "--no-blame", commits().head});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(Json::parse(r.out)["schema"], "aiter-api-watcher/check/1");
  EXPECT_EQ(schema_errors("check-1.schema.json", r.out), "");
}

TEST_F(GateCliTest, TheWorkflowScriptGatesAPullRequestLikeTheWorkflow) {
  auto summary = m_work.path() / "step-summary.md";
  RunOptions options;
  options.cwd = repo().path();
  options.unset_env = {"GITHUB_TOKEN"};
  options.env = {{"AAW_BIN", AAW_BINARY},
                 {"AAW_CONFIG", config().string()},
                 {"AAW_BASE", "main"},
                 {"AAW_HEAD", "pr"},
                 {"AAW_SARIF", (m_work.path() / "out.sarif").string()},
                 {"GITHUB_STEP_SUMMARY", summary.string()}};
  auto r = run_process({std::string(AAW_SOURCE_DIR) + "/ci/github/api-check.sh"}, options);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.out, "::error file=aiter/ops.py,line=5,")) << r.out;
  EXPECT_TRUE(contains(r.err, "aiter API check: unwaived deny changes")) << r.err;
  EXPECT_EQ(schema_errors("sarif-schema-2.1.0.json", read(m_work.path() / "out.sarif")), "");
  EXPECT_TRUE(contains(read(summary), "## aiter-api-watcher: API check")) << read(summary);
  EXPECT_EQ(repo().git({"status", "--porcelain"}), "") << "the script wrote into the checkout";
}

TEST_F(GateCliTest, TheConsumerScriptChecksTheCallsLikeTheNightlyWorkflow) {
  auto cfg = config({{"repository_url", repo().path().string()}});  // check reads a mirror of it
  auto summary = m_work.path() / "step-summary.md";
  auto document = m_work.path() / "check.json";
  RunOptions options;
  options.cwd = m_work.path();
  options.unset_env = {"GITHUB_TOKEN"};
  options.env = {{"AAW_BIN", AAW_BINARY},
                 {"AAW_CONFIG", cfg.string()},
                 {"AAW_COMMIT", commits().head},
                 {"AAW_CHECK_JSON", document.string()},
                 {"GITHUB_STEP_SUMMARY", summary.string()}};
  auto r = run_process({std::string(AAW_SOURCE_DIR) + "/ci/github/consumer-check.sh"}, options);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(schema_errors("check-1.schema.json", read(document)), "");
  EXPECT_TRUE(contains(read(summary), "## Consumer check at `")) << read(summary);
}

TEST(GateWorkflowTest, TheWorkflowsParseAndRunTheScriptsTheTestsRun) {
  // What GitHub reads: valid YAML whose steps call the scripts tested above.
  const std::string check = R"(
import sys, yaml
for name, script in (("api-check", "api-check.sh"), ("consumer-check", "consumer-check.sh")):
    workflow = yaml.safe_load(open(sys.argv[1] + "/ci/github/" + name + ".yml"))
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    assert any(script in step.get("run", "") for step in steps), name + " does not run " + script
print("ok")
)";
  auto r = run_process({"/usr/bin/python3", "-c", check, AAW_SOURCE_DIR});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "ok\n");
}

}  // namespace
}  // namespace aaw::test
