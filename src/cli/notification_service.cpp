#include "notification_service.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "aaw/core/commit_processor.hpp"
#include "aaw/io/curl_http_transport.hpp"
#include "aaw/io/github_rest_client.hpp"
#include "aaw/io/sqlite_state_store.hpp"
#include "aaw/util/url.hpp"
#include "command_context.hpp"

namespace aaw::cli {
namespace {

using namespace std::chrono_literals;

// How often the thread looks for notifications the main thread has just queued.
constexpr Duration k_idle_check = 1s;
// The longest a request may take: stopping the daemon waits for the one in flight.
constexpr std::chrono::milliseconds k_request_timeout = 10s;
// Rounds of a flush: enough for a long outbox (batch_size items each), never an endless loop.
constexpr int k_flush_rounds = 50;
constexpr Duration k_flush_budget = 2min;

}  // namespace

NotifierOptions notifier_options(const Config& config) {
  NotifierOptions options;
  options.repository_url = config.repository_url;
  options.source_repo = watched_github_repo(config.repository_url, config.github.api_url);
  options.github_issue = config.notify.github_issue;
  options.webhook = config.notify.webhook;
  // Retries keep the pace of polling: a daemon polling every minute retries a webhook within
  // minutes, one polling hourly backs off to an hour.
  Duration interval = std::chrono::seconds(config.check_interval_seconds);
  options.backoff_base = std::min<Duration>(30s, interval);
  options.backoff_cap = std::min<Duration>(1h, std::max(options.backoff_base, 4 * interval));
  options.webhook_connect_timeout = k_request_timeout / 2;
  options.webhook_total_timeout = k_request_timeout;
  return options;
}

std::unique_ptr<NotificationService> NotificationService::create(const Config& config, Control& control,
                                                                 Logger& log) {
  if (notification_targets(config.notify).empty()) return nullptr;
  return std::unique_ptr<NotificationService>(new NotificationService(config, control, log));
}

NotificationService::NotificationService(const Config& config, Control& control, Logger& log)
    : m_control(control), m_log(log) {
  // A connection of its own: the main thread records commits on another one meanwhile.
  auto store = open_state_store(config.state_dir / "state.db", config.repository_url);
  if (!store) throw CommandError{store.error().message()};
  m_store = std::move(*store);
  m_transport = make_curl_transport();
  NotifierOptions options = notifier_options(config);
  GithubClientOptions github;
  github.api_url = config.github.api_url;
  // Read only when the API is used: a webhook alone needs no token, nor a readable token file.
  if (!options.github_issue.repo.empty() || options.source_repo) github.token = github_token(config);
  // The notifier retries on its own schedule, kept in the store: the client need not insist. A
  // request in flight is the one thing stop() waits for, so none may take long.
  github.max_attempts = 1;
  github.max_rate_limit_wait = 10s;
  github.connect_timeout = k_request_timeout / 2;
  github.total_timeout = k_request_timeout;
  m_github = make_github_client(std::move(github), *m_transport, m_clock, log);
  m_notifier = std::make_unique<Notifier>(std::move(options), *m_store, *m_github, *m_transport, log);
}

NotificationService::~NotificationService() { stop(); }

void NotificationService::start() {
  if (!m_thread.joinable()) m_thread = std::thread([this] { run(); });
}

void NotificationService::stop() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_wake.notify_all();
  if (m_thread.joinable()) m_thread.join();
}

void NotificationService::flush() {
  // Each item is tried at most once (what fails waits for its backoff), but a target that hangs
  // costs a timeout per item: the deadline keeps `--once` from outliving its purpose.
  TimePoint deadline = m_clock.now() + k_flush_budget;
  auto report = m_notifier->flush(m_clock, k_flush_rounds,
                                  [this, deadline] { return stopping() || m_clock.now() >= deadline; });
  if (!report) {
    m_log.error("{}", report.error().message());
    return;
  }
  auto counts = m_store->outbox_counts();
  if (counts && counts->pending > 0)
    m_log.info("{} notifications still pending: they are retried on the next run", counts->pending);
}

void NotificationService::run() {
  bool failing = false;
  // Only m_stopping is read here: the signal flags belong to the main thread, which stops this one.
  while (!m_stopping) {
    auto report = m_notifier->deliver_due(m_clock.now(), [this] { return m_stopping.load(); });
    if (!report) {
      // The store is busy or broken: say so once, then keep trying at the idle pace.
      if (!failing) m_log.error("Cannot deliver notifications: {}", report.error().message());
      failing = true;
    } else {
      failing = false;
      if (report->attempted() > 0) continue;  // maybe more due: a full batch was taken
    }
    TimePoint wake = m_clock.now() + k_idle_check;
    auto next = m_store->next_notification_due();
    if (next && *next) wake = std::min(wake, **next);
    m_clock.sleep_until(wake);
  }
}

void NotificationService::StoppableClock::sleep_until(TimePoint deadline) {
  std::unique_lock lock(m_service.m_mutex);
  m_service.m_wake.wait_until(lock, deadline, [this] { return m_service.m_stopping.load(); });
}

}  // namespace aaw::cli
