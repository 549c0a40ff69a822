// The notifier as the watch and replay commands run it: its own state-store connection, the curl
// transport, a GitHub client and the Notifier, all used by one thread at a time.
// - In continuous mode, start() delivers in a background thread: due notifications go out as soon
//   as the commit that queued them is recorded (checked every second) and whenever a backoff ends,
//   without ever holding up the processing of commits, which runs on the main thread.
// - With --once, flush() delivers what is due now, on the caller's thread before the process
//   exits, within a bounded number of rounds and two minutes; what is left waits for the next run.
// stop() (and the destructor) ends the thread after the request in flight, which times out after
// 10 s at most; the GitHub client's waits are cut short by it, so SIGTERM still ends the daemon
// promptly.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "aaw/core/clock.hpp"
#include "aaw/core/config.hpp"
#include "aaw/core/control.hpp"
#include "aaw/core/github_client.hpp"
#include "aaw/core/http_transport.hpp"
#include "aaw/core/log.hpp"
#include "aaw/core/state_store.hpp"
#include "aaw/notify/notifier.hpp"

namespace aaw::cli {

// The options the daemon delivers with: the config's targets, and retries paced by the poll
// interval (from min(30 s, interval), doubling up to min(1 h, max(that, 4 x interval))).
NotifierOptions notifier_options(const Config& config);

class NotificationService {
 public:
  // nullptr when the config has no notification target. Throws CommandError when the state store
  // or the token file cannot be read.
  static std::unique_ptr<NotificationService> create(const Config& config, Control& control, Logger& log);
  ~NotificationService();
  NotificationService(const NotificationService&) = delete;
  NotificationService& operator=(const NotificationService&) = delete;

  void start();
  void stop();
  void flush();

 private:
  // A clock whose sleeps end at once when the service stops.
  class StoppableClock final : public Clock {
   public:
    explicit StoppableClock(NotificationService& service) : m_service(service) {}
    TimePoint now() const override { return std::chrono::system_clock::now(); }
    void sleep_until(TimePoint deadline) override;

   private:
    NotificationService& m_service;
  };

  NotificationService(const Config& config, Control& control, Logger& log);
  void run();
  bool stopping() const { return m_stopping || m_control.stop_requested(); }

  Control& m_control;
  Logger& m_log;
  StoppableClock m_clock{*this};
  std::unique_ptr<StateStore> m_store;
  std::unique_ptr<HttpTransport> m_transport;
  std::unique_ptr<GithubClient> m_github;
  std::unique_ptr<Notifier> m_notifier;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::atomic<bool> m_stopping{false};
  std::thread m_thread;
};

}  // namespace aaw::cli
