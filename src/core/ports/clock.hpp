// Time, behind an interface so that the poll loop, backoff and progress are tested with a fake
// clock that never sleeps.
#pragma once

#include <chrono>

#include "util/time.hpp"

namespace aaw {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
  // Returns at `deadline`, or earlier when woken (a signal arrived): callers re-check what they
  // wait for.
  virtual void sleep_until(TimePoint deadline) = 0;
};

}  // namespace aaw
