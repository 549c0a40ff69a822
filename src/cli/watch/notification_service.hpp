// The notification delivery a watch or replay command runs: its own state-store connection, the
// curl transport, a GitHub client, the channels the config enables, the notifier, and the
// delivery service (notify/delivery_service.hpp) that runs them on a thread of its own.
#pragma once

#include <memory>
#include <vector>

#include "core/model/config.hpp"
#include "core/ports/control.hpp"
#include "core/ports/github_client.hpp"
#include "core/ports/http_transport.hpp"
#include "core/ports/state_store.hpp"
#include "core/report/log.hpp"
#include "core/watch/commit_processor.hpp"
#include "io/posix/system_clock.hpp"
#include "notify/delivery_service.hpp"
#include "notify/notifier.hpp"

namespace aaw::cli {

// The notification targets the config enables. Throws CommandError for a target limited to changes
// that break the consumer (only_if_consumer_breaks) in a config that names no consumer: watch and
// check-config refuse it alike.
std::vector<NotificationTarget> notification_targets_or_throw(const Config& config);

// The options the daemon delivers with: retries paced by the poll interval (from min(30 s,
// interval), doubling up to min(1 h, max(that, 4 x interval))).
NotifierOptions notifier_options(const Config& config);

class NotificationService {
 public:
  // nullptr when the config enables no notification channel. Throws CommandError when the state
  // store or the token file cannot be read.
  static std::unique_ptr<NotificationService> create(const Config& config, Control& control, Logger& log);
  ~NotificationService();
  NotificationService(const NotificationService&) = delete;
  NotificationService& operator=(const NotificationService&) = delete;

  // Continuous modes: deliver in the background from now on.
  void start() { m_service->start(); }
  // --once: deliver what is due now, within bounded rounds and two minutes, or until SIGTERM.
  void flush();

 private:
  NotificationService(const Config& config, Control& control, Logger& log);

  Control& m_control;
  InterruptibleClock m_clock;
  std::unique_ptr<StateStore> m_store;
  std::unique_ptr<HttpTransport> m_transport;
  std::unique_ptr<GithubClient> m_github;
  std::unique_ptr<ChannelContext> m_context;
  std::unique_ptr<Notifier> m_notifier;
  std::unique_ptr<DeliveryService> m_service;
};

}  // namespace aaw::cli
