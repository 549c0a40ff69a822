// Child processes for fixtures and integration tests: run a command to completion and capture its
// output, or keep a server running in the background for the length of a test.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace aaw::test {

struct RunOptions {
  std::filesystem::path cwd;               // empty: the test's working directory
  std::map<std::string, std::string> env;  // added to (or replacing in) the inherited environment
  std::vector<std::string> unset_env;      // removed from the inherited environment
  std::string stdin_text;                  // written to the child's stdin, which is then closed
  int timeout_seconds = 120;               // then the whole process group is killed
};

struct ProcessResult {
  int exit_code = -1;      // the exit status, or -N when killed by signal N
  std::string out;         // everything the child wrote to stdout
  std::string err;         // everything the child wrote to stderr
  bool timed_out = false;  // killed because it outlived RunOptions::timeout_seconds
  bool ok() const { return exit_code == 0 && !timed_out; }
};

// Runs argv (argv[0] looked up in PATH) in its own process group and waits for it. stdout and
// stderr are read concurrently, so a child writing megabytes cannot deadlock. A command that
// cannot be started exits 127 with the reason on err. Never throws for the child's failures.
ProcessResult run_process(const std::vector<std::string>& argv, const RunOptions& options = {});

// The built aiter-api-watcher (`binary`) with `args`, run in `cwd` without the environment's
// GITHUB_TOKEN (a developer's token must never reach what a test talks to).
ProcessResult run_watcher(const std::string& binary, const std::filesystem::path& cwd,
                          std::vector<std::string> args);

// A server or daemon for the length of a test: argv runs in its own process group with stdout and
// stderr appended to log_file. The destructor stops it (SIGTERM, then SIGKILL) and reaps it.
// RunOptions::stdin_text and timeout_seconds are ignored (stdin is /dev/null).
// Waits (bounded by `limit`) until `ready` holds, checking every 50 ms: a daemon under test runs at
// its own pace. Returns whether it held.
bool eventually(const std::function<bool()>& ready, std::chrono::seconds limit = std::chrono::seconds(30));

class BackgroundProcess {
 public:
  // Throws std::runtime_error when the process cannot be started.
  BackgroundProcess(const std::vector<std::string>& argv, const std::filesystem::path& log_file,
                    const RunOptions& options = {});
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  pid_t pid() const { return m_pid; }
  // False once the process has exited (it is reaped then; exit_code() tells how).
  bool running();
  // SIGTERM to the group, up to `grace` for it to exit, then SIGKILL; returns the exit code
  // (-signal when killed). Calling it again returns the same code.
  int stop(std::chrono::milliseconds grace = std::chrono::milliseconds(3000));
  std::optional<int> exit_code() const { return m_exit_code; }
  // What the process has written so far.
  std::string log() const;

 private:
  pid_t m_pid = -1;
  std::filesystem::path m_log_file;
  std::optional<int> m_exit_code;
};

}  // namespace aaw::test
