// The bad-input table of docs/bad-inputs.md, one test per row, on the built binary: each
// input gets its exit code and a message naming it and the cause, nothing is silently accepted,
// no C++ error leaks, and errors go to stderr and the log file, never to stdout.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/process.hpp"
#include "support/synthetic_aiter.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"
#include "util/files.hpp"

namespace aaw::test {
namespace {

using nlohmann::json;

class BadInputCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = std::make_unique<TempDir>("aaw-bad-input");
    GitFixture repo(s_dir->path() / "work");
    s_commits = SyntheticAiter::build(repo);
    s_served = repo.bare_clone(s_dir->path() / "served" / "aiter.git");
  }
  static void TearDownTestSuite() { s_dir.reset(); }

  // A config in m_dir/etc/ with state and log given relative to it.
  std::filesystem::path config(const json& extra = json::object(), const json& functions = nullptr) {
    json config = json::parse(SyntheticAiter::config_json(s_served.string(), m_dir.path()));
    config["state_dir"] = "state";
    config["log"]["file"] = "watcher.log";
    if (!functions.is_null()) config["functions_to_monitor"] = functions;
    if (extra.is_object()) config.update(extra);
    std::filesystem::create_directories(etc());
    auto path = etc() / "config.json";
    std::ofstream(path) << config.dump(2);
    return path;
  }
  std::filesystem::path etc() const { return m_dir.path() / "etc"; }
  std::string log_text() const { return read_file(etc() / "watcher.log").value_or(""); }

  RunOptions options(const std::filesystem::path& cwd) const {
    RunOptions o;
    o.cwd = cwd;
    o.unset_env = {"GITHUB_TOKEN"};
    return o;
  }
  // Runs from another directory than the config's: relative paths must not depend on it.
  ProcessResult run(std::vector<std::string> args) {
    args.insert(args.begin(), AAW_BINARY);
    std::filesystem::create_directories(m_dir.path() / "elsewhere");
    return run_process(args, options(m_dir.path() / "elsewhere"));
  }
  // Exit code 2, the message on stderr, nothing leaked from C++ and no error on stdout.
  void expect_error(const ProcessResult& r, const std::string& message) {
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_TRUE(contains(r.err, message)) << r.err;
    EXPECT_FALSE(contains(r.err, "std::") || contains(r.err, "vector::") || contains(r.err, "basic_string"))
        << r.err;
    EXPECT_FALSE(contains(r.out, "ERROR") || contains(r.out, "error:")) << r.out;
  }

  static json function(const std::string& import_statement, const std::string& path) {
    return json::array({{{"import_statement", import_statement}, {"function_path", path}}});
  }

  TempDir m_dir{"aaw-bad-input-run"};
  static std::unique_ptr<TempDir> s_dir;
  static SyntheticAiterCommits s_commits;
  static std::filesystem::path s_served;
};

std::unique_ptr<TempDir> BadInputCliTest::s_dir;
SyntheticAiterCommits BadInputCliTest::s_commits;
std::filesystem::path BadInputCliTest::s_served;

// ---- 1. config mistakes are caught --------------------------------------------------------------

TEST_F(BadInputCliTest, CheckConfigNamesAMisspeltFunctionPathWithTheClosestNames) {
  auto cfg = config({}, function("import aiter", "aiter.rms_nrom"));
  auto r = run({"check-config", "--config", cfg.string()});
  expect_error(r, "error: function 'aiter.rms_nrom' ('import aiter'): not found at branch 'main' (" +
                      s_commits.compatible.substr(0, 12) +
                      "): 'rms_nrom' not found in module 'aiter'; did you mean 'rms_norm'?");
  EXPECT_TRUE(contains(r.out, "NOT FOUND aiter.rms_nrom")) << r.out;
  EXPECT_TRUE(contains(r.out, "1 of 1 functions not found")) << r.out;
}

TEST_F(BadInputCliTest, CheckConfigNamesAnImportStatementThatBindsAnotherName) {
  auto cfg =
      config({}, function("import aiter.fused_moe_bf16_asm as rocm_aiter_asm_fmoe", "rocm_aiter.asm_moe"));
  expect_error(
      run({"check-config", "--config", cfg.string()}),
      "'rocm_aiter' is not bound by 'import aiter.fused_moe_bf16_asm as rocm_aiter_asm_fmoe'; did you "
      "mean 'rocm_aiter_asm_fmoe'?");
}

TEST_F(BadInputCliTest, AnImportStatementNoCommitCouldRunIsRefusedBeforeAnythingIsCloned) {
  auto cfg = config({}, function("import aiter,", "aiter.rms_norm"));
  for (const char* command : {"check-config", "compare", "watch"}) {
    std::vector<std::string> args = {command, "--config", cfg.string()};
    if (std::string(command) == "compare") args.insert(args.end(), {"v0.1", "main"});
    if (std::string(command) == "watch") args.push_back("--once");
    auto r = run(args);
    expect_error(r,
                 "functions_to_monitor[0].import_statement: 'import aiter,' is not one import statement "
                 "Python can run: a name was expected after ',', not the end");
    EXPECT_FALSE(contains(r.out + r.err, "Cloning")) << command << ": " << r.out;
    EXPECT_FALSE(contains(r.out, "Gate:")) << command << ": " << r.out;
  }
}

TEST_F(BadInputCliTest, CheckConfigRefusesWhatTheOtherCommandsWouldRefuseAtTheirStart) {
  for (const auto& [overrides, message] : std::vector<std::pair<json, std::string>>{
           {{{"branch", "v0.1"}}, "branch 'v0.1' not found on "},
           {{{"start_commit", "nope"}}, "start_commit 'nope': unknown commit, branch or tag 'nope'"},
           {{{"last_checked_commit", "main~1..main"}},
            "last_checked_commit 'main~1..main': 'main~1..main' is a range"},
           {{{"commit_list", json::array({"main", "nope"})}}, "commit_list[1] 'nope': unknown commit"},
           {{{"compare_pair", json::array({"nope", "main"})}}, "compare_pair[0] 'nope': unknown commit"},
           {{{"waivers", "no-such-waivers.json"}}, "no-such-waivers.json"},
           {{{"consumer", {{"path", "no-such-consumer"}}}}, "consumer.path '"},
           {{{"consumer", {{"path", "."}, {"pinned_commit", "nope"}}}}, "consumer.pinned_commit 'nope'"}}) {
    auto r = run({"check-config", "--config", config(overrides).string()});
    expect_error(r, message);
    EXPECT_FALSE(contains(r.out, "\nok\n")) << overrides.dump() << ": " << r.out;
  }
}

TEST_F(BadInputCliTest, WithTheRuntimeExtractorANameTheStaticViewMissesIsOnlyAWarning) {
  // A compiled module defines names no static reading sees; the runtime extractor will look.
  auto cfg = config({{"extractor", "runtime"}}, function("import aiter", "aiter.rms_nrom"));
  auto r = run({"check-config", "--config", cfg.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(
      contains(r.err, "warning: function 'aiter.rms_nrom' ('import aiter'): not found at branch 'main'"))
      << r.err;
  EXPECT_TRUE(contains(r.err,
                       "did you mean 'rms_norm'? (not found statically; the runtime extractor may still "
                       "find it in a compiled module)"))
      << r.err;
}

// check-config must not say "ok" to a config the daemon then refuses: a state_dir that records
// another repository (a copied config with a new repository_url) fails both alike.
TEST_F(BadInputCliTest, AStateDirThatIsAFileOrAStoreThatIsADirectoryIsNamed) {
  std::filesystem::create_directories(etc());
  std::ofstream(etc() / "a-file") << "x";
  auto file_state = config({{"state_dir", "a-file"}});
  for (const char* command : {"status", "history", "watch"}) {
    std::vector<std::string> args = {command, "--config", file_state.string()};
    if (std::string(command) == "watch") args.push_back("--once");
    expect_error(run(args), "state_dir '" + (etc() / "a-file").string() + "' is not a directory");
  }
  std::filesystem::create_directories(etc() / "state" / "state.db");
  expect_error(
      run({"watch", "--once", "--config", config().string()}),
      "state store '" + (etc() / "state" / "state.db").string() + "' is a directory, not a SQLite file");
}

TEST_F(BadInputCliTest, CheckConfigRefusesAStateDirRecordedForAnotherRepository) {
  auto cfg = config();
  auto watched = run({"watch", "--config", cfg.string(), "--once"});
  ASSERT_EQ(watched.exit_code, 0) << watched.err;
  auto moved = s_dir->path() / "served" / "moved.git";
  if (!std::filesystem::exists(moved))
    std::filesystem::copy(s_served, moved, std::filesystem::copy_options::recursive);
  config({{"repository_url", moved.string()}});
  const std::string refusal = "state store '" + (etc() / "state" / "state.db").string() + "' belongs to '" +
                              s_served.string() + "', not '" + moved.string() + "': use another state_dir";
  auto checked = run({"check-config", "--config", cfg.string()});
  expect_error(checked, refusal);
  EXPECT_FALSE(contains(checked.out, "ok\n")) << checked.out;
  expect_error(run({"watch", "--config", cfg.string(), "--once"}), refusal);
}

TEST_F(BadInputCliTest, StraySpacesInAFunctionPathAreAConfigError) {
  auto cfg = config({}, function("import aiter", " aiter.rms_norm"));
  expect_error(run({"check-config", "--config", cfg.string()}),
               "functions_to_monitor[0].function_path: ' aiter.rms_norm' is not a dotted Python name like "
               "'module.function' (stray spaces?)");
}

TEST_F(BadInputCliTest, CheckConfigAtACommitWhereEveryFunctionIsThereSaysOk) {
  auto cfg = config();
  auto r = run({"check-config", "--config", cfg.string(), "--at", "v0.1"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "functions (10) at 'v0.1' (" + s_commits.base.substr(0, 12) + "):")) << r.out;
  EXPECT_TRUE(contains(r.out, "state_dir: " + (etc() / "state").string())) << r.out;
  EXPECT_TRUE(r.out.size() >= 3 && r.out.substr(r.out.size() - 3) == "ok\n") << r.out;
  auto at_head = run({"check-config", "--config", cfg.string()});
  expect_error(at_head,
               "function 'legacy.old_fn' ('import aiter.ops.legacy as legacy'): not found at branch "
               "'main'");
}

TEST_F(BadInputCliTest, CompareExitsTwoForAFunctionFoundAtNeitherCommit) {
  auto cfg =
      config({}, json::array({{{"import_statement", "import aiter"}, {"function_path", "aiter.rms_nrom"}},
                              {{"import_statement", "import aiter"}, {"function_path", "aiter.rms_norm"}}}));
  auto r = run({"compare", "--config", cfg.string(), s_commits.base, "main"});
  expect_error(r, "ERROR - function 'aiter.rms_nrom' ('import aiter'): not found at 'main' (" +
                      s_commits.compatible.substr(0, 12) + ") nor at '" + s_commits.base + "'");
  EXPECT_TRUE(contains(r.out, "API change detected for aiter.rms_norm")) << "the others are still compared";
  EXPECT_TRUE(contains(log_text(), "ERROR - function 'aiter.rms_nrom'")) << log_text();
}

TEST_F(BadInputCliTest, WatchStartUpLogsAnErrorForAFunctionFoundNowhereAndGoesOn) {
  auto cfg =
      config({}, json::array({{{"import_statement", "import aiter"}, {"function_path", "aiter.rms_nrom"}},
                              {{"import_statement", "import aiter"}, {"function_path", "aiter.rms_norm"}}}));
  auto r = run({"watch", "--config", cfg.string(), "--once"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(
      contains(r.err, "ERROR - function 'aiter.rms_nrom' ('import aiter'): not found at branch 'main'"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "did you mean 'rms_norm'?")) << r.err;
  EXPECT_FALSE(contains(r.out, "ERROR")) << r.out;
  EXPECT_TRUE(contains(log_text(), "ERROR - function 'aiter.rms_nrom'")) << log_text();
}

TEST_F(BadInputCliTest, AMistypedCommandOrOptionGetsTheClosestOne) {
  auto cfg = config();
  expect_error(run({"wacth", "--config", cfg.string()}),
               "error: unknown command 'wacth', did you mean 'watch'?");
  expect_error(run({"watch", "--onse", "--config", cfg.string()}),
               "error: unknown option '--onse', did you mean '--once'?");
  expect_error(run({"history", "--config", cfg.string(), "--limt=3"}),
               "error: unknown option '--limt', did you mean '--limit'?");
  expect_error(run({"status", "--config", cfg.string(), "--config", cfg.string()}),
               "error: --config: given 2 times; give it once");
  // One argument more than a command takes is no command.
  expect_error(run({"compare", "--config", cfg.string(), "v0.1", "main", "main~1"}),
               "error: unexpected argument 'main~1' for 'compare' (see compare --help)");
}

TEST_F(BadInputCliTest, ADirectoryOrACommentInPlaceOfAConfigIsSaidInWords) {
  config();  // makes etc/
  const std::filesystem::path fifo = etc() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_error(run({"check-config", "--config", fifo.string()}),
               "error: config '" + fifo.string() + "' is not a regular file: give --config the JSON file");
  expect_error(run({"check-config", "--config", etc().string()}),
               "error: config '" + etc().string() + "' is a directory, not a config file");
  auto path = etc() / "commented.json";
  std::ofstream(path) << "{\n  // the watched repository\n  \"repository_url\": \"x\"\n}\n";
  expect_error(run({"check-config", "--config", path.string()}),
               path.string() + ":2:3: comments are not JSON: remove them");
}

TEST_F(BadInputCliTest, CheckConfigRefusesATokenFileItCannotRead) {
  auto cfg = config({{"github", {{"token_file", "no-such-token"}}}});
  expect_error(run({"check-config", "--config", cfg.string()}), "error: cannot read github.token_file '" +
                                                                    (etc() / "no-such-token").string() +
                                                                    "': No such file or directory");
}

TEST_F(BadInputCliTest, ADaemonWhoseLocalRepositoryIsMissingStopsWithAConfigError) {
  auto cfg = config({{"repository_url", (m_dir.path() / "no-such-repo").string()}});
  auto started = std::chrono::steady_clock::now();
  auto r = run({"watch", "--config", cfg.string()});  // not --once: a daemon must not wait for it
  expect_error(r,
               "error: repository_url '" + (m_dir.path() / "no-such-repo").string() + "': no such directory");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30)) << "no retry";
}

TEST_F(BadInputCliTest, ADaemonWhoseLocalRepositoryIsNoRepositoryStopsWithAConfigError) {
  std::filesystem::create_directories(m_dir.path() / "not-git" / "src");
  std::ofstream(m_dir.path() / "a-file") << "x";
  for (const auto& [path, why] : std::vector<std::pair<std::string, std::string>>{
           {"not-git", "not a git repository"}, {"a-file", "not a directory"}}) {
    auto cfg = config({{"repository_url", (m_dir.path() / path).string()}});
    auto started = std::chrono::steady_clock::now();
    auto r = run({"watch", "--config", cfg.string()});  // not --once: a daemon must not wait for it
    expect_error(r, "error: repository_url '" + (m_dir.path() / path).string() + "': " + why);
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30)) << "no retry";
    EXPECT_FALSE(contains(r.out + r.err, "Cloning")) << r.out;
  }
}

TEST_F(BadInputCliTest, ReplayWithoutCommitsReplaysTheConfigsCommitList) {
  auto cfg = config({{"commit_list", json::array({s_commits.base, s_commits.inserted})}});
  auto r = run({"replay", "--once", "--config", cfg.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(log_text(), "Processing commit " + s_commits.inserted)) << log_text();
  expect_error(run({"replay", "--once", "--config", config().string()}),
               "error: replay: no commits to replay: give them as arguments, or set commit_list");
}

TEST_F(BadInputCliTest, HistoryOfAFunctionNeitherMonitoredNorRecordedIsASlip) {
  auto cfg = config({{"start_commit", s_commits.base}});
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  expect_error(
      run({"history", "--config", cfg.string(), "shuffle_weigth"}),
      "error: function 'shuffle_weigth' is neither in functions_to_monitor nor in the recorded history, "
      "did you mean 'shuffle_weight'?");
  auto known = run({"history", "--config", cfg.string(), "shuffle_weight"});
  EXPECT_EQ(known.exit_code, 0) << known.err;
}

// ---- 2. errors reach the log file ---------------------------------------------------------------

TEST_F(BadInputCliTest, AFatalErrorGoesToStderrAndTheLogFile) {
  auto cfg = config({{"repository_url", (m_dir.path() / "no-such-repo").string()}});
  auto r = run({"compare", "--config", cfg.string(), "main~1", "main"});
  expect_error(r, "aiter-api-watcher: error: repository_url '" + (m_dir.path() / "no-such-repo").string() +
                      "': no such directory");
  EXPECT_TRUE(contains(log_text(), "ERROR - Exiting on error: repository_url")) << log_text();
  EXPECT_FALSE(contains(r.out + r.err, "Cloning")) << "nothing announced that cannot start";
}

// ---- 3. relative paths, and queries that create nothing -----------------------------------------

TEST_F(BadInputCliTest, RelativePathsAreRelativeToTheConfigFileWhereverTheCommandRuns) {
  auto cfg = config({{"start_commit", s_commits.base}});
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(etc() / "state" / "state.db"));
  EXPECT_FALSE(std::filesystem::exists(m_dir.path() / "elsewhere" / "state"));
  auto status = run({"status", "--config", cfg.string(), "--check"});
  EXPECT_EQ(status.exit_code, 0) << status.out;
  EXPECT_TRUE(contains(status.out, "last processed commit: " + s_commits.compatible)) << status.out;
  auto history = run({"history", "--config", cfg.string(), "--format", "json"});
  EXPECT_EQ(json::parse(history.out)["changes"].size(), 11u);
}

TEST_F(BadInputCliTest, QueriesWithoutAStateDirSaySoAndCreateNothing) {
  auto cfg = config();
  std::string none = "state_dir '" + (etc() / "state").string() +
                     "' does not exist: nothing has been recorded with this config yet";
  expect_error(run({"history", "--config", cfg.string()}), none);
  expect_error(run({"show", "--config", cfg.string(), "main"}), none);
  auto status = run({"status", "--config", cfg.string(), "--check"});
  EXPECT_EQ(status.exit_code, 1);
  EXPECT_TRUE(contains(status.out, "(does not exist: nothing has run with this config yet")) << status.out;
  EXPECT_FALSE(std::filesystem::exists(etc() / "state"));
}

// ---- 4. revisions --------------------------------------------------------------------------------

TEST_F(BadInputCliTest, AnEmptyRevisionIsNamedNotACppError) {
  auto cfg = config();
  expect_error(run({"compare", "--config", cfg.string(), "", "main"}),
               "old commit '': an empty revision names no commit");
}

TEST_F(BadInputCliTest, RevisionExpressionsAreAcceptedAndARangeIsRefused) {
  auto cfg = config();
  auto r = run({"compare", "--config", cfg.string(), "--format", "json", "main~5", "main~4"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(json::parse(r.out)["old"], s_commits.renamed);
  EXPECT_EQ(json::parse(r.out)["new"], s_commits.inserted);
  auto tag = run({"compare", "--config", cfg.string(), "--format", "json", "v0.1^{}", "feature^"});
  EXPECT_EQ(tag.exit_code, 1) << tag.err;
  EXPECT_EQ(json::parse(tag.out)["new"], s_commits.compatible) << tag.err;
  expect_error(run({"compare", "--config", cfg.string(), "main~1..main", "main"}),
               "old commit 'main~1..main': 'main~1..main' is a range; give one commit");
  expect_error(run({"compare", "--config", cfg.string(), "main~99", "main"}),
               "old commit 'main~99': cannot resolve 'main~99'");
}

TEST_F(BadInputCliTest, HistoryFiltersRefuseWhatTheyCannotRead) {
  auto cfg = config({{"start_commit", s_commits.base}});
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  expect_error(
      run({"history", "--config", cfg.string(), "--since", "last tuesday"}),
      "--since: 'last tuesday' is not a date: expected YYYY-MM-DD, an ISO 8601 date-time or 'N days ago'");
  expect_error(run({"history", "--config", cfg.string(), "--range", ".."}),
               "--range '..': give A.., ..B or A..B");
  for (const char* flag : {"--since", "--until", "--range"})
    expect_error(run({"history", "--config", cfg.string(), flag, ""}),
                 std::string(flag) + ": an empty value filters nothing");
  expect_error(run({"history", "--config", cfg.string(), "--since", "2025-02-30"}),
               "--since: '2025-02-30' is not a date");
  expect_error(run({"history", "--config", cfg.string(), "--range", "main"}),
               "--range 'main': expected A..B");
  expect_error(run({"history", "--config", cfg.string(), "--range", "nope..main"}),
               "--range 'nope..main': unknown commit, branch or tag 'nope'");
  expect_error(run({"history", "--config", cfg.string(), "--severity", "loud"}), "--severity");
  expect_error(run({"history", "--config", cfg.string(), "--limit=-1"}),
               "--limit: expected a count of 0 or more, got '-1'");
}

TEST_F(BadInputCliTest, HistoryFiltersByRangeSeverityDateAndCount) {
  auto cfg = config({{"start_commit", s_commits.base}});
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  auto changes = [&](std::vector<std::string> filters) {
    std::vector<std::string> args = {"history", "--config", cfg.string(), "--format", "json"};
    args.insert(args.end(), filters.begin(), filters.end());
    auto r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    json document = json::parse(r.out);
    std::vector<std::string> out;
    for (const json& c : document["changes"])
      out.push_back(c["commit"].get<std::string>() + " " + c["function_path"].get<std::string>());
    return out;
  };
  EXPECT_EQ(changes({"--range", "main~2..main~1"}),
            (std::vector<std::string>{s_commits.deleted + " shuffle_weight", s_commits.deleted + " gemm_a8w8",
                                      s_commits.deleted + " legacy.old_fn"}));
  EXPECT_EQ(changes({"--severity", "breaking", "--limit", "2"}),
            (std::vector<std::string>{s_commits.deleted + " legacy.old_fn",
                                      s_commits.compatible + " aiter.rms_norm"}));
  EXPECT_EQ(changes({"--since", "2000-01-01", "--until", "2000-01-02"}).size(), 0u);
  EXPECT_EQ(changes({"--since", "2000-01-01"}).size(), 11u);
}

// ---- 5.-6. notification targets ------------------------------------------------------------------

TEST_F(BadInputCliTest, AWebhookUrlThatIsNoHttpUrlIsRefusedAtConfigTime) {
  auto cfg = config({{"notify", {{"webhook", {{"url", "not a url"}}}}}});
  expect_error(run({"check-config", "--config", cfg.string()}),
               "notify.webhook.url: expected an http:// or https:// URL with a host");
}

TEST_F(BadInputCliTest, AGithubRepoThatIsNoOwnerSlashNameIsRefusedAtConfigTime) {
  auto cfg = config({{"notify", {{"github_issue", {{"repo", "ROCm-aiter"}}}}}});
  expect_error(run({"watch", "--config", cfg.string(), "--once"}),
               "notify.github_issue.repo: expected 'owner/name', got 'ROCm-aiter'");
}

// ---- 7. one writer per state_dir -----------------------------------------------------------------

TEST_F(BadInputCliTest, ASecondWriterExitsTwoNamingTheFirstAndQueriesStillWork) {
  auto cfg = config({{"start_commit", s_commits.base}});
  BackgroundProcess first({AAW_BINARY, "watch", "--config", cfg.string()}, m_dir.path() / "first.txt",
                          options(m_dir.path()));
  ASSERT_TRUE(eventually([&] { return contains(log_text(), "Checking commit " + s_commits.compatible); }))
      << log_text() << first.log();
  auto second = run({"watch", "--config", cfg.string(), "--once"});
  expect_error(second, "state_dir '" + (etc() / "state").string() +
                           "' is in use by another aiter-api-watcher (PID " + std::to_string(first.pid()) +
                           ")");
  expect_error(run({"replay", "--config", cfg.string(), "--once", "main"}),
               "is in use by another aiter-api-watcher");
  EXPECT_EQ(run({"status", "--config", cfg.string()}).exit_code, 0);
  EXPECT_EQ(run({"history", "--config", cfg.string()}).exit_code, 0);
  ASSERT_EQ(::kill(first.pid(), SIGTERM), 0);
  ASSERT_TRUE(eventually([&] { return !first.running(); }));
  EXPECT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0)
      << "the lock went with the process";
}

// ---- 10. a misspelt branch -----------------------------------------------------------------------

TEST_F(BadInputCliTest, AMisspeltBranchIsAnErrorNamingTheBranchesThatExist) {
  auto cfg = config({{"branch", "mian"}});
  auto r = run({"watch", "--config", cfg.string()});
  expect_error(r, "branch 'mian' not found on '" + s_served.string() +
                      "'; its branches are: 'feature', 'main' (did you mean 'main'?)");
  EXPECT_TRUE(contains(log_text(), "ERROR - branch 'mian' not found")) << log_text();
  expect_error(run({"check-config", "--config", cfg.string()}), "branch 'mian' not found on");
}

TEST_F(BadInputCliTest, TheFirstCloneSaysWhatItIsDoing) {
  auto cfg = config();
  auto r = run({"watch", "--config", cfg.string(), "--once"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "INFO - Cloning " + s_served.string() + " into " +
                                  (etc() / "state" / "mirrors").string() + " (first use"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "INFO - Cloned " + s_served.string() + " in ")) << r.out;
  auto again = run({"watch", "--config", cfg.string(), "--once"});
  EXPECT_FALSE(contains(again.out, "Cloning")) << again.out;
}

}  // namespace
}  // namespace aaw::test
