// Notifications end to end: the built binary against the GitHub API emulator on 127.0.0.1 (issues
// and a webhook), with GITHUB_TOKEN set. Issues are opened once per breaking change, even when the
// daemon dies between GitHub creating one and the store marking it delivered; a webhook that was
// down gets every change exactly once when it comes back; a daemon killed with a full outbox
// delivers it all after a restart; a webhook refusing everything ends in `status` as failed; and
// the token is in no log line, argv, child environment or file under state_dir.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "support/github_emulator.hpp"
#include "support/process.hpp"
#include "support/synthetic_aiter.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"

namespace aaw::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* k_notify_token = "ghp_NotifyTestToken0123456789abcdef";
constexpr const char* k_issues_repo = "acme/watch";

using ChangeKeys = std::multiset<std::pair<std::string, std::string>>;

std::size_t distinct(const ChangeKeys& keys) {
  return std::set<ChangeKeys::value_type>(keys.begin(), keys.end()).size();
}

class NotifyCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_commits = SyntheticAiter::build(m_repo);
    m_served = m_repo.bare_clone(m_dir.path() / "served" / "aiter.git");
    m_github.set_branch(k_issues_repo, "main", std::string(40, 'a'));  // the repository exists
    m_github.require_token(k_notify_token);
  }

  // A config watching the synthetic history from its first commit, polling every second, with
  // the API at the emulator and the given notify targets.
  std::filesystem::path config(const json& notify) {
    auto path = m_dir.path() / "config.json";
    std::string extra = "\"check_interval_seconds\": 1, \"start_commit\": \"" + m_commits.base +
                        "\", \"github\": {\"api_url\": \"" + m_github.url() +
                        "\"}, \"notify\": " + notify.dump();
    std::ofstream(path) << SyntheticAiter::config_json(m_served.string(), m_dir.path(), extra);
    return path;
  }
  json issue_target() const {
    return {{"repo", k_issues_repo}, {"labels", {"api-change", "aiter"}}, {"min_severity", "breaking"}};
  }
  json hook_target(const std::string& name, const std::string& severity = "compatible") const {
    return {{"url", m_github.hook_url(name)}, {"min_severity", severity}};
  }

  std::vector<std::string> argv(const std::vector<std::string>& args) const {
    std::vector<std::string> out = {AAW_BINARY};
    out.insert(out.end(), args.begin(), args.end());
    return out;
  }
  RunOptions options() const {
    RunOptions o;
    o.cwd = m_dir.path();
    o.env = {{"GITHUB_TOKEN", k_notify_token}};
    return o;
  }
  ProcessResult run(const std::vector<std::string>& args) { return run_process(argv(args), options()); }
  std::unique_ptr<BackgroundProcess> start(const std::vector<std::string>& args) {
    return std::make_unique<BackgroundProcess>(argv(args), m_dir.path() / "daemon.out", options());
  }

  json status(const std::filesystem::path& cfg) {
    auto r = run({"status", "--config", cfg.string(), "--format", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? json::parse(r.out) : json::object();
  }
  std::string log_text() const { return read_text(m_dir.path() / "watcher.log"); }

  std::vector<EmulatedIssue> issues() const { return m_github.issues(k_issues_repo); }
  std::size_t posts_to_issues() const {
    // Appended, not `+`: GCC 12 at -O2 warns falsely (array-bounds) about a temporary's copy.
    std::string issues_path = "/repos/";
    issues_path += k_issues_repo;
    issues_path += "/issues";
    std::size_t n = 0;
    for (const RecordedRequest& r : m_github.requests()) n += r.method == "POST" && r.path() == issues_path;
    return n;
  }
  // (commit, function_path) of every webhook body received, with repeats.
  ChangeKeys hook_changes(const std::string& name) const {
    ChangeKeys out;
    for (const std::string& body : m_github.hook_bodies(name)) {
      json change = json::parse(body);
      out.emplace(change["commit"], change["function_path"]);
    }
    return out;
  }

  // The five breaking changes of the synthetic history: one issue each.
  std::set<std::string> breaking_titles() const {
    return {"API Change Detected: rocm_aiter_asm_fmoe.moe_sorting_ck",
            "API Change Detected: rocm_aiter_asm_fmoe.asm_moe", "API Change Detected: legacy.old_fn",
            "API Change Detected: gemm_a8w8", "API Change Detected: aiter.rms_norm"};
  }
  std::set<std::string> titles() const {
    std::set<std::string> out;
    for (const EmulatedIssue& issue : issues()) out.insert(issue.title);
    return out;
  }

  TempDir m_dir{"aaw-notify-cli"};
  GitFixture m_repo{m_dir.path() / "work"};
  SyntheticAiterCommits m_commits;
  std::filesystem::path m_served;
  GithubEmulator m_github;
};

TEST_F(NotifyCliTest, OnceOpensAnIssuePerBreakingChangeAndPostsEveryChangeToTheWebhook) {
  auto cfg = config({{"github_issue", issue_target()}, {"webhook", hook_target("team")}});
  auto r = run({"watch", "--config", cfg.string(), "--once"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;

  auto opened = issues();
  ASSERT_EQ(opened.size(), 5u) << log_text();
  EXPECT_EQ(titles(), breaking_titles());
  for (const EmulatedIssue& issue : opened) {
    EXPECT_EQ(issue.labels, (std::vector<std::string>{"api-change", "aiter"}));
    EXPECT_NE(issue.body.find("<!-- aiter-api-watcher:"), std::string::npos) << issue.body;
    EXPECT_NE(issue.body.find("### Previous signature"), std::string::npos) << issue.body;
  }
  auto hooked = hook_changes("team");
  EXPECT_EQ(hooked.size(), 10u) << "every change but the annotation-only one";
  EXPECT_EQ(distinct(hooked), 10u);
  for (const std::string& body : m_github.hook_bodies("team"))
    EXPECT_TRUE(json::parse(body)["text"].is_string());

  for (const RecordedRequest& request : m_github.requests()) {
    if (request.path().rfind("/hooks/", 0) == 0) {
      EXPECT_EQ(request.header("authorization"), "") << "the token goes to the API only";
      EXPECT_EQ(request.header("content-type"), "application/json");
    } else {
      EXPECT_EQ(request.header("authorization"), std::string("Bearer ") + k_notify_token) << request.target;
    }
  }

  json s = status(cfg);
  EXPECT_EQ(s["outbox"]["delivered"], 15);
  EXPECT_EQ(s["outbox"]["pending"], 0);
  std::size_t requests = m_github.request_count();
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  EXPECT_EQ(issues().size(), 5u);
  EXPECT_EQ(m_github.hook_bodies("team").size(), 10u);
  EXPECT_EQ(m_github.request_count(), requests) << "nothing left to deliver";
}

// After a force-push that abandons the last four commits: each function they had changed is
// notified once as taken back by the rewrite (an issue of its own for the breaking ones, a webhook
// POST for every one), and no commit is named as its cause.
TEST_F(NotifyCliTest, AForcePushNotifiesEachFunctionItTookBackAsARewrite) {
  auto cfg = config({{"github_issue", issue_target()}, {"webhook", hook_target("team")}});
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  ASSERT_EQ(issues().size(), 5u) << log_text();
  const std::size_t hooked_before = m_github.hook_bodies("team").size();
  m_repo.git({"reset", "--hard", m_commits.inserted});
  m_repo.write_file("NEWS", "rewritten\n");
  m_repo.commit("After the force-push");
  m_repo.git({"push", "--force", m_served.string(), "HEAD:main"});
  auto r = run({"watch", "--config", cfg.string(), "--once"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;

  json event;
  std::istringstream events(read_text(m_dir.path() / "state" / "events.jsonl"));
  for (std::string line; std::getline(events, line);)
    if (json::parse(line)["type"] == "history_rewritten") event = json::parse(line);
  ASSERT_FALSE(event.is_null()) << log_text();
  std::set<std::string> breaking, every;
  for (const json& f : event["functions"]) {
    every.insert(f["function_path"]);
    if (f["severity"] == "breaking") breaking.insert(f["function_path"]);
  }
  ASSERT_FALSE(breaking.empty()) << event.dump();

  std::set<std::string> undone;
  for (const EmulatedIssue& issue : issues()) {
    const std::string prefix = "API Change Undone by a History Rewrite: ";
    if (!issue.title.starts_with(prefix)) continue;
    undone.insert(issue.title.substr(prefix.size()));
    EXPECT_TRUE(contains(issue.body, "<!-- aiter-api-watcher:rewrite:" + m_commits.compatible)) << issue.body;
    EXPECT_TRUE(contains(issue.body, "**Merge base:** `" + m_commits.inserted)) << issue.body;
  }
  EXPECT_EQ(undone, breaking);
  EXPECT_EQ(issues().size(), 5u + breaking.size()) << "the new commit changed nothing monitored";

  std::set<std::string> posted;
  const std::vector<std::string> bodies = m_github.hook_bodies("team");
  for (std::size_t i = hooked_before; i < bodies.size(); ++i) {
    json notice = json::parse(bodies[i]);
    EXPECT_EQ(notice["type"], "history_rewritten") << bodies[i];
    EXPECT_EQ(notice["old_head"], m_commits.compatible);
    EXPECT_EQ(notice["merge_base"], m_commits.inserted);
    EXPECT_FALSE(notice.contains("commit"));
    EXPECT_TRUE(notice["text"].get<std::string>().starts_with("*History rewritten (")) << notice["text"];
    posted.insert(notice["function_path"]);
  }
  EXPECT_EQ(posted.size(), bodies.size() - hooked_before) << "one POST per function";
  std::set<std::string> hookable;  // at or above the webhook's min_severity, compatible
  for (const json& f : event["functions"])
    if (f["severity"] != "annotation") hookable.insert(f["function_path"]);
  EXPECT_EQ(posted, hookable);
  EXPECT_EQ(status(cfg)["outbox"]["pending"], 0);
}

// GitHub creates the issue while the daemon waits for the answer; the daemon is frozen, then
// killed, before it can record the delivery. After a restart the issue is found by its marker.
TEST_F(NotifyCliTest, NoSecondIssueWhenKilledBetweenCreatingAndMarkingDelivered) {
  auto cfg = config({{"github_issue", issue_target()}});
  // The first lookup and the first creation are answered after three seconds each: time enough to
  // freeze the daemon once GitHub has the creation request, before its answer arrives.
  Fault slow;
  slow.kind = Fault::Kind::delay;
  slow.times = 2;
  slow.path_prefix = std::string("/repos/") + k_issues_repo + "/issues";
  slow.delay = 3s;
  m_github.inject(slow);
  auto victim = start({"watch", "--config", cfg.string(), "--once"});
  ASSERT_TRUE(eventually([&] { return posts_to_issues() == 1; })) << log_text();
  ASSERT_EQ(::kill(victim->pid(), SIGSTOP), 0);
  ASSERT_TRUE(eventually([&] { return issues().size() == 1; }, 10s))
      << "the emulator creates it after the delay";
  ASSERT_EQ(::kill(victim->pid(), SIGKILL), 0);
  victim->stop();
  EXPECT_EQ(status(cfg)["outbox"]["delivered"], 0) << "the kill came before the delivery was recorded";

  auto r = run({"watch", "--config", cfg.string(), "--once"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(issues().size(), 5u);
  EXPECT_EQ(titles(), breaking_titles());
  EXPECT_EQ(posts_to_issues(), 5u) << "the first issue was found, not created again";
  EXPECT_EQ(status(cfg)["outbox"]["delivered"], 5);
  EXPECT_NE(log_text().find("Issue http"), std::string::npos) << "'Issue <url> already reports ...'";
}

TEST_F(NotifyCliTest, WebhookGetsEveryChangeExactlyOnceAfterBeingDownForAWhile) {
  auto cfg = config({{"webhook", hook_target("team", "breaking")}});
  m_github.go_down();
  auto daemon = start({"watch", "--config", cfg.string()});
  ASSERT_TRUE(eventually([&] { return log_text().find("Cannot notify webhook") != std::string::npos; }))
      << log_text();
  ASSERT_TRUE(eventually([&] { return status(cfg)["outbox"]["pending"] == 5; })) << log_text();
  std::this_thread::sleep_for(2s);  // a few failed attempts, each rescheduled with backoff
  m_github.go_up();
  ASSERT_TRUE(m_github.wait_for_hook("team", 5, 20s)) << log_text();
  std::this_thread::sleep_for(1500ms);  // room for a duplicate to show up
  auto hooked = hook_changes("team");
  EXPECT_EQ(hooked.size(), 5u);
  EXPECT_EQ(distinct(hooked), 5u);
  EXPECT_EQ(status(cfg)["outbox"]["delivered"], 5);

  auto stopping = std::chrono::steady_clock::now();
  ASSERT_EQ(::kill(daemon->pid(), SIGTERM), 0);
  ASSERT_TRUE(eventually([&] { return !daemon->running(); }, 10s));
  EXPECT_LT(std::chrono::steady_clock::now() - stopping, 8s) << "no request was in flight to wait for";
  EXPECT_EQ(daemon->exit_code(), 0);
}

TEST_F(NotifyCliTest, DaemonKilledWithAFullOutboxDeliversEverythingAfterRestart) {
  auto cfg = config({{"github_issue", issue_target()}, {"webhook", hook_target("team")}});
  m_github.go_down();
  auto victim = start({"watch", "--config", cfg.string()});
  ASSERT_TRUE(eventually([&] { return status(cfg)["outbox"]["pending"] == 15; })) << log_text();
  ASSERT_EQ(::kill(victim->pid(), SIGKILL), 0);
  victim->stop();
  m_github.go_up();

  auto daemon = start({"watch", "--config", cfg.string()});
  ASSERT_TRUE(eventually([&] { return issues().size() == 5 && m_github.hook_bodies("team").size() == 10; }))
      << log_text();
  std::this_thread::sleep_for(1500ms);
  EXPECT_EQ(issues().size(), 5u);
  EXPECT_EQ(titles(), breaking_titles());
  EXPECT_EQ(m_github.hook_bodies("team").size(), 10u);
  EXPECT_EQ(status(cfg)["outbox"]["delivered"], 15);
}

TEST_F(NotifyCliTest, WebhookRefusingEverythingEndsFailedInStatus) {
  auto cfg = config({{"webhook", hook_target("gone", "breaking")}});
  m_github.set_hook_status("gone", 404);
  auto daemon = start({"watch", "--config", cfg.string()});
  // Five refusals each, 1 s doubling to 4 s apart (jittered): about ten seconds.
  ASSERT_TRUE(eventually([&] { return status(cfg)["outbox"]["failed"] == 5; }, 40s)) << log_text();
  json s = status(cfg);
  ASSERT_EQ(s["outbox"]["failed_items"].size(), 5u);
  for (const json& item : s["outbox"]["failed_items"]) {
    EXPECT_EQ(item["target"], "webhook");
    EXPECT_EQ(item["attempts"], 5);
    std::string error = item["last_error"];
    EXPECT_EQ(error.rfind("webhook http://127.0.0.1:" + std::to_string(m_github.port()) + " answered 404", 0),
              0u)
        << error;
    EXPECT_EQ(error.find("/hooks/gone"), std::string::npos) << "the path may be the secret: " << error;
  }
  std::size_t tries = 0;
  for (const RecordedRequest& request : m_github.requests()) tries += request.path() == "/hooks/gone";
  EXPECT_EQ(tries, 25u) << "five tries of five notifications, then no more";
  auto r = run({"status", "--config", cfg.string()});
  EXPECT_NE(r.out.find("outbox: 0 pending, 0 delivered, 5 failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  failed: webhook "), std::string::npos) << r.out;
}

// A 502 (a proxy in front of the target blinking) costs no backoff: the notification is tried again
// within the run, after its issue marker is looked up, so `watch --once` delivers everything.
TEST_F(NotifyCliTest, OnceRightAfterA502StillDeliversInTheSameRun) {
  auto cfg = config({{"github_issue", issue_target()}, {"webhook", hook_target("team", "breaking")}});
  m_github.fail_next(1, 502, "/hooks/team");
  m_github.fail_next(1, 502, std::string("/repos/") + k_issues_repo + "/issues");
  auto r = run({"watch", "--config", cfg.string(), "--once"});
  ASSERT_EQ(r.exit_code, 0) << r.err << log_text();
  EXPECT_EQ(status(cfg)["outbox"]["delivered"], 10) << log_text();
  EXPECT_EQ(titles(), breaking_titles());
  EXPECT_EQ(issues().size(), 5u);
  auto hooked = hook_changes("team");
  EXPECT_EQ(hooked.size(), 5u);
  EXPECT_EQ(distinct(hooked), 5u);
}

// True once `pid` catches SIGHUP (bit 0 of SigCgt in /proc/<pid>/status): the earliest moment a
// SIGHUP cannot be fatal.
bool catches_sighup(pid_t pid) {
  std::istringstream status(read_text("/proc/" + std::to_string(pid) + "/status"));
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("SigCgt:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) & 1u) != 0;
  }
  return false;
}

// The delivery thread logs a failure every second or so while SIGHUPs, from the first instant the
// process can take one, ask the main thread to reopen the log every 2 ms. A bounded stress run, three
// times: before the log's file sink was swapped under a lock, most runs crashed (the webhook path
// writing to a freed sink) or hung in SIGTERM.
TEST_F(NotifyCliTest, SighupStormWhileTheWebhookFailsNeitherCrashesNorHangsTheDaemon) {
  auto cfg = config({{"webhook", hook_target("team")}});
  m_github.set_hook_status("team", 500);
  for (int run = 0; run < 3; ++run) {
    auto daemon = start({"watch", "--config", cfg.string()});
    ASSERT_TRUE(eventually([&] { return catches_sighup(daemon->pid()) || !daemon->running(); }, 10s));
    const auto until = std::chrono::steady_clock::now() + 1500ms;
    int sent = 0;
    while (std::chrono::steady_clock::now() < until && daemon->running()) {
      ::kill(daemon->pid(), SIGHUP);
      ++sent;
      std::this_thread::sleep_for(2ms);
    }
    ASSERT_TRUE(daemon->running()) << "run " << run << ": died after " << sent << " SIGHUPs, exit "
                                   << daemon->exit_code().value_or(0) << "\n"
                                   << log_text();
    ASSERT_EQ(::kill(daemon->pid(), SIGTERM), 0);
    ASSERT_TRUE(eventually([&] { return !daemon->running(); }, 20s)) << "run " << run << ": SIGTERM hung";
    EXPECT_EQ(daemon->exit_code(), 0) << "run " << run;
  }
  EXPECT_NE(log_text().find("Reopened log files"), std::string::npos);
  EXPECT_NE(log_text().find("Cannot notify webhook"), std::string::npos) << log_text();
}

TEST_F(NotifyCliTest, TokenIsInNoLogArgvChildEnvironmentOrStateFile) {
  auto cfg = config({{"github_issue", issue_target()}, {"webhook", hook_target("team")}});
  m_github.fail_next(3, 502, std::string("/repos/") + k_issues_repo);  // errors get logged and stored
  m_github.fail_next(3, 500, "/hooks/team");
  auto daemon = start({"watch", "--config", cfg.string()});
  ASSERT_TRUE(eventually([&] { return issues().size() == 5; })) << log_text();
  ASSERT_TRUE(eventually([&] { return m_github.hook_bodies("team").size() >= 10; })) << log_text();

  std::string cmdline = read_text("/proc/" + std::to_string(daemon->pid()) + "/cmdline");
  EXPECT_FALSE(cmdline.empty());
  EXPECT_EQ(cmdline.find(k_notify_token), std::string::npos);
  // What a build running as the same user would read first: taken out at start.
  EXPECT_EQ(read_text("/proc/" + std::to_string(daemon->pid()) + "/environ").find(k_notify_token),
            std::string::npos);
  // Its children, if any (static extraction starts none): none may have the token in its
  // environment or arguments.
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(daemon->pid()) + "/task")) {
    std::istringstream children(read_text(task.path() / "children"));
    for (std::string child; children >> child;) {
      EXPECT_EQ(read_text("/proc/" + child + "/environ").find(k_notify_token), std::string::npos) << child;
      EXPECT_EQ(read_text("/proc/" + child + "/cmdline").find(k_notify_token), std::string::npos) << child;
    }
  }
  ASSERT_EQ(::kill(daemon->pid(), SIGTERM), 0);
  ASSERT_TRUE(eventually([&] { return !daemon->running(); }, 10s));

  EXPECT_NE(log_text().find("Cannot notify"), std::string::npos) << "failures were logged";
  EXPECT_EQ(log_text().find(k_notify_token), std::string::npos);
  EXPECT_EQ(read_text(m_dir.path() / "daemon.out").find(k_notify_token), std::string::npos);
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(m_dir.path() / "state")) {
    if (!entry.is_regular_file()) continue;
    ++files;
    EXPECT_EQ(read_text(entry.path()).find(k_notify_token), std::string::npos) << entry.path();
  }
  EXPECT_GT(files, 3);
  for (const std::string& body : m_github.hook_bodies("team"))
    EXPECT_EQ(body.find(k_notify_token), std::string::npos);
  for (const EmulatedIssue& issue : issues()) EXPECT_EQ(issue.body.find(k_notify_token), std::string::npos);
}

}  // namespace
}  // namespace aaw::test
