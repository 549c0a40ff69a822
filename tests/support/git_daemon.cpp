#include "support/git_daemon.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "support/git_fixture.hpp"

namespace aaw::test {
namespace {

// Another process may take the port between our probe and the daemon's bind: try again then.
constexpr int k_start_attempts = 5;
constexpr int k_start_timeout_ms = 10000;

sockaddr_in loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

bool accepts_connections(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const sockaddr_in address = loopback(port);
  const bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address = loopback(0);
  socklen_t length = sizeof address;
  const bool ok = fd >= 0 && ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  if (fd >= 0) ::close(fd);
  if (!ok) throw std::runtime_error("cannot find a free loopback port");
  return ntohs(address.sin_port);
}

bool wait_for_loopback_port(int port, int timeout_ms, BackgroundProcess* server) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    if (server != nullptr && !server->running()) return false;
    // Checked again after connecting: if another process holds the port, ours exits soon.
    if (accepts_connections(port)) return server == nullptr || server->running();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

GitDaemon::GitDaemon(std::filesystem::path base_dir) : m_base_dir(std::move(base_dir)) {
  for (int attempt = 0; attempt < k_start_attempts; ++attempt) {
    if (start_on(free_loopback_port())) return;
  }
  throw std::runtime_error("git daemon did not start: " + m_process->log());
}

GitDaemon::~GitDaemon() { stop(); }

std::string GitDaemon::url(std::string_view repo) const {
  return "git://127.0.0.1:" + std::to_string(m_port) + "/" + std::string(repo);
}

void GitDaemon::stop() { m_process.reset(); }

void GitDaemon::restart() {
  stop();
  for (int attempt = 0; attempt < k_start_attempts; ++attempt) {
    if (start_on(m_port)) return;
  }
  throw std::runtime_error("git daemon did not restart: " + m_process->log());
}

bool GitDaemon::start_on(int port) {
  m_port = port;
  const std::string base = m_base_dir.string();
  RunOptions options = isolated_git_options();
  m_process = std::make_unique<BackgroundProcess>(
      std::vector<std::string>{"git", "daemon", "--export-all", "--reuseaddr", "--listen=127.0.0.1",
                               "--port=" + std::to_string(port), "--base-path=" + base,
                               "--enable=receive-pack", base},
      m_logs / "git-daemon.log", options);
  if (wait_for_loopback_port(port, k_start_timeout_ms, m_process.get())) return true;
  m_process->stop();
  return false;
}

}  // namespace aaw::test
