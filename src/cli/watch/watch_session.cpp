#include "cli/watch/watch_session.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <ctime>

#include "cli/command_context.hpp"
#include "cli/query/report_command.hpp"
#include "cli/watch/startup_lookup.hpp"
#include "core/model/state_dir.hpp"
#include "io/http/curl_http_transport.hpp"
#include "io/http/github_rest_client.hpp"
#include "io/sqlite/sqlite_state_store.hpp"
#include "notify/channel_registry.hpp"

namespace aaw::cli {
namespace {

// events.jsonl resumes after the last event id in it, which the state store numbers. A store that
// knows fewer events than the file holds was replaced (deleted, restored from a backup): its new
// ids would be skipped as already written, so the old file is set aside and a new one begun.
EventLog open_event_log(const std::filesystem::path& path, StateStore& store, Logger& log) {
  EventLog events = value_or_throw(EventLog::open(path));
  auto recorded = value_or_throw(store.events_after(0));
  std::int64_t known = recorded.empty() ? 0 : recorded.back().id;
  if (events.last_id() <= known) return events;
  auto kept = path.string() + "." + std::to_string(std::time(nullptr)) + ".old";
  std::error_code ec;
  std::filesystem::rename(path, kept, ec);
  if (ec) throw CommandError{"cannot set aside '" + path.string() + "': " + ec.message()};
  log.warn(
      "{} holds events up to {} but the state store only knows {}: the store was replaced; "
      "the old events are kept in {}",
      path.string(), events.last_id(), known, kept);
  return value_or_throw(EventLog::open(path));
}

}  // namespace

WatchSession::WatchSession(const Config& config, Runtime& runtime)
    : m_config(config), m_runtime(runtime), m_clock(m_control.wake_fd()) {
  m_log = open_log_or_throw(config, ConsoleStream::stdout_stream);
  // The config's own mistakes first, before anything reaches the repository.
  std::vector<NotificationTarget> targets = notification_targets_or_throw(config);
  m_writer_lock = lock_state_dir_or_throw(config);
  // Not cloned here: a remote that is down at the first start is retried by the watcher like any
  // later outage (replay's first fetch clones it too).
  m_mirror = open_mirror_or_throw(
      config, m_log.get(), [this] { return m_control.stop_requested(); }, true);
  m_source =
      make_source_or_throw(config, *m_mirror, runtime, *m_log, [this] { return m_control.stop_requested(); });
  m_store = value_or_throw(open_state_store(StateDir(config.state_dir).database(), config.repository_url));
  // Announced once the repository is known to be there and the store to be this repository's.
  m_clone.emplace(config, m_log.get());
  open_api_polling();
  m_events =
      std::make_unique<EventLog>(open_event_log(StateDir(config.state_dir).events(), *m_store, *m_log));
  const bool live = ::isatty(STDERR_FILENO) && !console_settings().quiet;
  m_progress = std::make_unique<Progress>(m_clock, *m_log, live ? stderr : nullptr);
  m_processor = std::make_unique<CommitProcessor>(config.functions_to_monitor, *m_mirror, *m_source, *m_store,
                                                  *m_events, *m_log, m_clock, std::move(targets));
  open_consumer();
  auto reopen = [this] {
    if (auto reopened = reopen_log_file(*m_log, m_config.log); !reopened)
      m_log->error("{}", reopened.error().message());
  };
  m_watcher =
      std::make_unique<Watcher>(config, WatcherDeps{*m_mirror, *m_processor, *m_store, *m_log, m_clock,
                                                    m_control, *m_progress, reopen, m_heads.get(),
                                                    [this] {
                                                      refresh_consumer();
                                                      refresh_report();
                                                    },
                                                    [this] { mirror_ready(); }});
  m_notifications = NotificationService::create(config, m_control, *m_log);
}

void WatchSession::open_consumer() {
  if (!m_config.consumer.configured()) return;
  auto consumer = ConsumerSession::open(m_config, m_runtime, *m_log);
  if (!consumer) {
    m_log->error(
        "Cannot read the consumer: {}; changes are recorded without what they break there until it "
        "can be read (tried again after each poll)",
        consumer.error().message());
    return;
  }
  m_consumer = std::move(*consumer);
  m_processor->use_consumer(&m_consumer->assessor());
}

void WatchSession::refresh_consumer() {
  if (!m_consumer) return open_consumer();
  if (auto refreshed = m_consumer->refresh(); !refreshed)
    m_log->warn("Cannot rescan the consumer: {}; its last scan stays in use", refreshed.error().message());
}

void WatchSession::open_api_polling() {
  std::string token = github_token(m_config);
  auto repo = value_or_throw(api_poll_repo(m_config, !token.empty()));
  if (!repo) return;
  m_transport = make_curl_transport();
  GithubClientOptions options;
  options.api_url = m_config.github.api_url;
  options.token = std::move(token);
  // A poll that cannot ask the API asks git instead, so the client need not insist or wait.
  options.max_attempts = 2;
  options.max_rate_limit_wait = std::chrono::seconds(0);
  m_github = make_github_client(std::move(options), *m_transport, m_clock, *m_log);
  m_heads = std::make_unique<GithubHeadWatch>(*repo, *m_github, *m_mirror, *m_store, *m_log);
  m_log->info("Polling {} through the GitHub API at {}", *repo, m_config.github.api_url);
}

void WatchSession::check_functions_when_ready(std::vector<std::string> replayed) {
  m_check_pending = std::move(replayed);
}

void WatchSession::mirror_ready() {
  m_clone->done();
  check_functions();
}

void WatchSession::check_functions() {
  if (!m_check_pending) return;
  const std::vector<std::string> replayed = std::move(*m_check_pending);
  m_check_pending.reset();
  std::vector<NamedCommit> commits;
  auto add = [&](const std::string& label, const std::string& revision) {
    if (auto commit = named_commit(*m_mirror, label, revision)) commits.push_back(*commit);
  };
  add("branch '" + m_config.branch + "'", m_config.branch);
  auto line = m_store->line_head();
  if (line && !*line) {
    if (!m_config.start_commit.empty())
      add("start_commit '" + m_config.start_commit + "'", m_config.start_commit);
    else if (!m_config.last_checked_commit.empty())
      add("last_checked_commit '" + m_config.last_checked_commit + "'", m_config.last_checked_commit);
  }
  // The ends of a replay: a function found in neither is found in none worth a lookup each.
  if (!replayed.empty()) add("replayed commit '" + replayed.front() + "'", replayed.front());
  if (replayed.size() > 1) add("replayed commit '" + replayed.back() + "'", replayed.back());
  log_unfound_functions(m_config, *m_mirror, m_runtime, *m_store, commits, *m_log);
}

// A failure to write the page never stops the daemon.
void WatchSession::refresh_report() {
  if (m_config.report.dir.empty()) return;
  auto page = publish_report(*m_store, m_config, m_config.report.dir, m_runtime, m_consumer.get());
  if (!page)
    m_log->warn("Cannot write the report to {}: {}", m_config.report.dir.string(), page.error().message());
}

void WatchSession::start_notifications() {
  if (m_notifications) m_notifications->start();
}

void WatchSession::flush_notifications() {
  if (m_notifications) m_notifications->flush();
}

WatchSession::~WatchSession() {
  if (std::string summary = m_source->work_summary(); !summary.empty()) m_log->info("{}", summary);
  if (std::string costs = m_source->cost_summary(); !costs.empty()) m_log->info("{}", costs);
}

}  // namespace aaw::cli
