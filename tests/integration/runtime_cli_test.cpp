// The built binary with runtime extraction on the fixpkg history (real builds of a C extension in
// the sandbox, the binary re-executing itself as the extraction child): compare prints the
// planted changes; watch --once records broken builds, segfaulting and hanging imports as
// machinery failures and goes on; history then holds the real changes only.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/git_fixture.hpp"
#include "support/process.hpp"
#include "support/runtime_fixture.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"
#include "support/watcher_binary.hpp"

namespace aaw::test {
namespace {

using json = nlohmann::json;

class RuntimeCliTest : public ::testing::Test {
 protected:
  void SetUp() override { m_commits = RuntimeFixture::build(m_repo); }

  std::filesystem::path config(const std::string& extra = "", const std::string& extractor = "runtime") {
    json parsed = json::parse(RuntimeFixture::config_json(m_repo.file_url(), m_dir.path()));
    parsed.merge_patch(json::parse("{" + extra + "}"));  // the extra keys win
    parsed["extractor"] = extractor;
    auto path = m_dir.path() / "config.json";
    std::ofstream(path) << parsed.dump(2);
    return path;
  }
  ProcessResult run(const std::vector<std::string>& args) { return run_watcher(m_dir.path(), args); }
  json show(const std::filesystem::path& cfg, const std::string& commit) {
    auto r = run({"show", "--config", cfg.string(), commit, "--format", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out);
  }

  TempDir m_dir{"aaw-runtime-cli"};
  GitFixture m_repo{m_dir.path() / "fixpkg"};
  RuntimeFixtureCommits m_commits;
};

TEST_F(RuntimeCliTest, CompareWithTheRuntimeExtractorPrintsThePlantedChanges) {
  auto cfg = config("", "static");
  auto r = run({"compare", "--config", cfg.string(), "--extractor", "runtime", m_commits.base,
                m_commits.default_changed});
  // fixpkg.product comes later (native_changed): at neither commit, so exit 2, after the others.
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_TRUE(contains(r.err, "ERROR - function 'fixpkg.product' ('import fixpkg'): not found at")) << r.err;
  EXPECT_FALSE(contains(r.err, "'fixpkg.fused'")) << "made at import time: the runtime extractor sees it";
  const std::string between = " between " + m_commits.base + " and " + m_commits.default_changed;
  EXPECT_TRUE(contains(r.out, "INFO - Installing fixpkg package")) << r.out;
  EXPECT_TRUE(contains(r.out, "INFO - Successfully installed fixpkg")) << r.out;
  EXPECT_TRUE(contains(r.out, "API change detected for fixpkg.scale" + between + " (compatible)")) << r.out;
  EXPECT_TRUE(contains(r.out, "compatible: parameter 'offset' added: 'offset: Optional[float] = None'"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "API change detected for combine" + between + " (breaking)")) << r.out;
  EXPECT_TRUE(contains(r.out, "breaking: parameter 'b' removed (was 'b')")) << r.out;
  EXPECT_TRUE(contains(r.out, "behavioural: parameter 'hi' default changed from '1' to '10'")) << r.out;
  EXPECT_TRUE(contains(r.out, "No API change for fixpkg.fused" + between)) << r.out;  // static cannot see it
}

// Landlock, as inside a container with `docker run` defaults: the same changes, the sandbox said
// at start and by `status`, and the token file and the config out of the builds' reach.
TEST_F(RuntimeCliTest, CompareUnderLandlockFindsTheSameChangesAndStatusNamesTheSandbox) {
  const auto token = m_dir.path() / "token";
  std::ofstream(token) << "ghp_planted_token_file\n";
  auto cfg =
      config("\"sandbox\": {\"kind\": \"landlock\"}, \"github\": {\"token_file\": \"" + token.string() +
             "\"}, \"build\": {\"command\": [\"sh\", \"-c\", \"cat " + token.string() + " " +
             (m_dir.path() / "config.json").string() + " > peek.txt 2>&1; {python} setup.py develop\"]}");
  auto r = run({"compare", "--config", cfg.string(), m_commits.base, m_commits.default_changed});
  if (contains(r.err, "Landlock cannot run here")) GTEST_SKIP() << r.err;
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;  // fixpkg.product: at neither commit
  EXPECT_TRUE(contains(r.out, "INFO - Sandbox: landlock (Landlock ABI ")) << r.out;
  EXPECT_TRUE(contains(r.out, "API change detected for combine between " + m_commits.base + " and " +
                                  m_commits.default_changed + " (breaking)"))
      << r.out;
  const std::string peek = read_text(m_dir.path() / "state" / "work" / "peek.txt");
  EXPECT_FALSE(contains(peek, "ghp_planted")) << peek;
  EXPECT_FALSE(contains(peek, "functions_to_monitor")) << peek;
  EXPECT_TRUE(contains(peek, "Permission denied")) << peek;

  auto status = run({"status", "--config", cfg.string(), "--format", "json"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const json doc = json::parse(status.out);
  EXPECT_EQ(doc["sandbox"]["kind"], "landlock") << status.out;
  EXPECT_GT(doc["disk"]["state_dir_bytes"].get<long long>(), 0) << status.out;
  auto text = run({"status", "--config", cfg.string()});
  EXPECT_TRUE(contains(text.out, "sandbox: landlock: Landlock ABI ")) << text.out;
}

TEST_F(RuntimeCliTest, TokenFileWithAnUnconfinedSandboxIsRefusedUnlessAccepted) {
  const auto token = m_dir.path() / "token";
  std::ofstream(token) << "ghp_planted_token_file\n";
  const std::string github = "\"github\": {\"token_file\": \"" + token.string() + "\"}";
  auto refused =
      run({"compare", "--config", config("\"sandbox\": {\"kind\": \"process\"}, " + github).string(),
           m_commits.base, m_commits.default_changed});
  EXPECT_EQ(refused.exit_code, 2) << refused.err << refused.out;
  EXPECT_TRUE(contains(refused.err, "could read '" + token.string() + "' (github.token_file)"))
      << refused.err;
  EXPECT_FALSE(contains(refused.out, "Installing fixpkg")) << "refused before any build: " << refused.out;

  auto accepted =
      run({"compare", "--config",
           config("\"sandbox\": {\"kind\": \"process\", \"accept_unconfined\": true}, " + github).string(),
           m_commits.base, m_commits.default_changed});
  EXPECT_EQ(accepted.exit_code, 2) << accepted.err;  // fixpkg.product, as always
  EXPECT_TRUE(contains(accepted.out + accepted.err, "builds and imports run unconfined")) << accepted.out;
  EXPECT_TRUE(contains(accepted.out, "API change detected for combine")) << accepted.out;
}

// A root daemon where neither bubblewrap nor Landlock confines (kind process): the builds and
// imports run as a uid of their own, which cannot read the token file (root's, 0600) or write the
// store, so the token file needs no acceptance. The state directory must be open for them to pass
// through, as /var/lib is: the test's own temporary directory is opened so.
TEST_F(RuntimeCliTest, AsRootThePlainRunnersBuildsRunAsTheirOwnUserAwayFromTheTokenAndTheStore) {
  if (::geteuid() != 0) GTEST_SKIP() << "children change user only when the daemon is root";
  namespace fs = std::filesystem;
  fs::permissions(m_dir.path(), fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add);
  const auto token = m_dir.path() / "token";
  std::ofstream(token) << "ghp_planted_token_file\n";
  fs::permissions(token, fs::perms::owner_read | fs::perms::owner_write);
  const auto store = m_dir.path() / "state" / "state.db";
  auto cfg = config("\"sandbox\": {\"kind\": \"process\"}, \"github\": {\"token_file\": \"" + token.string() +
                    "\"}, \"build\": {\"command\": [\"sh\", \"-c\", \"id -u > whoami.txt; cat " +
                    token.string() + " > peek.txt 2>&1; (echo x >> " + store.string() +
                    ") 2>> peek.txt; {python} setup.py develop\"]}");
  auto r = run({"compare", "--config", cfg.string(), m_commits.base, m_commits.default_changed});
  // A binary under a 0700 directory (mktemp -d, /root) is closed to the uid: the daemon rightly
  // falls back to root and says so; nothing to test there.
  const std::string said = r.out + r.err;
  if (const auto at = said.find("cannot run as uid"); at != std::string::npos)
    GTEST_SKIP() << said.substr(at, said.find('\n', at) - at);
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;  // fixpkg.product: at neither commit
  // The uid is the state directory's own, in 60000-64999.
  const auto work = m_dir.path() / "state" / "work";
  const std::string uid = read_text(work / "whoami.txt");
  ASSERT_EQ(uid.size(), 6u) << uid;
  EXPECT_TRUE(uid[0] == '6' && uid[1] <= '4') << uid;
  EXPECT_TRUE(contains(r.out, "as uid " + uid.substr(0, 5) + " ")) << r.out;
  EXPECT_TRUE(contains(r.out, "API change detected for combine between " + m_commits.base + " and " +
                                  m_commits.default_changed + " (breaking)"))
      << r.out;
  const std::string peek = read_text(work / "peek.txt");
  EXPECT_FALSE(contains(peek, "ghp_planted")) << peek;
  EXPECT_TRUE(contains(peek, token.string() + ": Permission denied")) << peek;
  EXPECT_TRUE(contains(peek, store.string() + ": Permission denied")) << peek;
}

TEST_F(RuntimeCliTest, WatchRecordsMachineryFailuresGoesOnAndHistoryHoldsTheRealChangesOnly) {
  auto cfg = config("\"start_commit\": \"" + m_commits.base +
                    "\", \"runtime\": {\"extract_timeout_seconds\": 3, "
                    "\"bisect\": false}");
  auto r = run({"watch", "--config", cfg.string(), "--once"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(contains(r.out, "INFO - Checking out commit " + m_commits.docs_changed)) << r.out;
  // One warning for the commit whose build failed, naming every function: the log's tail once.
  const std::string failed_build =
      "WARNING - Could not extract fixpkg.scale, combine, api.clamp, fixpkg.fused, "
      "fixpkg.product at " +
      m_commits.build_fails + ": build_failed";
  EXPECT_TRUE(contains(r.out, failed_build)) << r.out;
  EXPECT_EQ(r.out.find(m_commits.build_fails + ": build_failed"),
            r.out.rfind(m_commits.build_fails + ": build_failed"))
      << "logged once, not once per function: " << r.out;

  auto h = run({"history", "--config", cfg.string(), "--format", "json"});
  ASSERT_EQ(h.exit_code, 0) << h.err;
  json changes = json::parse(h.out)["changes"];
  std::vector<std::pair<std::string, std::string>> seen;
  for (const json& c : changes) seen.emplace_back(c["commit"], c["function_path"]);
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, std::string>>{
                      {m_commits.param_added, "fixpkg.scale"},
                      {m_commits.param_removed, "combine"},
                      {m_commits.default_changed, "api.clamp"},
                      {m_commits.native_changed, "fixpkg.product"},
                  }))
      << changes.dump(2);

  auto status_at = [&](const std::string& commit) {
    json shown = show(cfg, commit);
    EXPECT_TRUE(shown["recorded"].get<bool>()) << shown.dump(2);
    return shown["functions"][0]["state"]["status"].get<std::string>();
  };
  EXPECT_EQ(status_at(m_commits.build_fails), "build_failed");
  EXPECT_EQ(status_at(m_commits.build_fixed), "ok");
  EXPECT_EQ(status_at(m_commits.import_segfaults), "extract_failed");
  EXPECT_EQ(status_at(m_commits.segfault_fixed), "ok");
  EXPECT_EQ(status_at(m_commits.import_hangs), "extract_failed");
  EXPECT_EQ(status_at(m_commits.hang_fixed), "ok");
}

// Three new commits after the start, none touching the API: the bisection builds the newest, finds
// it unchanged and records the two before it without building them; show says so.
TEST_F(RuntimeCliTest, ShowSaysACommitWasNotBuiltButInferredUnchangedByBisection) {
  m_repo.write_file("NOTES.md", "one\n");
  std::string notes = m_repo.commit("Add notes");
  m_repo.write_file("NOTES.md", "two\n");
  std::string tip = m_repo.commit("More notes");
  auto cfg = config("\"start_commit\": \"" + m_commits.native_changed + "\"");  // bisect: on by default
  auto r = run({"watch", "--config", cfg.string(), "--once"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(contains(r.out, "Commit " + m_commits.docs_changed + " not built: unchanged by bisection"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "Commit " + notes + " not built: unchanged by bisection")) << r.out;

  json inferred = show(cfg, notes);
  EXPECT_TRUE(inferred["recorded"].get<bool>()) << inferred.dump(2);
  EXPECT_TRUE(inferred["bisected"].get<bool>()) << inferred.dump(2);
  EXPECT_EQ(inferred["note"], "recorded; not built, unchanged by bisection");
  ASSERT_EQ(inferred["functions"].size(), 5u) << inferred.dump(2);
  EXPECT_EQ(inferred["functions"][4]["state"]["text"], "(a, b)")
      << "the states of the built commits around it";

  json built = show(cfg, tip);
  EXPECT_TRUE(built["recorded"].get<bool>()) << built.dump(2);
  EXPECT_FALSE(built["bisected"].get<bool>()) << built.dump(2);
  EXPECT_EQ(built["note"], "recorded");

  auto text = run({"show", "--config", cfg.string(), m_commits.docs_changed});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out,
                       "commit " + m_commits.docs_changed + " (recorded; not built, unchanged by bisection)"))
      << text.out;
}

TEST_F(RuntimeCliTest, ShowExtractsAnUnrecordedCommitByBuildingIt) {
  auto cfg = config("\"state_dir\": \"relative-state\"");  // relative to the config file
  // A query creates no state directory; in one that exists, it may clone, build and extract.
  std::filesystem::create_directories(m_dir.path() / "relative-state");
  json shown = show(cfg, m_commits.native_changed);
  EXPECT_FALSE(shown["recorded"].get<bool>());
  ASSERT_EQ(shown["functions"].size(), 5u) << shown.dump(2);
  EXPECT_EQ(shown["functions"][3]["function_path"], "fixpkg.fused");
  EXPECT_EQ(shown["functions"][3]["state"]["text"], "(x, y, *, scale=1.0)");
  EXPECT_EQ(shown["functions"][4]["state"]["text"], "(a, b)");
  EXPECT_TRUE(std::filesystem::exists(m_dir.path() / "relative-state" / "venv" / "bin" / "python"));
}

TEST_F(RuntimeCliTest, ExtractSubcommandIsHiddenFromHelp) {
  auto r = run({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_FALSE(contains(r.out, "__extract")) << r.out;
}

}  // namespace
}  // namespace aaw::test
