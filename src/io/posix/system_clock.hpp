// The Clock port on the system clock (src/io/posix/system_clock.cpp).
#pragma once

#include <condition_variable>
#include <mutex>

#include "core/ports/clock.hpp"

namespace aaw {

class SystemClock final : public Clock {
 public:
  // `wake_fd`: a descriptor that becomes readable to cut a sleep short (-1: none).
  explicit SystemClock(int wake_fd = -1) : m_wake_fd(wake_fd) {}
  TimePoint now() const override { return std::chrono::system_clock::now(); }
  void sleep_until(TimePoint deadline) override;

 private:
  int m_wake_fd;
};

// The system clock with sleeps that interrupt() ends at once, and every later sleep too: for a
// thread that must stop promptly (the notification delivery, and the GitHub client's waits in it).
class InterruptibleClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::system_clock::now(); }
  void sleep_until(TimePoint deadline) override;
  void interrupt();

 private:
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_interrupted = false;
};

}  // namespace aaw
