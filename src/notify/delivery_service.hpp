// The notifier as a daemon runs it, on a thread of its own:
// - start() delivers in the background: due notifications go out as soon as the commit that
//   queued them is recorded (looked for every second) and whenever a backoff ends, without ever
//   holding up the processing of commits, which runs on the main thread;
// - flush() delivers what is due now on the caller's thread, within a bounded number of rounds and
//   a time budget: what `watch --once` does before it exits;
// - stop() (and the destructor) ends the thread after the request in flight.
// The notifier and the store it was given are used by this service only (its own connection).
#pragma once

#include <atomic>
#include <functional>
#include <thread>

#include "core/ports/clock.hpp"
#include "core/ports/state_store.hpp"
#include "core/report/log.hpp"
#include "notify/notifier.hpp"

namespace aaw {

class DeliveryService {
 public:
  // How often the thread looks for notifications the main thread has just queued.
  static constexpr Duration k_idle_check{1000};

  // The thread sleeps on `clock`; `interrupt_sleeps` (empty: none needed) makes the clock's
  // sleeps end at once, so that stop() is prompt (io/posix/system_clock.hpp: InterruptibleClock).
  DeliveryService(Notifier& notifier, StateStore& store, Clock& clock, Logger& log,
                  std::function<void()> interrupt_sleeps = {})
      : m_notifier(notifier),
        m_store(store),
        m_clock(clock),
        m_log(log),
        m_interrupt_sleeps(std::move(interrupt_sleeps)) {}
  ~DeliveryService();
  DeliveryService(const DeliveryService&) = delete;
  DeliveryService& operator=(const DeliveryService&) = delete;

  // One round at clock.now(): what is due is delivered; returns when to look again (the next
  // due time, at most k_idle_check away; now when a full batch may have left more due). A store
  // that fails is logged once until it recovers.
  TimePoint deliver_once();

  void start();
  void stop();

  // Rounds until nothing due is left, at most `max_rounds`, within `budget`, or until the
  // service is stopped or `stop` (the caller's, e.g. SIGTERM) says so; then logs how many are
  // still pending. Errors are logged.
  void flush(int max_rounds, Duration budget, const std::function<bool()>& stop = {});

 private:
  void run();

  Notifier& m_notifier;
  StateStore& m_store;
  Clock& m_clock;
  Logger& m_log;
  std::function<void()> m_interrupt_sleeps;
  bool m_failing = false;
  std::atomic<bool> m_stopping{false};
  std::thread m_thread;
};

}  // namespace aaw
