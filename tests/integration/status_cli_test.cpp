// `status` on the built binary: what it reports before any run, after `watch --once`, with a stale
// or failed poll, with commits still to process and with notifications waiting; `--check` exit
// codes for a health check. It reads state_dir only: no network, nothing created.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/git_daemon.hpp"
#include "support/process.hpp"
#include "support/synthetic_aiter.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"

namespace aaw::test {
namespace {

using nlohmann::json;

class StatusCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_commits = SyntheticAiter::build(m_repo);
    m_served = m_repo.bare_clone(m_dir.path() / "served" / "aiter.git");
  }

  std::filesystem::path config(const std::string& extra = "") {
    auto path = m_dir.path() / "config.json";
    std::ofstream(path) << SyntheticAiter::config_json(m_served.string(), m_dir.path(), extra);
    return path;
  }
  // The binary with `args`; or, when args[0] is "bwrap", bubblewrap with them (which runs it).
  ProcessResult run(std::vector<std::string> args) {
    if (args.front() != "bwrap") args.insert(args.begin(), AAW_BINARY);
    RunOptions o;
    o.cwd = m_dir.path();
    o.unset_env = {"GITHUB_TOKEN"};
    return run_process(args, o);
  }
  json status_json(const std::filesystem::path& cfg) {
    auto r = run({"status", "--config", cfg.string(), "--format", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out);
  }
  // Writes a named value the way the daemon does.
  void set_value(const std::string& key, const std::string& value) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((m_dir.path() / "state" / "state.db").c_str(), &db), SQLITE_OK);
    std::string sql = "UPDATE named_values SET value = '" + value + "' WHERE key = '" + key + "'";
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    EXPECT_EQ(sqlite3_changes(db), 1) << key;
    sqlite3_close(db);
  }

  TempDir m_dir{"aaw-status-cli"};
  GitFixture m_repo{m_dir.path() / "work"};
  SyntheticAiterCommits m_commits;
  std::filesystem::path m_served;
};

TEST_F(StatusCliTest, BeforeAnyRunTheCheckFailsAndNothingIsCreated) {
  auto cfg = config();
  auto r = run({"status", "--config", cfg.string(), "--check"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("last poll: never"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("health: stale: no successful poll or replay recorded"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(m_dir.path() / "state"));
  EXPECT_EQ(run({"status", "--config", cfg.string()}).exit_code, 0) << "without --check, only a report";
}

TEST_F(StatusCliTest, AfterWatchOnceReportsThePollTheHeadsAndHealth) {
  auto cfg = config("\"start_commit\": \"" + m_commits.base + "\"");
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  json s = status_json(cfg);
  EXPECT_EQ(s["repository_url"], m_served.string());
  EXPECT_EQ(s["branch"], "main");
  EXPECT_EQ(s["last_poll_result"], "ok");
  EXPECT_TRUE(s["last_poll_time"].is_string());
  EXPECT_EQ(s["last_poll_success_time"], s["last_poll_time"]);
  EXPECT_EQ(s["remote_head"], m_commits.compatible);
  EXPECT_EQ(s["last_processed_commit"], m_commits.compatible);
  EXPECT_EQ(s["pending_commits"], 0);
  EXPECT_EQ(s["outbox"],
            json({{"pending", 0}, {"delivered", 0}, {"failed", 0}, {"failed_items", json::array()}}));
  EXPECT_TRUE(s["last_error"].is_null());
  EXPECT_EQ(s["healthy"], true);
  auto r = run({"status", "--config", cfg.string(), "--check"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("remote head: " + m_commits.compatible), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("last processed commit: " + m_commits.compatible), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("outbox: 0 pending, 0 delivered, 0 failed"), std::string::npos) << r.out;
}

TEST_F(StatusCliTest, AfterReplayOnceTheStatusIsHealthyAndNamesTheLastReplayedCommit) {
  auto cfg = config();
  ASSERT_EQ(run({"replay", "--once", "--config", cfg.string(), m_commits.base, m_commits.inserted}).exit_code,
            0);
  json s = status_json(cfg);
  EXPECT_EQ(s["last_processed_commit"], m_commits.inserted);
  EXPECT_EQ(s["last_replay_result"], "ok");
  EXPECT_TRUE(s["last_poll_time"].is_null());
  EXPECT_EQ(s["healthy"], true);
  auto r = run({"status", "--config", cfg.string(), "--check"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("last processed commit: " + m_commits.inserted), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("health: ok: last successful replay "), std::string::npos) << r.out;
  auto report = run({"report", "--config", cfg.string(), "--out", (m_dir.path() / "page").string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  std::string page = read_text(m_dir.path() / "page" / "index.html");
  EXPECT_EQ(page.find("none yet"), std::string::npos);
  EXPECT_NE(page.find(m_commits.inserted.substr(0, 12)), std::string::npos);
}

// A read-only state_dir: a read-only mount (bubblewrap's --ro-bind, which holds for root too).
TEST_F(StatusCliTest, ReadsAStateDirectoryItCannotWriteTo) {
  if (!run_process({"bwrap", "--dev-bind", "/", "/", "true"}).ok())
    GTEST_SKIP() << "bubblewrap cannot run here";
  auto cfg = config("\"start_commit\": \"" + m_commits.base + "\"");
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  const std::string state = (m_dir.path() / "state").string();
  auto r = run({"bwrap", "--dev-bind", "/", "/", "--ro-bind", state, state, "--", AAW_BINARY, "status",
                "--config", cfg.string(), "--format", "json", "--check"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json s = json::parse(r.out);
  EXPECT_EQ(s["last_processed_commit"], m_commits.compatible);
  EXPECT_EQ(s["healthy"], true);
  EXPECT_EQ(s["exit_code"], 0);
}

// history, show and report are queries too: an operator reads the service user's state_dir with them.
TEST_F(StatusCliTest, HistoryShowAndReportReadAStateDirectoryTheyCannotWriteTo) {
  if (!run_process({"bwrap", "--dev-bind", "/", "/", "true"}).ok())
    GTEST_SKIP() << "bubblewrap cannot run here";
  auto cfg = config("\"start_commit\": \"" + m_commits.base + "\"");
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  const std::string state = (m_dir.path() / "state").string();
  auto read_only = [&](std::vector<std::string> args) {
    std::vector<std::string> command = {"bwrap", "--dev-bind", "/",  "/",       "--ro-bind",
                                        state,   state,        "--", AAW_BINARY};
    command.insert(command.end(), args.begin(), args.end());
    return run(command);
  };
  auto history = read_only({"history", "--config", cfg.string(), "--format", "json"});
  ASSERT_EQ(history.exit_code, 0) << history.err;
  EXPECT_EQ(json::parse(history.out)["changes"].size(), 11u);
  auto show = read_only({"show", "--config", cfg.string(), m_commits.compatible});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find(m_commits.compatible), std::string::npos) << show.out;
  auto report = read_only({"report", "--config", cfg.string(), "--out", (m_dir.path() / "page").string()});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_TRUE(std::filesystem::exists(m_dir.path() / "page" / "index.html"));
}

TEST_F(StatusCliTest, CheckFailsWhenTheLastSuccessfulPollIsOlderThanThreeIntervals) {
  auto cfg = config("\"check_interval_seconds\": 60");
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  set_value("last_poll_success_time", "2000-01-01T00:00:00Z");
  set_value("last_poll_result", "cannot reach the remote: connection refused");
  auto r = run({"status", "--config", cfg.string(), "--check"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("health: stale: last successful poll"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(limit 3 x 60 s)"), std::string::npos) << r.out;
  json s = status_json(cfg);
  EXPECT_EQ(s["healthy"], false);
  EXPECT_EQ(s["last_error"], "cannot reach the remote: connection refused");
  EXPECT_EQ(s["last_poll_success_time"], "2000-01-01T00:00:00Z");
  EXPECT_EQ(s["schema"], "aiter-api-watcher/status/1");
  EXPECT_EQ(s["exit_code"], 0) << "without --check, only a report";
  // With --check the document carries the exit code the check fails with.
  auto checked = run({"status", "--config", cfg.string(), "--check", "--format", "json"});
  EXPECT_EQ(checked.exit_code, 1) << checked.out << checked.err;
  json c = json::parse(checked.out);
  EXPECT_EQ(c["healthy"], false);
  EXPECT_EQ(c["exit_code"], 1);
}

TEST_F(StatusCliTest, CountsTheCommitsBetweenTheLastProcessedAndTheRemoteHead) {
  auto cfg = config();
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  set_value("line_head", m_commits.renamed);  // as if the daemon had stopped there
  json s = status_json(cfg);
  EXPECT_EQ(s["last_processed_commit"], m_commits.renamed);
  EXPECT_EQ(s["pending_commits"], 5) << "inserted, defaults, broken, deleted, compatible";
}

TEST_F(StatusCliTest, PendingNotificationsAndTheirErrorAreShown) {
  int port = free_loopback_port();  // nobody listens: every delivery fails and waits to be retried
  auto cfg = config("\"start_commit\": \"" + m_commits.base +
                    "\", \"notify\": {\"webhook\": {\"url\": \"http://127.0.0.1:" + std::to_string(port) +
                    "/hooks/secret-path\", \"min_severity\": \"breaking\"}}");
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  json s = status_json(cfg);
  EXPECT_EQ(s["outbox"]["pending"], 5) << s.dump(2);
  ASSERT_TRUE(s["last_error"].is_string()) << s.dump(2);
  std::string error = s["last_error"];
  EXPECT_EQ(error.rfind("webhook http://127.0.0.1:" + std::to_string(port), 0), 0u) << error;
  EXPECT_EQ(error.find("secret-path"), std::string::npos) << error;
  EXPECT_EQ(s["healthy"], true) << "a webhook being down does not make the watcher unhealthy";
}

TEST_F(StatusCliTest, BadConfigExitsTwo) {
  auto path = m_dir.path() / "bad.json";
  std::ofstream(path) << "{\"repository_url\": 3}";
  auto r = run({"status", "--config", path.string(), "--check"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("repository_url"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace aaw::test
