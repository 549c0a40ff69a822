// A clock for unit tests: time moves only when the code under test sleeps (to the deadline) or the
// test advances it. A hook runs at every sleep, so a test can change the world between polls.
#pragma once

#include <functional>
#include <vector>

#include "core/ports/clock.hpp"

namespace aaw::test {

class FakeClock final : public Clock {
 public:
  explicit FakeClock(TimePoint start = TimePoint(std::chrono::seconds(1'700'000'000))) : m_now(start) {}

  TimePoint now() const override { return m_now; }
  void sleep_until(TimePoint deadline) override {
    if (deadline > m_now) {
      m_sleeps.push_back(std::chrono::duration_cast<Duration>(deadline - m_now));
      m_now = deadline;
    }
    if (m_on_sleep) m_on_sleep(m_sleeps.size());
  }

  void advance(Duration d) { m_now += d; }
  // Called after each sleep with the number of sleeps so far.
  void on_sleep(std::function<void(std::size_t)> hook) { m_on_sleep = std::move(hook); }
  const std::vector<Duration>& sleeps() const { return m_sleeps; }

 private:
  TimePoint m_now;
  std::vector<Duration> m_sleeps;
  std::function<void(std::size_t)> m_on_sleep;
};

}  // namespace aaw::test
