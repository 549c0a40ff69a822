#include "cli/watch/notification_service.hpp"

#include <algorithm>

#include "cli/command_context.hpp"
#include "core/model/state_dir.hpp"
#include "io/http/curl_http_transport.hpp"
#include "io/http/github_rest_client.hpp"
#include "io/sqlite/sqlite_state_store.hpp"
#include "notify/channel_registry.hpp"
#include "notify/github_issue_channel.hpp"
#include "util/url.hpp"

namespace aaw::cli {
namespace {

using namespace std::chrono_literals;

// The longest a request may take: stopping the daemon waits for the one in flight.
constexpr std::chrono::milliseconds k_request_timeout = 10s;
// Rounds of a flush: enough for a long outbox (batch_size items each), never an endless loop.
constexpr int k_flush_rounds = 50;
constexpr Duration k_flush_budget = 2min;

}  // namespace

std::vector<NotificationTarget> notification_targets_or_throw(const Config& config) {
  auto targets = builtin_channels().targets(config.notify);
  for (const NotificationTarget& t : targets)
    if (t.only_if_consumer_breaks && !config.consumer.configured())
      throw CommandError{
          "notify." + t.name +
          ".only_if_consumer_breaks: set, but the config names no consumer (give consumer.path or "
          "consumer.repository_url)"};
  return targets;
}

NotifierOptions notifier_options(const Config& config) {
  NotifierOptions options;
  options.source_repo = watched_github_repo(config.repository_url, config.github.api_url);
  // Retries keep the pace of polling: a daemon polling every minute retries a webhook within
  // minutes, one polling hourly backs off to an hour.
  Duration interval = std::chrono::seconds(config.check_interval_seconds);
  options.backoff_base = std::min<Duration>(30s, interval);
  options.backoff_cap = std::min<Duration>(1h, std::max(options.backoff_base, 4 * interval));
  return options;
}

std::unique_ptr<NotificationService> NotificationService::create(const Config& config, Control& control,
                                                                 Logger& log) {
  if (builtin_channels().targets(config.notify).empty()) return nullptr;
  return std::unique_ptr<NotificationService>(new NotificationService(config, control, log));
}

NotificationService::NotificationService(const Config& config, Control& control, Logger& log)
    : m_control(control) {
  // A connection of its own: the main thread records commits on another one meanwhile.
  m_store = value_or_throw(open_state_store(StateDir(config.state_dir).database(), config.repository_url));
  m_transport = make_curl_transport();
  NotifierOptions options = notifier_options(config);
  options.clock = &m_clock;  // quick retries pause on it; stop() interrupts them
  GithubClientOptions github;
  github.api_url = config.github.api_url;
  // Read only when the API is used: a webhook alone needs no token, nor a readable token file.
  auto targets = builtin_channels().targets(config.notify);
  bool issues = std::any_of(targets.begin(), targets.end(),
                            [](const NotificationTarget& t) { return t.name == k_target_github_issue; });
  if (issues || options.source_repo) github.token = github_token(config);
  // The notifier retries on its own schedule, kept in the store: the client need not insist. A
  // request in flight is the one thing stopping waits for, so none may take long.
  github.max_attempts = 1;
  github.max_rate_limit_wait = 10s;
  github.connect_timeout = k_request_timeout / 2;
  github.total_timeout = k_request_timeout;
  m_github = make_github_client(std::move(github), *m_transport, m_clock, log);
  m_context = std::make_unique<ChannelContext>(ChannelContext{config.repository_url, *m_transport, *m_github,
                                                              log, k_request_timeout / 2, k_request_timeout});
  m_notifier = std::make_unique<Notifier>(std::move(options),
                                          builtin_channels().make_channels(config.notify, *m_context),
                                          *m_store, *m_github, log);
  m_service =
      std::make_unique<DeliveryService>(*m_notifier, *m_store, m_clock, log, [this] { m_clock.interrupt(); });
}

NotificationService::~NotificationService() { m_service->stop(); }

void NotificationService::flush() {
  m_service->flush(k_flush_rounds, k_flush_budget, [this] { return m_control.stop_requested(); });
}

}  // namespace aaw::cli
