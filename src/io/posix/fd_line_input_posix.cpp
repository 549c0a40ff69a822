#include "io/posix/fd_line_input_posix.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace aaw {
namespace {

class FdLineInput final : public LineInput {
 public:
  explicit FdLineInput(int fd) : m_fd(fd) {}

  std::optional<std::string> next(bool wait) override {
    for (;;) {
      if (auto line = whole_line()) return line;
      if (m_ended) return rest();
      if (!wait && !readable()) return std::nullopt;
      read_some();
    }
  }

 private:
  std::optional<std::string> whole_line() {
    const auto end = m_pending.find('\n');
    if (end == std::string::npos) return std::nullopt;
    std::string line = m_pending.substr(0, end);
    m_pending.erase(0, end + 1);
    return line;
  }

  // What is left after the last '\n' when the input ended (a last line without one), once.
  std::optional<std::string> rest() {
    if (m_pending.empty()) return std::nullopt;
    std::string line;
    line.swap(m_pending);
    return line;
  }

  bool readable() const {
    pollfd descriptor{m_fd, POLLIN, 0};
    int ready = 0;
    do {
      ready = ::poll(&descriptor, 1, 0);
    } while (ready < 0 && errno == EINTR);
    return ready > 0;  // data, or the end (POLLHUP), which read_some() then finds
  }

  void read_some() {
    char buffer[65536];
    ssize_t n = 0;
    do {
      n = ::read(m_fd, buffer, sizeof buffer);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
      m_ended = true;
      return;
    }
    m_pending.append(buffer, static_cast<std::size_t>(n));
  }

  int m_fd;
  std::string m_pending;
  bool m_ended = false;
};

}  // namespace

std::unique_ptr<LineInput> make_fd_line_input(int fd) { return std::make_unique<FdLineInput>(fd); }

}  // namespace aaw
