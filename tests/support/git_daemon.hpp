// `git daemon` on 127.0.0.1 serving the repositories under one directory over git://, for tests
// of fetching over a real network protocol. Stoppable and restartable on the same port, to test
// a remote that goes away between two polls and comes back.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace aaw::test {

class GitDaemon {
 public:
  // Serves every repository under `base_dir` (bare or not; receive-pack enabled) on a free
  // loopback port, and returns once the port accepts connections. Throws std::runtime_error
  // with the daemon's log when it cannot start within a few seconds.
  explicit GitDaemon(std::filesystem::path base_dir);
  ~GitDaemon();
  GitDaemon(const GitDaemon&) = delete;
  GitDaemon& operator=(const GitDaemon&) = delete;

  int port() const { return m_port; }
  // "git://127.0.0.1:<port>/<repo>", `repo` relative to base_dir.
  std::string url(std::string_view repo) const;

  // Stops the daemon: connections are refused until restart().
  void stop();
  // Starts it again on the same port; throws like the constructor.
  void restart();
  bool running() const { return m_process != nullptr && m_process->running(); }

 private:
  bool start_on(int port);

  std::filesystem::path m_base_dir;
  TempDir m_logs{"aaw-git-daemon"};
  int m_port = 0;
  std::unique_ptr<BackgroundProcess> m_process;
};

// A loopback TCP port nobody listens on right now (the kernel's pick for 127.0.0.1:0).
int free_loopback_port();
// True when 127.0.0.1:port accepts a connection within `timeout_ms`; false at once when `server`
// (the process meant to listen there) has exited.
bool wait_for_loopback_port(int port, int timeout_ms, BackgroundProcess* server = nullptr);

}  // namespace aaw::test
