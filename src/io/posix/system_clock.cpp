#include "io/posix/system_clock.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>

#include "core/ports/clock.hpp"

namespace aaw {

void SystemClock::sleep_until(TimePoint deadline) {
  auto remaining = std::chrono::duration_cast<Duration>(deadline - now());
  if (remaining.count() <= 0) return;
  // poll() rather than sleep: the signal pipe cuts the wait short, so SIGTERM during a one-hour
  // interval ends the daemon at once.
  struct pollfd fd {
    m_wake_fd, POLLIN, 0
  };
  int timeout = static_cast<int>(std::min<long long>(remaining.count(), 24LL * 3600 * 1000));
  ::poll(m_wake_fd >= 0 ? &fd : nullptr, m_wake_fd >= 0 ? 1 : 0, timeout);
  if (m_wake_fd >= 0 && (fd.revents & POLLIN)) {
    char buffer[64];
    while (::read(m_wake_fd, buffer, sizeof buffer) > 0) {
    }
  }
}

void InterruptibleClock::sleep_until(TimePoint deadline) {
  std::unique_lock lock(m_mutex);
  m_wake.wait_until(lock, deadline, [this] { return m_interrupted; });
}

void InterruptibleClock::interrupt() {
  {
    std::lock_guard lock(m_mutex);
    m_interrupted = true;
  }
  m_wake.notify_all();
}

}  // namespace aaw
