// A TCP port on 127.0.0.1 that takes connections and never answers: listen() without accept(), so
// the kernel completes every handshake (up to the backlog) and nothing is ever sent back. What a
// wedged server or a broken proxy looks like to a client.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

namespace aaw::test {

class SilentListener {
 public:
  SilentListener() {
    m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (m_fd < 0 || ::bind(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(m_fd, 64) != 0 || ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
      throw std::runtime_error("SilentListener: cannot listen on 127.0.0.1");
    m_port = ntohs(address.sin_port);
  }
  ~SilentListener() { ::close(m_fd); }
  SilentListener(const SilentListener&) = delete;
  SilentListener& operator=(const SilentListener&) = delete;

  int port() const { return m_port; }
  // "<scheme>://127.0.0.1:<port>/<repo>"
  std::string url(const std::string& scheme, const std::string& repo) const {
    return scheme + "://127.0.0.1:" + std::to_string(m_port) + "/" + repo;
  }

 private:
  int m_fd = -1;
  int m_port = 0;
};

}  // namespace aaw::test
