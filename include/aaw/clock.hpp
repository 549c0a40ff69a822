// Time, behind an interface so that the poll loop, backoff and progress are tested with a fake
// clock that never sleeps.
#pragma once

#include <chrono>

namespace aaw {

using TimePoint = std::chrono::system_clock::time_point;
using Duration = std::chrono::milliseconds;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
  // Returns at `deadline`, or earlier when woken (a signal arrived): callers re-check what they
  // wait for.
  virtual void sleep_until(TimePoint deadline) = 0;
};

class SystemClock final : public Clock {
 public:
  // `wake_fd`: a descriptor that becomes readable to cut a sleep short (-1: none).
  explicit SystemClock(int wake_fd = -1) : m_wake_fd(wake_fd) {}
  TimePoint now() const override { return std::chrono::system_clock::now(); }
  void sleep_until(TimePoint deadline) override;

 private:
  int m_wake_fd;
};

}  // namespace aaw
