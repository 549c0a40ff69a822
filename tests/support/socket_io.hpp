// Reading and writing a client socket for the test servers on 127.0.0.1 (the git http-backend
// server and the GitHub API emulator): buffered reads bounded by a deadline, and whole writes.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace aaw::test {

// How long a loopback server waits for the rest of a request: a client that stops talking
// mid-request must not wedge the server for the rest of the test.
inline constexpr auto k_request_timeout = std::chrono::seconds(30);

class SocketReader {
 public:
  SocketReader(int fd, std::chrono::milliseconds timeout)
      : m_fd(fd), m_deadline(std::chrono::steady_clock::now() + timeout) {}

  // The next line without its CRLF; nullopt at the deadline or when the peer closed.
  std::optional<std::string> line() {
    std::size_t end;
    while ((end = m_buffer.find("\r\n")) == std::string::npos) {
      if (!fill()) return std::nullopt;
    }
    std::string text = m_buffer.substr(0, end);
    m_buffer.erase(0, end + 2);
    return text;
  }

  std::optional<std::string> exactly(std::size_t size) {
    while (m_buffer.size() < size) {
      if (!fill()) return std::nullopt;
    }
    std::string text = m_buffer.substr(0, size);
    m_buffer.erase(0, size);
    return text;
  }

 private:
  bool fill() {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(m_deadline - std::chrono::steady_clock::now());
    pollfd p{m_fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char chunk[65536];
    const ssize_t n = ::recv(m_fd, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    m_buffer.append(chunk, static_cast<std::size_t>(n));
    return true;
  }

  int m_fd;
  std::chrono::steady_clock::time_point m_deadline;
  std::string m_buffer;
};

// Writes all of `data`, or stops quietly when the peer has gone (its test then fails on what it
// did not receive).
inline void send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace aaw::test
