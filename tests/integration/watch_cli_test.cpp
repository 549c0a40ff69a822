// The built binary as a daemon against a real git daemon on loopback: watch --once, the poll loop
// for real (a pushed commit is detected; an outage is logged once and recovered from; SIGHUP
// reopens the log; SIGTERM ends it cleanly), replay with a bad commit, history and show, and
// crash safety: kill -9 at random instants of a replay, restarted each time, ends with exactly
// the history and events of an uninterrupted run.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <thread>

#include "support/git_daemon.hpp"
#include "support/process.hpp"
#include "support/silent_listener.hpp"
#include "support/synthetic_aiter.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"

namespace aaw::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

class WatchCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_commits = SyntheticAiter::build(m_repo);
    m_served = m_repo.bare_clone(m_dir.path() / "served" / "aiter.git");
    m_daemon = std::make_unique<GitDaemon>(m_dir.path() / "served");
  }

  std::filesystem::path config(const std::string& extra) {
    auto path = m_dir.path() / "config.json";
    std::ofstream(path) << SyntheticAiter::config_json(m_daemon->url("aiter.git"), m_dir.path(), extra);
    return path;
  }
  std::vector<std::string> argv(const std::vector<std::string>& args) const {
    std::vector<std::string> out = {AAW_BINARY};
    out.insert(out.end(), args.begin(), args.end());
    return out;
  }
  RunOptions options() const {
    RunOptions o;
    o.cwd = m_dir.path();
    o.unset_env = {"GITHUB_TOKEN"};
    return o;
  }
  ProcessResult run(const std::vector<std::string>& args) { return run_process(argv(args), options()); }

  json history(const std::filesystem::path& config_path) {
    auto r = run({"history", "--config", config_path.string(), "--format", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out)["changes"];
  }
  std::vector<json> events() const {
    std::ifstream in(m_dir.path() / "state" / "events.jsonl");
    std::vector<json> out;
    for (std::string line; std::getline(in, line);) {
      json event = json::parse(line);
      event.erase("time");
      out.push_back(event);
    }
    return out;
  }
  std::string log_text() const { return read_text(m_dir.path() / "watcher.log"); }
  void push() { m_repo.push_mirror(m_served); }

  TempDir m_dir{"aaw-watch-cli"};
  GitFixture m_repo{m_dir.path() / "work"};
  SyntheticAiterCommits m_commits;
  std::filesystem::path m_served;
  std::unique_ptr<GitDaemon> m_daemon;
};

TEST_F(WatchCliTest, OnceRecordsHistoryEventsAndOriginalLogLines) {
  auto cfg = config("\"start_commit\": \"" + m_commits.base + "\"");
  auto r = run({"watch", "--config", cfg.string(), "--once"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("INFO - Found 7 new commits since " + m_commits.base), std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find("INFO - Initial signature for rocm_aiter_asm_fmoe.moe_sorting_ck: (topk_ids, topk_weights, "
                 "num_experts, model_dim, moebuf_dtype, block_size=32, expert_mask=None)"),
      std::string::npos);
  EXPECT_NE(r.out.find("INFO - API change detected for legacy.old_fn"), std::string::npos);
  EXPECT_NE(r.out.find("INFO - Processed 7 commits in "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(": 11 API changes (5 breaking) at 6 commits"), std::string::npos) << r.out;
  // Where the time went: the functions whose resolutions cost the most, with their counts.
  EXPECT_TRUE(std::regex_search(
      r.out,
      std::regex("INFO - Costliest functions \\(resolving them, and checking the changed files they read, "
                 "that time split among the functions reading each\\): [^\n]+ [0-9]+\\.[0-9]{2} s "
                 "\\([0-9]+ resolutions?, [0-9]+ checks?\\)")))
      << r.out;
  // The routine lines are the log file's, as the original wrote them; the console keeps to what matters.
  EXPECT_NE(log_text().find("INFO - Checking commit " + m_commits.renamed), std::string::npos);
  EXPECT_NE(log_text().find("INFO - No API change for gemm_a8w8_CK"), std::string::npos);
  EXPECT_EQ(r.out.find("Checking commit"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("No API change for"), std::string::npos) << r.out;
  json changes = history(cfg);
  ASSERT_EQ(changes.size(), 11u);
  EXPECT_EQ(changes[0]["commit"], m_commits.renamed);
  EXPECT_EQ(changes[0]["function_path"], "rocm_aiter_asm_fmoe.moe_sorting_ck");
  EXPECT_EQ(changes[0]["severity"], "breaking");
  EXPECT_EQ(changes[0]["subject"], "Rename expert_mask to mask in moe_sorting_ck");
  EXPECT_EQ(events().size(), 21u);
  EXPECT_EQ(events()[0]["type"], "initial");
}

TEST_F(WatchCliTest, LogLevelDebugShowsTheRoutineLinesOnTheConsoleAndQuietOnlyProblems) {
  auto cfg = config("\"start_commit\": \"" + m_commits.base + "\"");
  auto r = run({"watch", "--config", cfg.string(), "--once", "--log-level", "debug"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("INFO - Checking commit " + m_commits.renamed), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("INFO - No API change for gemm_a8w8_CK"), std::string::npos) << r.out;

  std::filesystem::remove_all(m_dir.path() / "state");
  std::filesystem::remove(m_dir.path() / "watcher.log");
  r = run({"--quiet", "watch", "--config", cfg.string(), "--once"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.out, "");  // nothing wrong, nothing said
  EXPECT_EQ(r.err, "");
  // The log file keeps its own level: every line is there.
  EXPECT_NE(log_text().find("INFO - API change detected for legacy.old_fn"), std::string::npos);
  EXPECT_NE(log_text().find("INFO - No API change for gemm_a8w8_CK"), std::string::npos);

  r = run({"watch", "--config", cfg.string(), "--once", "--log-level", "loud"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--log-level"), std::string::npos) << r.err;
}

TEST_F(WatchCliTest, AFunctionAddedToTheConfigLaterGetsItsHistoryBackFilled) {
  auto cfg = config("\"start_commit\": \"" + m_commits.base + "\"");
  json full = json::parse(read_text(cfg));
  json without = full;
  auto& list = without["functions_to_monitor"];
  list.erase(std::remove_if(
                 list.begin(), list.end(),
                 [](const json& f) { return f["function_path"] == "rocm_aiter_asm_fmoe.moe_sorting_ck"; }),
             list.end());
  ASSERT_EQ(list.size() + 1, full["functions_to_monitor"].size());
  std::ofstream(cfg) << without.dump(2);
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  auto r =
      run({"history", "--config", cfg.string(), "rocm_aiter_asm_fmoe.moe_sorting_ck", "--format", "json"});
  ASSERT_EQ(r.exit_code, 2) << r.out << r.err;  // not monitored, never recorded

  std::ofstream(cfg) << full.dump(2);
  r = run({"watch", "--config", cfg.string(), "--once"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(
      r.out.find("INFO - 1 function(s) new in the config: back-filling their history over the 8 commit(s)"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("INFO - Back-filled 1 function(s) over 8 commit(s) in "), std::string::npos) << r.out;
  json changes = history(cfg);
  std::vector<json> sorting;
  for (const json& c : changes)
    if (c["function_path"] == "rocm_aiter_asm_fmoe.moe_sorting_ck") sorting.push_back(c);
  ASSERT_EQ(sorting.size(), 1u);
  EXPECT_EQ(sorting[0]["commit"], m_commits.renamed) << "where the rename happened, not where it was found";
  EXPECT_EQ(sorting[0]["severity"], "breaking");
  EXPECT_EQ(sorting[0]["backfilled"], true);
  std::size_t initial = 0;
  for (const json& e : events())
    if (e["function_path"] == "rocm_aiter_asm_fmoe.moe_sorting_ck" && e["type"] == "initial") {
      ++initial;
      EXPECT_EQ(e["commit"], m_commits.base) << "the first commit processed";
      EXPECT_EQ(e["backfilled"], true);
    }
  EXPECT_EQ(initial, 1u);
  r = run({"history", "--config", cfg.string(), "rocm_aiter_asm_fmoe.moe_sorting_ck"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Rename expert_mask to mask in moe_sorting_ck ["), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("] (back-filled)\n"), std::string::npos) << r.out;
}

TEST_F(WatchCliTest, HistoryFiltersByFunctionAndShowReadsRecordedStates) {
  auto cfg = config("\"start_commit\": \"" + m_commits.base + "\"");
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  auto r = run({"history", "--config", cfg.string(), "shuffle_weight"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_of(r.out, " shuffle_weight ("), 3) << r.out;
  EXPECT_EQ(r.out.find("moe_sorting_ck"), std::string::npos);
  r = run({"show", "--config", cfg.string(), m_commits.renamed.substr(0, 8), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json shown = json::parse(r.out);
  EXPECT_TRUE(shown["recorded"].get<bool>());
  EXPECT_EQ(shown["functions"][0]["state"]["text"],
            "(topk_ids, topk_weights, num_experts, model_dim, moebuf_dtype, block_size=32, mask=None)");
  r = run({"show", "--config", cfg.string(), "feature"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("not recorded; extracted now"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gemm_a8w8_CK: (XQ, WQ, x_scale, w_scale, Y, bias, splitK: Optional[int] = None)"),
            std::string::npos)
      << r.out;
}

TEST_F(WatchCliTest, ReplayNamesUnknownCommitAndProcessesTheOthers) {
  auto cfg = config("");
  auto r = run({"replay", "--config", cfg.string(), "--once", m_commits.base, "deadbeef", m_commits.renamed});
  EXPECT_EQ(r.exit_code, 2);
  // An ERROR line: on stderr (and in the log file), never on stdout.
  EXPECT_NE(r.err.find("ERROR - Cannot replay commit 'deadbeef': unknown commit, branch or tag 'deadbeef'"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("ERROR"), std::string::npos) << r.out;
  EXPECT_NE(log_text().find("ERROR - Cannot replay commit 'deadbeef'"), std::string::npos);
  EXPECT_NE(log_text().find("INFO - Processing commit " + m_commits.renamed), std::string::npos);
  json changes = history(cfg);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0]["commit"], m_commits.renamed);
}

TEST_F(WatchCliTest, ReplacedStateStoreStartsANewEventLogAndKeepsTheOld) {
  auto cfg = config("\"start_commit\": \"" + m_commits.base + "\"");
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  for (const char* name : {"state.db", "state.db-wal", "state.db-shm"})
    std::filesystem::remove(m_dir.path() / "state" / name);
  auto r = run({"watch", "--config", cfg.string(), "--once"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("the store was replaced"), std::string::npos) << r.out;
  EXPECT_EQ(events().size(), 21u) << "every event of the new store is written";
  int old_logs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(m_dir.path() / "state"))
    old_logs += entry.path().filename().string().rfind("events.jsonl.", 0) == 0;
  EXPECT_EQ(old_logs, 1);
}

TEST_F(WatchCliTest, SyntaxErrorCommitIsRecordedAsUnknownChange) {
  auto cfg = config("\"start_commit\": \"" + m_commits.defaults + "\"");
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  json changes = history(cfg);
  ASSERT_GE(changes.size(), 1u);
  EXPECT_EQ(changes[0]["commit"], m_commits.broken);
  EXPECT_EQ(changes[0]["severity"], "unknown");
  EXPECT_EQ(changes[0]["new"]["status"], "syntax_error");
}

TEST_F(WatchCliTest, PollLoopDetectsPushSurvivesOutageReopensLogAndStopsOnSigterm) {
  auto cfg = config("\"check_interval_seconds\": 1");
  BackgroundProcess daemon(argv({"watch", "--config", cfg.string()}), m_dir.path() / "stdout.txt", options());
  ASSERT_TRUE(eventually([&] { return count_of(log_text(), "Initial signature for ") == 10; })) << log_text();

  m_repo.write_file("aiter/ops/shuffle.py",
                    "def shuffle_weight(x, layout=(32, 32), use_int4=False):\n    return x\n");
  std::string pushed = m_repo.commit("Pushed while watching");
  push();
  ASSERT_TRUE(eventually([&] { return log_text().find("Checking commit " + pushed) != std::string::npos; }))
      << log_text();

  m_daemon->stop();
  ASSERT_TRUE(eventually([&] { return count_of(log_text(), "retrying with backoff") == 1; })) << log_text();
  std::this_thread::sleep_for(3s);  // several failed polls: still one line for the outage
  m_daemon->restart();
  ASSERT_TRUE(eventually([&] { return log_text().find("reachable again") != std::string::npos; }))
      << log_text();
  EXPECT_EQ(count_of(log_text(), "retrying with backoff"), 1);

  std::filesystem::rename(m_dir.path() / "watcher.log", m_dir.path() / "watcher.log.old");
  ASSERT_EQ(::kill(daemon.pid(), SIGHUP), 0);
  ASSERT_TRUE(eventually([&] { return log_text().find("Reopened log files") != std::string::npos; }));

  ASSERT_EQ(::kill(daemon.pid(), SIGTERM), 0);
  ASSERT_TRUE(eventually([&] { return !daemon.running(); }, 10s));
  EXPECT_EQ(daemon.exit_code(), 0);
  EXPECT_NE(log_text().find("Stopping on request"), std::string::npos);
  json changes = history(cfg);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0]["commit"], pushed);
}

TEST_F(WatchCliTest, OnceAgainstARemoteThatNeverAnswersEndsWithAClearError) {
  SilentListener silent;
  auto cfg = m_dir.path() / "silent.json";
  std::ofstream(cfg) << SyntheticAiter::config_json(silent.url("git", "aiter.git"), m_dir.path(),
                                                    "\"git\": {\"timeout_seconds\": 2}");
  auto r = run({"watch", "--config", cfg.string(), "--once"});
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(log_text().find("ERROR - cannot reach 'git://127.0.0.1:" + std::to_string(silent.port()) +
                            "/aiter.git': the remote sent nothing for 2 s (git.timeout_seconds)"),
            std::string::npos)
      << log_text();
}

TEST_F(WatchCliTest, SigtermEndsWatchWhileTheRemoteSaysNothing) {
  SilentListener silent;
  auto cfg = m_dir.path() / "silent.json";
  std::ofstream(cfg) << SyntheticAiter::config_json(silent.url("git", "aiter.git"), m_dir.path(), "");
  BackgroundProcess daemon(argv({"watch", "--config", cfg.string()}), m_dir.path() / "stdout.txt", options());
  ASSERT_TRUE(eventually([&] { return log_text().find("Checking for API changes...") != std::string::npos; }))
      << log_text();
  std::this_thread::sleep_for(500ms);  // well into the ls-remote that never returns
  ASSERT_EQ(::kill(daemon.pid(), SIGTERM), 0);
  ASSERT_TRUE(eventually([&] { return !daemon.running(); }, 10s)) << log_text();
  EXPECT_EQ(daemon.exit_code(), 0);
  EXPECT_NE(log_text().find("Stopping on request"), std::string::npos) << log_text();
}

TEST_F(WatchCliTest, FirstStartWithTheRemoteDownRetriesUntilItComesUp) {
  m_daemon->stop();
  auto cfg = config("\"check_interval_seconds\": 1");
  BackgroundProcess daemon(argv({"watch", "--config", cfg.string()}), m_dir.path() / "stdout.txt", options());
  ASSERT_TRUE(eventually([&] { return count_of(log_text(), "retrying with backoff") == 1; })) << log_text();
  std::this_thread::sleep_for(1500ms);
  ASSERT_TRUE(daemon.running()) << "exited at the first start: " << log_text();
  m_daemon->restart();
  ASSERT_TRUE(eventually([&] { return count_of(log_text(), "Initial signature for ") == 10; })) << log_text();
  // Logged once the poll that recovered is done.
  EXPECT_TRUE(eventually([&] { return log_text().find("reachable again") != std::string::npos; }));
  ASSERT_EQ(::kill(daemon.pid(), SIGTERM), 0);
  ASSERT_TRUE(eventually([&] { return !daemon.running(); }, 10s));
  EXPECT_EQ(daemon.exit_code(), 0);
}

TEST_F(WatchCliTest, OnceWithTheRemoteDownAtFirstStartExitsTwoAndLeavesNoMirror) {
  m_daemon->stop();
  auto cfg = config("");
  auto r = run({"watch", "--config", cfg.string(), "--once"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(log_text().find("ERROR - cannot reach"), std::string::npos) << log_text();
  const auto mirrors = m_dir.path() / "state" / "mirrors";
  EXPECT_TRUE(!std::filesystem::exists(mirrors) || std::filesystem::is_empty(mirrors));
}

TEST_F(WatchCliTest, CommitListInConfigReplaysThenMonitorsFromTheLastReplayedCommit) {
  auto cfg = config("\"commit_list\": [\"" + m_commits.base + "\", \"" + m_commits.inserted + "\"]");
  BackgroundProcess daemon(argv({"--config", cfg.string()}), m_dir.path() / "stdout.txt", options());
  // SIGTERM finishes the commit in progress: once the head is being checked, it is recorded.
  ASSERT_TRUE(eventually([&] {
    return log_text().find("Checking commit " + m_commits.compatible) != std::string::npos;
  })) << log_text();
  ASSERT_EQ(::kill(daemon.pid(), SIGTERM), 0);
  ASSERT_TRUE(eventually([&] { return !daemon.running(); }, 10s));
  EXPECT_EQ(daemon.exit_code(), 0);
  EXPECT_NE(log_text().find("Processing commit " + m_commits.inserted), std::string::npos);
  EXPECT_NE(log_text().find("Found 4 new commits since " + m_commits.inserted), std::string::npos)
      << log_text();
  json changes = history(cfg);
  // base -> inserted (moe_sorting_ck renamed, asm_moe inserted), then every change after inserted:
  // none between the replay and the head is lost.
  ASSERT_EQ(changes.size(), 11u) << changes.dump(2);
  EXPECT_EQ(changes.back()["commit"], m_commits.compatible);
}

TEST_F(WatchCliTest, NoSubcommandWithoutComparePairMonitorsLikeTheOriginal) {
  auto cfg = config("");
  BackgroundProcess daemon(argv({"--config", cfg.string()}), m_dir.path() / "stdout.txt", options());
  ASSERT_TRUE(eventually([&] { return count_of(log_text(), "Initial signature for ") == 10; })) << log_text();
  EXPECT_NE(log_text().find("INFO - Check interval: 3600 seconds"), std::string::npos);
  ASSERT_EQ(::kill(daemon.pid(), SIGINT), 0);
  ASSERT_TRUE(eventually([&] { return !daemon.running(); }, 10s));
  EXPECT_EQ(daemon.exit_code(), 0);
}

// A history of `count` commits on top of the synthetic package, each changing one default.
std::vector<std::string> long_history(GitFixture& repo, int count) {
  std::vector<std::string> texts;
  for (int i = 0; i < count; ++i)
    texts.push_back("def shuffle_weight(x, layout=(" + std::to_string(i) + ", 16)):\n    return x\n");
  return repo.commit_versions("aiter/ops/shuffle.py", texts, "layout");
}

TEST_F(WatchCliTest, KillNineAtRandomInstantsOfReplayLosesAndDuplicatesNothing) {
  std::vector<std::string> list = long_history(m_repo, 150);
  push();
  std::vector<std::string> args = {"replay", "--once", "--config", config("").string()};
  args.insert(args.end(), list.begin(), list.end());

  auto started = std::chrono::steady_clock::now();
  ASSERT_EQ(run(args).exit_code, 0);
  auto uninterrupted = std::chrono::steady_clock::now() - started;
  json reference_history = history(m_dir.path() / "config.json");
  std::vector<json> reference_events = events();
  ASSERT_EQ(reference_history.size(), 149u);
  std::filesystem::remove_all(m_dir.path() / "state" / "state.db");
  for (const char* suffix : {"-wal", "-shm"})
    std::filesystem::remove(m_dir.path() / "state" / (std::string("state.db") + suffix));
  std::filesystem::remove(m_dir.path() / "state" / "events.jsonl");

  std::mt19937 random(20261121);
  auto limit = std::chrono::duration_cast<std::chrono::milliseconds>(uninterrupted).count();
  // Short delays keep most kills inside a run: each run resumes where the last one was killed.
  std::uniform_int_distribution<long long> instant(0, std::max<long long>(limit / 4, 50));
  int killed_mid_run = 0;
  for (int trial = 0; trial < 100 && killed_mid_run < 20; ++trial) {
    BackgroundProcess victim(argv(args), m_dir.path() / "victim.txt", options());
    std::this_thread::sleep_for(std::chrono::milliseconds(instant(random)));
    if (victim.running()) ++killed_mid_run;
    ::kill(victim.pid(), SIGKILL);
    victim.stop();
  }
  EXPECT_EQ(killed_mid_run, 20) << "twenty kills should land while the replay runs";
  ASSERT_EQ(run(args).exit_code, 0);
  EXPECT_EQ(history(m_dir.path() / "config.json"), reference_history);
  EXPECT_EQ(events(), reference_events);
}

// A --once run stopped by SIGTERM before its last commit says so and exits 3, never 0: scripts and
// CI must not read a cut-short run as a finished one. The next run resumes and exits 0.
TEST_F(WatchCliTest, ReplayOnceStoppedBySigtermExitsThreeAndTheRerunFinishes) {
  std::vector<std::string> list = long_history(m_repo, 400);
  push();
  std::vector<std::string> args = {"replay", "--once", "--config", config("").string()};
  args.insert(args.end(), list.begin(), list.end());
  BackgroundProcess victim(argv(args), m_dir.path() / "victim.txt", options());
  ASSERT_TRUE(eventually([&] {
    return log_text().find("Processing commit " + list[5]) != std::string::npos;
  })) << log_text();
  ASSERT_EQ(::kill(victim.pid(), SIGTERM), 0);
  ASSERT_TRUE(eventually([&] { return !victim.running(); }, 20s));
  if (log_text().find("Processing commit " + list.back()) != std::string::npos)
    GTEST_SKIP() << "the replay reached its last commit before SIGTERM arrived";
  EXPECT_EQ(victim.exit_code(), 3) << log_text();
  EXPECT_NE(log_text().find("WARNING - Interrupted after "), std::string::npos) << log_text();
  EXPECT_NE(log_text().find("of 400 commits"), std::string::npos) << log_text();

  auto rerun = run(args);
  EXPECT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_EQ(history(m_dir.path() / "config.json").size(), 399u);
}

}  // namespace
}  // namespace aaw::test
