// The Clock port on the system clock (src/io/system_clock.cpp).
#pragma once

#include "aaw/core/clock.hpp"

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

}  // namespace aaw
