#include "io/sandbox/sandbox_posix.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <future>
#include <optional>
#include <sstream>
#include <thread>

#include "core/ports/sandbox.hpp"
#include "io/sandbox/child_user_posix.hpp"
#include "io/sandbox/landlock_posix.hpp"
#include "support/scoped_env.hpp"
#include "support/silent_listener.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"
#include "util/files.hpp"

namespace aaw {
namespace {

using test::ScopedEnv;

using test::read_text;

namespace fs = std::filesystem;
using namespace std::chrono_literals;

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Alive and not a zombie (an orphaned zombie waits for a container's init to reap it).
bool running(pid_t pid) {
  if (::kill(pid, 0) != 0) return false;
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  const auto paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z' &&
         stat[paren + 2] != 'X';
}

// Running processes whose command line contains `word` as one argument.
std::vector<pid_t> processes_with_argument(const std::string& word) {
  std::vector<pid_t> found;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = read_text(entry.path() / "cmdline");
    if (cmdline.find(std::string(1, '\0') + word + std::string(1, '\0')) == std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    if (running(pid)) found.push_back(pid);
  }
  return found;
}

// SIGKILL is delivered at once, but a process takes a moment to be gone.
template <class Predicate>
bool eventually(Predicate done, std::chrono::milliseconds limit = 1000ms) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

std::vector<pid_t> read_pids(const fs::path& file) {
  std::vector<pid_t> pids;
  std::ifstream in(file);
  for (pid_t pid = 0; in >> pid;) pids.push_back(pid);
  return pids;
}

class SandboxTest : public ::testing::Test {
 protected:
  SandboxTest()
      : m_sink(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(100)), m_log("sandbox_test", m_sink) {}

  // run_as daemon: the tests' directories are closed to other users (a root `auto` would warn and
  // fall back); ChildUserTest runs children as a user of their own.
  std::unique_ptr<Sandbox> make(const std::string& kind, bool network = true) {
    SandboxConfig config;
    config.kind = kind;
    config.network = network;
    config.run_as = "daemon";
    auto sandbox = make_sandbox(config, root(), m_log);
    if (!sandbox) throw std::runtime_error(sandbox.error().message());
    return std::move(*sandbox);
  }

  // The bubblewrap sandbox, or nullptr when bwrap cannot run here (the caller skips).
  std::unique_ptr<Sandbox> make_bwrap(bool network = true, const HiddenPaths& hidden = {}) {
    return make_confined("bwrap", network, hidden);
  }

  // The sandbox of `kind` (bwrap or landlock), or nullptr when it cannot run here (the caller skips).
  std::unique_ptr<Sandbox> make_confined(const std::string& kind, bool network = true,
                                         const HiddenPaths& hidden = {}) {
    SandboxConfig config;
    config.kind = kind;
    config.network = network;
    config.run_as = "daemon";
    auto sandbox = make_sandbox(config, root(), m_log, hidden);
    if (!sandbox) {
      m_skip_reason = sandbox.error().message();
      return nullptr;
    }
    return std::move(*sandbox);
  }

  SandboxRequest shell(const std::string& script) const {
    SandboxRequest request;
    request.argv = {"/bin/sh", "-c", script};
    request.timeout = 10s;
    request.log_file = log_file();
    return request;
  }

  fs::path root() const { return m_dir / "sandbox"; }
  fs::path log_file() const { return m_dir / "out.log"; }
  std::string output() const { return read_text(log_file()); }

  std::vector<std::string> warnings() const {
    std::vector<std::string> texts;
    for (const auto& message : m_sink->last_raw()) {
      if (message.level == spdlog::level::warn)
        texts.emplace_back(message.payload.data(), message.payload.size());
    }
    return texts;
  }

  SandboxResult run_ok(Sandbox& sandbox, const SandboxRequest& request) {
    auto result = sandbox.run(request);
    if (!result) throw std::runtime_error(result.error().message());
    return *result;
  }

  test::TempDir m_dir{"aaw-sandbox"};
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> m_sink;
  Logger m_log;
  std::string m_skip_reason;
};

#define SKIP_WITHOUT_BWRAP(sandbox) \
  if (!(sandbox)) GTEST_SKIP() << "bubblewrap cannot run here: " << m_skip_reason
#define SKIP_WITHOUT_LANDLOCK(sandbox) \
  if (!(sandbox)) GTEST_SKIP() << "Landlock cannot run here: " << m_skip_reason

// ---- environment -------------------------------------------------------------------------------

TEST_F(SandboxTest, SecretsFromOurEnvironmentOrTheRequestNeverReachTheChild) {
  ScopedEnv token("GITHUB_TOKEN", "ghp_parentvalue");
  ScopedEnv key("MY_API_KEY", "parent-key-value");
  ScopedEnv secret("X_SECRET", "parent-secret-value");
  auto sandbox = make("process");
  const std::size_t unconfined = warnings().size();  // said at start: the plain runner confines nothing
  SandboxRequest request = shell("env");
  request.env = {{"GITHUB_TOKEN", "ghp_listedvalue"},
                 {"my_api_key", "listed-key-value"},
                 {"X_SECRET", "listed-secret-value"},
                 {"BUILD_FLAG", "on"}};

  ASSERT_TRUE(run_ok(*sandbox, request).succeeded());
  ASSERT_TRUE(run_ok(*sandbox, request).succeeded());

  const std::string env = output();
  EXPECT_NE(env.find("BUILD_FLAG=on\n"), std::string::npos) << env;
  for (const char* leak :
       {"GITHUB_TOKEN", "ghp_", "MY_API_KEY", "my_api_key", "key-value", "X_SECRET", "secret-value"}) {
    EXPECT_EQ(env.find(leak), std::string::npos) << leak << " reached the child:\n" << env;
  }
  // One warning per dropped name, however many runs, naming it and never showing its value.
  const auto warned = warnings();
  ASSERT_EQ(warned.size(), unconfined + 3u);
  for (const auto& text : warned) EXPECT_EQ(text.find("value"), std::string::npos) << text;
}

TEST_F(SandboxTest, BuildThatFailsOnAnyTokenInItsEnvironmentSucceeds) {
  ScopedEnv token("GITHUB_TOKEN", "ghp_parentvalue");
  ScopedEnv other("NPM_TOKEN", "npm-parent");
  auto sandbox = make("process");
  SandboxRequest request =
      shell("if env | grep -qi '_TOKEN='; then echo token found; exit 1; fi; echo built");
  request.env = {{"GITHUB_TOKEN", "ghp_listedvalue"}, {"HF_TOKEN", "hf"}};

  const SandboxResult result = run_ok(*sandbox, request);

  EXPECT_TRUE(result.succeeded()) << result.describe() << ": " << output();
  EXPECT_EQ(output(), "built\n");
}

TEST_F(SandboxTest, ChildGetsHomeAndTmpdirInsideTheSandboxAndOnlyAllowListedVariables) {
  ScopedEnv leak("AAW_TEST_LEAK", "leaked");
  ScopedEnv lang("LANG", std::nullopt);
  auto sandbox = make("process");
  SandboxRequest request = shell(
      "echo \"HOME=$HOME\"; echo \"TMPDIR=$TMPDIR\"; echo \"LANG=$LANG\"; echo \"MINE=$MINE\"; "
      "echo \"LEAK=${AAW_TEST_LEAK-unset}\"; test -d \"$HOME\" && test -d \"$TMPDIR\" && echo dirs; "
      "env | cut -d= -f1 | sort | tr '\\n' ' '");
  request.env = {{"MINE", "mine value"}};

  ASSERT_TRUE(run_ok(*sandbox, request).succeeded()) << output();

  const std::string root_dir = sandbox->root().string();
  EXPECT_EQ(output(), "HOME=" + root_dir + "/home\nTMPDIR=" + root_dir +
                          "/tmp\nLANG=C.UTF-8\nMINE=mine value\nLEAK=unset\ndirs\n"
                          "HOME LANG MINE PATH PWD TMPDIR ");  // PWD: sh sets it
}

// ---- process group, timeout --------------------------------------------------------------------

TEST_F(SandboxTest, TimeoutKillsTheWholeGroupEvenWhenItIgnoresSigterm) {
  auto sandbox = make("process");
  SandboxRequest request =
      shell("trap '' TERM; sleep 1000 & echo $! > pids; echo $$ >> pids; sleep 1000; echo survived");
  request.timeout = 1s;

  const SandboxResult result = run_ok(*sandbox, request);

  EXPECT_EQ(result.outcome, SandboxResult::Outcome::timed_out);
  EXPECT_EQ(result.describe(), "timed out after 1 s");
  EXPECT_GE(result.elapsed, 1000ms);
  EXPECT_LT(result.elapsed, 2900ms);  // timeout + the grace before SIGKILL
  const auto pids = read_pids(root() / "pids");
  ASSERT_EQ(pids.size(), 2u);
  for (pid_t pid : pids) EXPECT_TRUE(eventually([&] { return !running(pid); })) << pid << " survived";
  EXPECT_EQ(output().find("survived"), std::string::npos);
}

TEST_F(SandboxTest, TimeoutEndsAGroupThatHonoursSigtermWithoutTheGrace) {
  auto sandbox = make("process");
  SandboxRequest request = shell("sleep 1000 & echo $! > pids; echo $$ >> pids; sleep 1000");
  request.timeout = 1s;

  const SandboxResult result = run_ok(*sandbox, request);

  EXPECT_EQ(result.outcome, SandboxResult::Outcome::timed_out);
  EXPECT_LT(result.elapsed, 1800ms);
  for (pid_t pid : read_pids(root() / "pids")) EXPECT_TRUE(eventually([&] { return !running(pid); }));
}

// True once `after` has passed since the first call.
std::function<bool()> stop_after(std::chrono::milliseconds after) {
  auto start = std::make_shared<std::optional<std::chrono::steady_clock::time_point>>();
  return [start, after] {
    const auto now = std::chrono::steady_clock::now();
    if (!*start) *start = now;
    return now - **start >= after;
  };
}

TEST_F(SandboxTest, StopRequestEndsTheWholeGroupAsCancelled) {
  auto sandbox = make("process");
  SandboxRequest request = shell("sleep 1000 & echo $! > pids; echo $$ >> pids; sleep 1000");
  request.timeout = 60s;
  request.stop_requested = stop_after(500ms);

  const SandboxResult result = run_ok(*sandbox, request);

  EXPECT_EQ(result.outcome, SandboxResult::Outcome::cancelled);
  EXPECT_EQ(result.describe(), "cancelled");
  EXPECT_FALSE(result.succeeded());
  EXPECT_GE(result.elapsed, 500ms);
  EXPECT_LT(result.elapsed, 1500ms);
  const auto pids = read_pids(root() / "pids");
  ASSERT_EQ(pids.size(), 2u);
  for (pid_t pid : pids) EXPECT_TRUE(eventually([&] { return !running(pid); })) << pid << " survived";
}

TEST_F(SandboxTest, StopRequestKillsAGroupThatIgnoresSigtermAfterAShortGrace) {
  auto sandbox = make("process");
  SandboxRequest request = shell("trap '' TERM; sleep 1000 & echo $! > pids; sleep 1000");
  request.timeout = 60s;
  request.stop_requested = stop_after(200ms);

  const SandboxResult result = run_ok(*sandbox, request);

  EXPECT_EQ(result.outcome, SandboxResult::Outcome::cancelled);
  EXPECT_LT(result.elapsed, 2000ms);
  for (pid_t pid : read_pids(root() / "pids")) EXPECT_TRUE(eventually([&] { return !running(pid); }));
}

TEST_F(SandboxTest, BwrapStopRequestEndsEverythingInside) {
  auto sandbox = make_bwrap();
  SKIP_WITHOUT_BWRAP(sandbox);
  SandboxRequest request = shell("sleep 1000 & sleep 1000");
  request.timeout = 60s;
  request.stop_requested = stop_after(300ms);

  const SandboxResult result = run_ok(*sandbox, request);

  EXPECT_EQ(result.outcome, SandboxResult::Outcome::cancelled);
  EXPECT_LT(result.elapsed, 2000ms);
}

// A daemon that is PID 1 in a container (or a subreaper, as here) inherits what a build leaves
// behind; reaped, it does not stay a zombie.
TEST_F(SandboxTest, SubreaperReapsTheOrphansABuildLeftBehind) {
  auto sandbox = make("process");
  const pid_t tester = ::fork();
  ASSERT_GE(tester, 0);
  if (tester == 0) {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    // The inner shell exits at once: its sleep is reparented to us, then killed with the group.
    auto result = sandbox->run(shell("sh -c 'sleep 1000 & echo $! > pids'; exit 0"));
    const auto pids = read_pids(root() / "pids");
    const bool gone = result && pids.size() == 1 && !fs::exists("/proc/" + std::to_string(pids[0]));
    ::_exit(gone ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(tester, &status, 0), tester);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "an orphan was left a zombie";
}

TEST_F(SandboxTest, WhatTheCommandLeavesRunningInItsGroupIsKilledWhenItExits) {
  auto sandbox = make("process");
  const SandboxResult result = run_ok(*sandbox, shell("sleep 1000 & echo $! > pids; exit 0"));

  EXPECT_TRUE(result.succeeded());
  EXPECT_LT(result.elapsed, 1000ms);
  for (pid_t pid : read_pids(root() / "pids")) EXPECT_TRUE(eventually([&] { return !running(pid); }));
}

TEST_F(SandboxTest, EscapedProcessHoldingTheOutputDoesNotHoldUpTheRun) {
  auto sandbox = make("process");
  const SandboxResult result =
      run_ok(*sandbox, shell("setsid sh -c 'echo $$ > pids; exec sleep 1000' & "
                             "while [ ! -s pids ]; do sleep 0.01; done; echo leaving; exit 3"));
  const auto pids = read_pids(root() / "pids");

  EXPECT_EQ(result.outcome, SandboxResult::Outcome::exited);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_LT(result.elapsed, 2500ms);
  EXPECT_EQ(output(), "leaving\n");
  EXPECT_EQ(pids.size(), 1u);
}

// The plain runner has no PID namespace: a daemon a build starts in a session of its own (setsid,
// with or without a double fork) leaves the group that is killed. The runner, a subreaper, finds
// it as its own orphan and kills it.
TEST_F(SandboxTest, SetsidDaemonsABuildStartsAreKilledWithTheRun) {
  auto sandbox = make("process");
  const SandboxResult result =
      run_ok(*sandbox, shell("setsid sh -c 'echo $$ >> pids; exec sleep 1000' & "
                             "(setsid sh -c 'echo $$ >> pids; sleep 1000 & echo $! >> pids; wait' &); "
                             "while [ \"$(wc -l < pids 2>/dev/null)\" != 3 ]; do sleep 0.01; done; exit 0"));
  EXPECT_TRUE(result.succeeded()) << output();
  const auto pids = read_pids(root() / "pids");
  ASSERT_EQ(pids.size(), 3u);
  for (pid_t pid : pids) EXPECT_TRUE(eventually([&] { return !running(pid); })) << pid << " survived";
}

TEST_F(SandboxTest, PlainRunnerChildGetsNoNewPrivilegesAndAsRootNoCapability) {
  auto sandbox = make("process");
  ASSERT_TRUE(
      run_ok(*sandbox, shell("grep -E '^(CapEff|CapPrm|NoNewPrivs):' /proc/self/status")).succeeded());
  EXPECT_NE(output().find("NoNewPrivs:\t1"), std::string::npos) << output();
  if (::geteuid() == 0) {
    EXPECT_NE(output().find("CapEff:\t0000000000000000"), std::string::npos) << output();
    EXPECT_NE(output().find("CapPrm:\t0000000000000000"), std::string::npos) << output();
  }
}

TEST_F(SandboxTest, BwrapHidesTheTokenFile) {
  const fs::path token = m_dir / "token.txt";
  write_file(token, "ghp_planted_token_file\n");
  fs::create_symlink(token, m_dir / "token-link");
  auto sandbox = make_bwrap(true, {{m_dir / "token-link"}, {}});
  SKIP_WITHOUT_BWRAP(sandbox);
  ASSERT_TRUE(run_ok(*sandbox, shell("cat " + token.string() + "; cat " + (m_dir / "token-link").string() +
                                     "; echo done"))
                  .succeeded());
  EXPECT_EQ(output().find("ghp_planted_token_file"), std::string::npos) << output();
  EXPECT_NE(output().find("done"), std::string::npos);
}

TEST_F(SandboxTest, PlainRunnerIsRefusedWhileItCouldReadTheTokenFileUnlessAccepted) {
  const fs::path token = m_dir / "token.txt";
  write_file(token, "ghp_planted_token_file\n");
  SandboxConfig config;
  config.kind = "process";
  config.run_as = "daemon";
  auto refused = make_sandbox(config, root(), m_log, {{token}, {}});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), ErrorCode::invalid_input);
  EXPECT_NE(refused.error().message().find("could read '" + token.string() + "'"), std::string::npos)
      << refused.error().message();
  EXPECT_NE(refused.error().message().find("sandbox.accept_unconfined"), std::string::npos);

  config.accept_unconfined = true;
  ASSERT_TRUE(make_sandbox(config, root(), m_log, {{token}, {}}));
  ASSERT_EQ(warnings().size(), 1u);
  EXPECT_NE(warnings()[0].find("unconfined"), std::string::npos) << warnings()[0];
  EXPECT_NE(warnings()[0].find("'" + token.string() + "'"), std::string::npos) << warnings()[0];
}

TEST_F(SandboxTest, BwrapHidesTheStateDirectoryButNotTheSandboxOrTheReadablePathsInIt) {
  const fs::path state = m_dir / "state";
  fs::create_directories(state / "mirror");
  write_file(state / "state.db", "the store\n");
  write_file(state / "mirror" / "config", "mirror config\n");
  SandboxConfig config;
  config.kind = "bwrap";
  auto sandbox = make_sandbox(config, state / "sandbox", m_log, {{}, {state}});
  if (!sandbox) GTEST_SKIP() << "bubblewrap cannot run here: " << sandbox.error().message();
  SandboxRequest request = shell("cat " + (state / "state.db").string() + " || echo store hidden; cat " +
                                 (state / "mirror/config").string() + "; echo x > out && echo sandbox ok");
  request.readable = {state / "mirror"};
  ASSERT_TRUE(run_ok(**sandbox, request).succeeded()) << output();
  EXPECT_EQ(output().find("the store"), std::string::npos) << output();
  EXPECT_NE(output().find("store hidden"), std::string::npos) << output();
  EXPECT_NE(output().find("mirror config"), std::string::npos) << output();
  EXPECT_NE(output().find("sandbox ok"), std::string::npos) << output();
  EXPECT_EQ(read_text(state / "sandbox" / "out"), "x\n");
}

// ---- Landlock ----------------------------------------------------------------------------------

// The layout the daemon gives a sandbox: the root, work tree and mirror inside a hidden state
// directory; a token file beside it.
class LandlockTest : public SandboxTest {
 protected:
  LandlockTest() {
    fs::create_directories(state() / "work");
    fs::create_directories(state() / "mirror");
    fs::create_directories(m_dir / "outside");
    write_file(state() / "state.db", "the store\n");
    write_file(state() / "mirror" / "config", "mirror config\n");
    write_file(token(), "ghp_planted_token_file\n");
    fs::create_symlink(token(), m_dir / "outside" / "token-link");
  }

  std::unique_ptr<Sandbox> make_landlock(bool network = true) {
    SandboxConfig config;
    config.kind = "landlock";
    config.network = network;
    config.run_as = "daemon";
    auto sandbox = make_sandbox(config, state() / "sandbox", m_log, {{token()}, {state()}});
    if (!sandbox) {
      m_skip_reason = sandbox.error().message();
      return nullptr;
    }
    return std::move(*sandbox);
  }

  SandboxRequest in_work_tree(const std::string& script) const {
    SandboxRequest request = shell(script);
    request.cwd = state() / "work";
    request.writable = {state() / "work"};
    request.readable = {state() / "mirror"};
    return request;
  }

  fs::path state() const { return m_dir / "state"; }
  fs::path token() const { return m_dir / "token.txt"; }
};

TEST_F(LandlockTest, ReadsNeitherTheTokenNorTheStateDirectoryButTheMirrorItIsGiven) {
  auto sandbox = make_landlock();
  SKIP_WITHOUT_LANDLOCK(sandbox);
  EXPECT_EQ(sandbox->kind(), "landlock");
  const std::string script =
      "cat " + token().string() + " || echo token refused; cat " + (m_dir / "outside/token-link").string() +
      " || echo link refused; cat " + (state() / "state.db").string() + " || echo store refused; ls " +
      state().string() + " || echo listing refused; cat " + (state() / "mirror/config").string() +
      "; cat /etc/hostname >/dev/null && echo system ok";
  ASSERT_TRUE(run_ok(*sandbox, in_work_tree(script)).succeeded()) << output();
  for (const char* word :
       {"token refused", "link refused", "store refused", "listing refused", "mirror config", "system ok"})
    EXPECT_NE(output().find(word), std::string::npos) << word << " in: " << output();
  EXPECT_EQ(output().find("ghp_planted"), std::string::npos) << output();
  EXPECT_EQ(output().find("the store"), std::string::npos) << output();
}

TEST_F(LandlockTest, WritesOnlyTheWorkTreeAndTheSandboxNotThroughLinksItPlants) {
  auto sandbox = make_landlock();
  SKIP_WITHOUT_LANDLOCK(sandbox);
  const fs::path outside = m_dir / "outside";
  const std::string script =
      "echo w > built.txt && echo work ok; echo t > \"$TMPDIR/t\" && echo tmp ok; "
      "echo x > " +
      (outside / "f").string() +
      " || echo outside refused; "
      "echo x > " +
      (state() / "state.db").string() +
      " || echo store refused; "
      "echo x > " +
      (state() / "mirror/config").string() +
      " || echo mirror refused; "
      "echo x > /tmp/aaw-landlock-test-$$ || echo tmp refused; "
      "ln -s " +
      outside.string() +
      " planted && (echo x > planted/through || echo link refused); "
      "mkdir sub && mv built.txt sub/ && echo rename ok";
  ASSERT_TRUE(run_ok(*sandbox, in_work_tree(script)).succeeded()) << output();
  for (const char* word : {"work ok", "tmp ok", "outside refused", "store refused", "mirror refused",
                           "tmp refused", "link refused", "rename ok"})
    EXPECT_NE(output().find(word), std::string::npos) << word << " in: " << output();
  EXPECT_FALSE(fs::exists(outside / "f"));
  EXPECT_FALSE(fs::exists(outside / "through"));
  EXPECT_EQ(read_text(state() / "state.db"), "the store\n");
  EXPECT_TRUE(fs::exists(state() / "work/sub/built.txt"));
}

TEST_F(LandlockTest, CannotSignalTheDaemonAndGetsNoNewPrivileges) {
  auto sandbox = make_landlock();
  SKIP_WITHOUT_LANDLOCK(sandbox);
  const std::string script = "grep '^NoNewPrivs:' /proc/self/status; kill -0 " + std::to_string(::getpid()) +
                             " && echo signal sent || echo signal refused";
  ASSERT_TRUE(run_ok(*sandbox, in_work_tree(script)).succeeded()) << output();
  EXPECT_NE(output().find("NoNewPrivs:\t1"), std::string::npos) << output();
  if (sandbox->confinement().find("signals") != std::string::npos) {
    EXPECT_NE(output().find("signal refused"), std::string::npos) << output();
  }
}

TEST_F(LandlockTest, CutsTcpWhenAskedWhereTheKernelCan) {
  test::SilentListener listener;
  const std::string connect =
      "exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(listener.port()) + " && echo connected || echo refused";
  SandboxRequest request = in_work_tree("");
  request.argv = {"bash", "-c", connect};
  auto open = make_landlock(true);
  SKIP_WITHOUT_LANDLOCK(open);
  ASSERT_TRUE(run_ok(*open, request).succeeded());
  EXPECT_EQ(output(), "connected\n");
  auto cut = make_landlock(false);
  ASSERT_TRUE(cut);
  if (cut->confinement().find("TCP") == std::string::npos)
    GTEST_SKIP() << "Landlock ABI below 4: " << cut->confinement();
  ASSERT_TRUE(run_ok(*cut, request).succeeded());
  EXPECT_NE(output().find("refused\n"), std::string::npos) << output();
  request.network = true;  // a checkout fetching submodules
  ASSERT_TRUE(run_ok(*cut, request).succeeded());
  EXPECT_EQ(output(), "connected\n");
}

TEST_F(LandlockTest, SetsidDaemonsAreKilledWithTheRun) {
  auto sandbox = make_landlock();
  SKIP_WITHOUT_LANDLOCK(sandbox);
  const std::string marker = std::to_string(800000 + ::getpid() % 90000);
  ASSERT_TRUE(run_ok(*sandbox, in_work_tree("setsid sleep " + marker + " >/dev/null 2>&1 < /dev/null &"))
                  .succeeded());
  EXPECT_TRUE(eventually([&] { return processes_with_argument(marker).empty(); }))
      << processes_with_argument(marker).size() << " left";
}

// ---- output ------------------------------------------------------------------------------------

TEST_F(SandboxTest, HundredMegabytesOfOutputAreCappedKeepingTheStartAndTheEnd) {
  auto sandbox = make("process");
  SandboxRequest request =
      shell("echo THE START; head -c 100000000 /dev/zero; echo; echo THE REAL ERROR >&2; exit 4");
  request.log_limit_bytes = 1 << 20;

  const SandboxResult result = run_ok(*sandbox, request);

  EXPECT_EQ(result.outcome, SandboxResult::Outcome::exited);
  EXPECT_EQ(result.exit_code, 4);  // it wrote everything and went on
  EXPECT_TRUE(result.log_truncated);
  EXPECT_LT(result.elapsed, 3000ms);
  const auto size = fs::file_size(log_file());
  EXPECT_GT(size, request.log_limit_bytes);
  EXPECT_LT(size, request.log_limit_bytes + 200);  // the marker
  EXPECT_EQ(output().rfind("THE START\n", 0), 0u);
  EXPECT_NE(output().find(" bytes omitted "), std::string::npos);
  EXPECT_NE(log_tail(log_file(), 150).find("THE REAL ERROR"), std::string::npos);
}

TEST_F(SandboxTest, CappedLogIsTheFirstHalfTheMarkerAndTheLastHalf) {
  auto sandbox = make("process");
  std::string expected_all;
  for (int i = 1; i <= 100; ++i) expected_all += std::to_string(i) + "\n";  // 292 bytes
  SandboxRequest request = shell("for i in $(seq 1 100); do echo $i; done");
  request.log_limit_bytes = 101;  // 51 from the start, 50 from the end

  const SandboxResult result = run_ok(*sandbox, request);

  EXPECT_TRUE(result.log_truncated);
  EXPECT_EQ(output(), expected_all.substr(0, 51) + "\n[... 191 bytes omitted by aiter-api-watcher ...]\n" +
                          expected_all.substr(expected_all.size() - 50));
}

TEST_F(SandboxTest, OutputOfExactlyTheLimitIsKeptWhole) {
  auto sandbox = make("process");
  SandboxRequest request = shell("printf 0123456789");
  request.log_limit_bytes = 10;

  const SandboxResult result = run_ok(*sandbox, request);

  EXPECT_FALSE(result.log_truncated);
  EXPECT_EQ(output(), "0123456789");
}

TEST_F(SandboxTest, OutputUnderTheLimitIsKeptWhole) {
  auto sandbox = make("process");
  const SandboxResult result = run_ok(*sandbox, shell("echo out; echo err >&2"));

  EXPECT_FALSE(result.log_truncated);
  EXPECT_EQ(output(), "out\nerr\n");
}

// ---- exit status, signals, limits --------------------------------------------------------------

TEST_F(SandboxTest, ReportsExitStatus) {
  auto sandbox = make("process");
  const SandboxResult result = run_ok(*sandbox, shell("exit 7"));

  EXPECT_EQ(result.outcome, SandboxResult::Outcome::exited);
  EXPECT_EQ(result.exit_code, 7);
  EXPECT_FALSE(result.succeeded());
  EXPECT_EQ(result.describe(), "exited with status 7");
}

TEST_F(SandboxTest, ReportsDeathBySignal) {
  auto sandbox = make("process");
  const SandboxResult result = run_ok(*sandbox, shell("kill -SEGV $$"));

  EXPECT_EQ(result.outcome, SandboxResult::Outcome::signaled);
  EXPECT_EQ(result.signal, SIGSEGV);
  EXPECT_EQ(result.describe(), "killed by signal 11 (Segmentation fault)");
  EXPECT_FALSE(fs::exists(root() / "core"));
}

TEST_F(SandboxTest, NoCoreDumpsAndAtMost4096OpenFiles) {
  auto sandbox = make("process");
  ASSERT_TRUE(run_ok(*sandbox, shell("ulimit -c; ulimit -n")).succeeded());

  std::istringstream lines(output());
  std::string core;
  long files = 0;
  lines >> core >> files;
  EXPECT_EQ(core, "0");
  EXPECT_GT(files, 0);
  EXPECT_LE(files, 4096);
}

TEST_F(SandboxTest, DescriptorsWeHoldAreNotInherited) {
  const int fd = ::open("/dev/null", O_RDONLY);  // deliberately not close-on-exec
  ASSERT_GE(fd, 3);
  auto sandbox = make("process");
  // Builtins only: a command or a pipeline would open descriptors of its own in the shell.
  const SandboxResult result =
      run_ok(*sandbox, shell("n=0; while [ $n -lt 1024 ]; do [ -e /proc/$$/fd/$n ] && printf '%s ' $n; "
                             "n=$((n + 1)); done; true"));
  ::close(fd);

  ASSERT_TRUE(result.succeeded());
  EXPECT_EQ(output(), "0 1 2 ");
}

TEST_F(SandboxTest, AddressSpaceLimitMakesABigAllocationFail) {
  auto sandbox = make("process");
  SandboxRequest request;
  request.argv = {"/usr/bin/python3", "-c", "bytearray(16 << 20); print('small ok'); bytearray(2 << 30)"};
  request.log_file = log_file();
  request.address_space_bytes = 512u << 20;

  const SandboxResult result = run_ok(*sandbox, request);

  EXPECT_EQ(result.exit_code, 1) << output();
  EXPECT_NE(output().find("small ok"), std::string::npos) << output();
  EXPECT_NE(output().find("MemoryError"), std::string::npos) << output();
}

// ---- requests that cannot run ------------------------------------------------------------------

TEST_F(SandboxTest, WorkingDirectoryOutsideTheSandboxIsInvalidInput) {
  auto sandbox = make("process");
  for (const fs::path& cwd : {m_dir.path(), fs::path("../"), root() / "home/../.."}) {
    SandboxRequest request = shell("true");
    request.cwd = cwd;
    auto result = sandbox->run(request);
    ASSERT_FALSE(result) << cwd;
    EXPECT_EQ(result.error().code(), ErrorCode::invalid_input) << cwd;
    EXPECT_NE(result.error().message().find("outside the sandbox"), std::string::npos);
  }
}

TEST_F(SandboxTest, WorkingDirectoryMayBeInsideTheRootOrAWritablePath) {
  auto sandbox = make("process");
  fs::create_directories(m_dir / "work/sub");
  SandboxRequest request = shell("pwd");
  request.cwd = m_dir / "work/sub";
  request.writable = {m_dir / "work"};
  ASSERT_TRUE(run_ok(*sandbox, request).succeeded());
  EXPECT_EQ(output(), (m_dir / "work/sub").string() + "\n");

  request.cwd = "home";  // relative: to the root
  ASSERT_TRUE(run_ok(*sandbox, request).succeeded());
  EXPECT_EQ(output(), (sandbox->root() / "home").string() + "\n");
}

TEST_F(SandboxTest, MissingWorkingDirectoryIsNotFound) {
  auto sandbox = make("process");
  SandboxRequest request = shell("true");
  request.cwd = "no-such-dir";
  auto result = sandbox->run(request);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), ErrorCode::not_found);
  EXPECT_NE(result.error().message().find("no-such-dir"), std::string::npos);
}

TEST_F(SandboxTest, MissingProgramIsNotFoundNamingIt) {
  auto sandbox = make("process");
  for (const std::string program : {"aaw-no-such-program", "/usr/bin/aaw-no-such-program", "./nothing"}) {
    SandboxRequest request;
    request.argv = {program, "arg"};
    request.log_file = log_file();
    auto result = sandbox->run(request);
    ASSERT_FALSE(result) << program;
    EXPECT_EQ(result.error().code(), ErrorCode::not_found);
    EXPECT_NE(result.error().message().find("'" + program + "'"), std::string::npos)
        << result.error().message();
  }
}

TEST_F(SandboxTest, ProgramIsFoundInTheSandboxPathFromTheRequest) {
  auto sandbox = make("process");
  fs::create_directories(root() / "bin");
  write_file(root() / "bin/hello", "#!/bin/sh\necho hello from the sandbox\n");
  fs::permissions(root() / "bin/hello", fs::perms::owner_all);
  SandboxRequest request;
  request.argv = {"hello"};
  request.env = {{"PATH", (root() / "bin").string() + ":/usr/bin:/bin"}};
  request.log_file = log_file();

  ASSERT_TRUE(run_ok(*sandbox, request).succeeded());
  EXPECT_EQ(output(), "hello from the sandbox\n");
}

TEST_F(SandboxTest, UnwritableLogFileIsAnIoError) {
  auto sandbox = make("process");
  SandboxRequest request = shell("true");
  request.log_file = m_dir / "no-such-dir/out.log";
  auto result = sandbox->run(request);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), ErrorCode::io);
  EXPECT_NE(result.error().message().find("no-such-dir/out.log"), std::string::npos);
}

// ---- bubblewrap --------------------------------------------------------------------------------

TEST_F(SandboxTest, BwrapMakesEverythingButTheSandboxReadOnly) {
  auto sandbox = make_bwrap();
  SKIP_WITHOUT_BWRAP(sandbox);
  fs::create_directories(m_dir / "outside");
  fs::create_directories(m_dir / "extra");
  SandboxRequest request =
      shell("echo in > inside.txt && echo inside ok; echo x > " + (m_dir / "outside/f").string() +
            " || echo outside refused; echo x > " + (m_dir / "extra/f").string() + " && echo extra ok");
  request.writable = {m_dir / "extra"};

  ASSERT_TRUE(run_ok(*sandbox, request).succeeded()) << output();

  EXPECT_NE(output().find("inside ok\n"), std::string::npos) << output();
  EXPECT_NE(output().find("outside refused\n"), std::string::npos) << output();
  EXPECT_NE(output().find("extra ok\n"), std::string::npos) << output();
  EXPECT_EQ(read_text(root() / "inside.txt"), "in\n");
  EXPECT_FALSE(fs::exists(m_dir / "outside/f"));
  EXPECT_TRUE(fs::exists(m_dir / "extra/f"));
}

TEST_F(SandboxTest, BwrapCutsTheNetworkWhenAsked) {
  test::SilentListener listener;
  const std::string connect =
      "exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(listener.port()) + " && echo connected || echo refused";
  SandboxRequest request;
  request.argv = {"bash", "-c", connect};
  request.log_file = log_file();
  request.timeout = 5s;

  auto open = make_bwrap(true);
  SKIP_WITHOUT_BWRAP(open);
  ASSERT_TRUE(run_ok(*open, request).succeeded());
  EXPECT_EQ(output(), "connected\n");  // the check itself works

  auto cut = make_bwrap(false);
  SKIP_WITHOUT_BWRAP(cut);
  ASSERT_TRUE(run_ok(*cut, request).succeeded());
  EXPECT_NE(output().find("refused\n"), std::string::npos) << output();
}

TEST_F(SandboxTest, BwrapTimeoutKillsEverythingInside) {
  auto sandbox = make_bwrap();
  SKIP_WITHOUT_BWRAP(sandbox);
  // An argument no other process has, to find them from outside the PID namespace.
  const std::string marker = std::to_string(900000 + ::getpid() % 90000);
  SandboxRequest request =
      shell("trap '' TERM; sleep " + marker + " & setsid sleep " + marker + " & sleep " + marker);
  request.timeout = 2s;

  auto running_run = std::async(std::launch::async, [&] { return run_ok(*sandbox, request); });
  EXPECT_TRUE(eventually([&] { return processes_with_argument(marker).size() == 3; }, 1500ms))
      << "the three sleeps never ran: " << processes_with_argument(marker).size();
  const SandboxResult result = running_run.get();

  EXPECT_EQ(result.outcome, SandboxResult::Outcome::timed_out);
  EXPECT_LT(result.elapsed, 3900ms);
  EXPECT_TRUE(eventually([&] { return processes_with_argument(marker).empty(); }))
      << processes_with_argument(marker).size() << " left";
}

TEST_F(SandboxTest, BwrapReportsExitStatusAndSignalAsAShellDoes) {
  auto sandbox = make_bwrap();
  SKIP_WITHOUT_BWRAP(sandbox);
  EXPECT_EQ(run_ok(*sandbox, shell("exit 5")).exit_code, 5);
  const SandboxResult killed = run_ok(*sandbox, shell("kill -SEGV $$"));
  EXPECT_EQ(killed.outcome, SandboxResult::Outcome::exited);
  EXPECT_EQ(killed.exit_code, 128 + SIGSEGV);
}

TEST_F(SandboxTest, BwrapPassesTheSameEnvironment) {
  ScopedEnv token("GITHUB_TOKEN", "ghp_parentvalue");
  auto sandbox = make_bwrap();
  SKIP_WITHOUT_BWRAP(sandbox);
  SandboxRequest request = shell("env | cut -d= -f1 | sort | tr '\\n' ' '");
  request.env = {{"GITHUB_TOKEN", "ghp_listedvalue"}, {"BUILD_FLAG", "1"}};

  ASSERT_TRUE(run_ok(*sandbox, request).succeeded());
  EXPECT_EQ(output(), "BUILD_FLAG HOME LANG PATH PWD TMPDIR ");
}

// ---- make_sandbox ------------------------------------------------------------------------------

TEST_F(SandboxTest, ProcessKindIsThePlainRunnerWithItsDirectoriesCreated) {
  auto sandbox = make("process");
  EXPECT_EQ(sandbox->kind(), "process");
  EXPECT_EQ(sandbox->root(), fs::canonical(root()));
  EXPECT_TRUE(fs::is_directory(root() / "home"));
  EXPECT_TRUE(fs::is_directory(root() / "tmp"));
  ASSERT_EQ(warnings().size(), 1u);
  EXPECT_NE(warnings()[0].find("unconfined"), std::string::npos) << warnings()[0];
}

// What auto falls back to when bubblewrap cannot run: Landlock without a warning, else the plain
// runner with one.
void expect_fallback(const Sandbox& automatic, const std::vector<std::string>& warned) {
  if (detail::landlock_abi() > 0) {
    EXPECT_EQ(automatic.kind(), "landlock");
    EXPECT_TRUE(warned.empty());
  } else {
    EXPECT_EQ(automatic.kind(), "process");
    EXPECT_EQ(warned.size(), 1u);
  }
}

TEST_F(SandboxTest, AutoUsesBwrapWhereItWorksThenLandlockThenThePlainRunnerWithAWarning) {
  auto bwrap = make_bwrap();
  auto automatic = make("auto");
  if (bwrap) {
    EXPECT_EQ(automatic->kind(), "bwrap");
    EXPECT_TRUE(warnings().empty());
  } else {
    expect_fallback(*automatic, warnings());
  }
}

// A bwrap on PATH that cannot create namespaces, as inside many containers.
TEST_F(SandboxTest, BwrapThatCannotRunMakesAutoFallBackAndBwrapKindFail) {
  fs::create_directories(m_dir / "fakebin");
  write_file(m_dir / "fakebin/bwrap",
             "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n");
  fs::permissions(m_dir / "fakebin/bwrap", fs::perms::owner_all);
  ScopedEnv path("PATH", (m_dir / "fakebin").string() + ":/usr/bin:/bin");

  auto automatic = make("auto");
  expect_fallback(*automatic, warnings());
  const auto warned = warnings().size();

  SandboxConfig config;
  config.kind = "bwrap";
  auto required = make_sandbox(config, root(), m_log);
  ASSERT_FALSE(required);
  EXPECT_EQ(required.error().code(), ErrorCode::invalid_input);
  EXPECT_NE(required.error().message().find("No permissions to creating new namespace"), std::string::npos)
      << required.error().message();
  EXPECT_EQ(warnings().size(), warned);
}

TEST_F(SandboxTest, BwrapKindWithoutBwrapInstalledIsInvalidInput) {
  fs::create_directories(m_dir / "emptybin");
  ScopedEnv path("PATH", (m_dir / "emptybin").string());
  SandboxConfig config;
  config.kind = "bwrap";
  auto required = make_sandbox(config, root(), m_log);
  ASSERT_FALSE(required);
  EXPECT_EQ(required.error().code(), ErrorCode::invalid_input);
  EXPECT_NE(required.error().message().find("not installed"), std::string::npos)
      << required.error().message();

  auto automatic = make("auto");
  expect_fallback(*automatic, warnings());
}

TEST_F(SandboxTest, UnknownKindIsInvalidInput) {
  SandboxConfig config;
  config.kind = "docker";
  auto sandbox = make_sandbox(config, root(), m_log);
  ASSERT_FALSE(sandbox);
  EXPECT_EQ(sandbox.error().code(), ErrorCode::invalid_input);
  EXPECT_NE(sandbox.error().message().find("'docker'"), std::string::npos);
}

TEST_F(SandboxTest, UncreatableRootIsAnIoError) {
  write_file(m_dir / "file", "");
  SandboxConfig config;
  config.kind = "process";
  auto sandbox = make_sandbox(config, m_dir / "file/sandbox", m_log);
  ASSERT_FALSE(sandbox);
  EXPECT_EQ(sandbox.error().code(), ErrorCode::io);
  EXPECT_NE(sandbox.error().message().find("file/sandbox"), std::string::npos);
}

// ---- a root daemon's children as a user of their own ---------------------------------------------

// The daemon's layout in a directory other users may pass through (as /var/lib is): the store, a
// work tree, a token file readable by root alone.
class ChildUserTest : public SandboxTest {
 protected:
  ChildUserTest() {
    fs::permissions(m_dir.path(), fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
    fs::create_directories(state() / "work");
    write_file(state() / "state.db", "the store\n");
    write_file(state() / "work" / "setup.py", "from the checkout\n");
    write_file(token(), "ghp_planted_token_file\n");
    fs::permissions(token(), fs::perms::owner_read | fs::perms::owner_write);
  }

  Result<std::unique_ptr<Sandbox>> make_as(const std::string& kind, const std::string& run_as) {
    SandboxConfig config;
    config.kind = kind;
    config.run_as = run_as;
    return make_sandbox(config, state() / "sandbox", m_log, {{token()}, {state()}});
  }

  SandboxRequest in_work_tree(const std::string& script) const {
    SandboxRequest request = shell(script);
    request.cwd = state() / "work";
    request.writable = {state() / "work"};
    return request;
  }

  fs::path state() const { return m_dir / "state"; }
  fs::path token() const { return m_dir / "token.txt"; }
  // The uid `auto` gives this state directory's children.
  uid_t own_uid() const { return (*detail::resolve_run_as("auto", 0, fs::canonical(state())))->uid; }
  std::string as_own_user() const { return "as uid " + std::to_string(own_uid()); }
};

#define SKIP_UNLESS_ROOT() \
  if (::geteuid() != 0) GTEST_SKIP() << "children change user only when the daemon is root"

// The children exec this test binary; a checkout under a 0700 directory (mktemp -d, /root) closes it
// to their uid, and the sandbox then rightly falls back to root: nothing to test there.
#define SKIP_UNLESS_CHILDREN_SWITCH()                                      \
  SKIP_UNLESS_ROOT();                                                      \
  if (const auto exe = fs::read_symlink("/proc/self/exe");                 \
      !detail::user_may_access({own_uid(), own_uid(), "auto"}, exe, X_OK)) \
  GTEST_SKIP() << "uid " << own_uid() << " cannot run " << exe << " (a directory above it is closed)"

uid_t owner_of(const fs::path& path) {
  struct stat st {};
  ::lstat(path.c_str(), &st);
  return st.st_uid;
}

TEST_F(ChildUserTest, UnderThePlainRunnerTheyWriteOnlyTheirOwnPathsAndCannotReadTheToken) {
  SKIP_UNLESS_CHILDREN_SWITCH();
  // The token is out of the children's reach: no need to accept anything.
  auto sandbox = make_as("process", "auto");
  ASSERT_TRUE(sandbox) << sandbox.error().message();
  EXPECT_NE((*sandbox)->confinement().find(as_own_user()), std::string::npos) << (*sandbox)->confinement();
  const std::string script =
      "id -u; id -g; echo built >> setup.py && echo work ok; echo t > \"$TMPDIR/t\" && echo tmp ok; "
      "cat " +
      token().string() +
      " || echo token refused; "
      "echo x >> " +
      (state() / "state.db").string() +
      " || echo store refused; "
      "echo x > " +
      (state() / "planted").string() +
      " || echo state dir refused; "
      "echo x > /etc/aaw-child-user-test || echo etc refused; grep '^CapEff:' /proc/self/status";
  ASSERT_TRUE(run_ok(**sandbox, in_work_tree(script)).succeeded()) << output();
  const std::string ids = std::to_string(own_uid()) + "\n" + std::to_string(own_uid()) + "\n";
  for (const std::string& word :
       std::vector<std::string>{ids, "work ok", "tmp ok", "token refused", "store refused",
                                "state dir refused", "etc refused", "CapEff:\t0000000000000000"})
    EXPECT_NE(output().find(word), std::string::npos) << word << " in: " << output();
  EXPECT_EQ(output().find("ghp_planted"), std::string::npos) << output();
  EXPECT_EQ(read_text(state() / "state.db"), "the store\n");
  EXPECT_FALSE(fs::exists("/etc/aaw-child-user-test"));
  EXPECT_EQ(owner_of(state() / "work" / "setup.py"), own_uid()) << "the checkout's file was not handed over";
  EXPECT_EQ(owner_of(state() / "state.db"), 0u);
}

TEST_F(ChildUserTest, UnderLandlockTooAndWhatTheyLeaveRunningAnywhereIsKilled) {
  SKIP_UNLESS_CHILDREN_SWITCH();
  auto sandbox = make_as("landlock", "auto");
  if (!sandbox) GTEST_SKIP() << "Landlock cannot run here: " << sandbox.error().message();
  EXPECT_NE((*sandbox)->confinement().find(as_own_user()), std::string::npos) << (*sandbox)->confinement();
  // A daemon in a session of its own whose parent is gone: no group or parent leads to it.
  const std::string script = "id -u; (setsid sh -c 'echo $$ > pid; exec sleep 300' &) ; sleep 0.2";
  ASSERT_TRUE(run_ok(**sandbox, in_work_tree(script)).succeeded()) << output();
  EXPECT_NE(output().find(std::to_string(own_uid())), std::string::npos) << output();
  const auto pids = read_pids(state() / "work" / "pid");
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_TRUE(eventually([&] { return !running(pids[0]); })) << "pid " << pids[0] << " outlived its run";
}

TEST_F(ChildUserTest, PathsGoBackToRootWhenChildrenRunAsTheDaemonAgain) {
  SKIP_UNLESS_CHILDREN_SWITCH();
  auto as_user = make_as("process", "auto");
  ASSERT_TRUE(as_user) << as_user.error().message();
  ASSERT_TRUE(run_ok(**as_user, in_work_tree("mkdir -p build && echo o > build/out.o")).succeeded());
  EXPECT_EQ(owner_of(state() / "work" / "build" / "out.o"), own_uid());

  // Root without capabilities may not write a file another user owns: the paths must come back.
  SandboxConfig config;
  config.kind = "process";
  config.run_as = "daemon";
  config.accept_unconfined = true;
  auto as_root = make_sandbox(config, state() / "sandbox", m_log, {{token()}, {state()}});
  ASSERT_TRUE(as_root) << as_root.error().message();
  ASSERT_TRUE(run_ok(**as_root, in_work_tree("echo again > build/out.o && id -u")).succeeded()) << output();
  EXPECT_EQ(read_text(state() / "work" / "build" / "out.o"), "again\n");
  EXPECT_EQ(owner_of(state() / "work" / "build" / "out.o"), 0u);
}

TEST_F(ChildUserTest, AUserThatCannotReachTheStateDirectoryIsAWarningForAutoAndAnErrorWhenNamed) {
  SKIP_UNLESS_ROOT();
  fs::permissions(m_dir.path(), fs::perms::owner_all);  // as a 0700 temporary directory is
  auto automatic = make_as("process", "auto");
  ASSERT_FALSE(automatic) << "a root child could read the token: refused without accept_unconfined";
  SandboxConfig config;
  config.kind = "process";
  config.accept_unconfined = true;
  auto fallback = make_sandbox(config, state() / "sandbox", m_log, {{token()}, {state()}});
  ASSERT_TRUE(fallback) << fallback.error().message();
  EXPECT_NE((*fallback)->confinement().find("as root with every capability dropped"), std::string::npos)
      << (*fallback)->confinement();
  ASSERT_FALSE(warnings().empty());
  EXPECT_NE(warnings()[0].find("cannot run " + as_own_user()), std::string::npos) << warnings()[0];
  EXPECT_NE(warnings()[0].find("cannot reach '" + m_dir.path().string() + "/state'"), std::string::npos)
      << warnings()[0];

  auto named = make_as("process", std::to_string(own_uid()));
  ASSERT_FALSE(named);
  EXPECT_EQ(named.error().code(), ErrorCode::invalid_input);
  EXPECT_NE(named.error().message().find("sandbox.run_as"), std::string::npos) << named.error().message();
}

TEST_F(ChildUserTest, ARunAsThatCannotWorkIsAnErrorWhicheverRunnerIsAsked) {
  for (const char* kind : {"auto", "bwrap", "landlock", "process"}) {
    auto refused = make_as(kind, ::geteuid() == 0 ? "0" : "1234");
    ASSERT_FALSE(refused) << kind;
    EXPECT_NE(refused.error().message().find("sandbox.run_as"), std::string::npos)
        << refused.error().message();
  }
}

// ---- helpers -----------------------------------------------------------------------------------

TEST(IsSecretNameTest, TokensKeysSecretsAndPasswordsInAnyCase) {
  struct Case {
    const char* name;
    bool secret;
  };
  for (const Case& c : std::initializer_list<Case>{{"GITHUB_TOKEN", true},
                                                   {"github_token", true},
                                                   {"NPM_TOKEN", true},
                                                   {"TOKEN", true},
                                                   {"MY_API_KEY", true},
                                                   {"AWS_SECRET_ACCESS_KEY", true},
                                                   {"X_SECRET", true},
                                                   {"Db_Password", true},
                                                   {"PATH", false},
                                                   {"HOME", false},
                                                   {"PREBUILD_KERNELS", false},
                                                   {"TOKENIZERS_PARALLELISM", false},
                                                   {"MONKEY", false},
                                                   {"GITHUB_TOKEN_FILE", false},
                                                   {"", false}}) {
    EXPECT_EQ(is_secret_name(c.name), c.secret) << c.name;
  }
}

}  // namespace
}  // namespace aaw
