// Everything the watch and replay commands run on, built once from the config: the log, the
// mirror, the interpreter, the static source, the state store, the event log, the clock and the
// signal handlers, and the notification service when notify.* configures a target. Construction
// failures throw CommandError (exit 2).
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_context.hpp"
#include "cli/consumer/consumer_session.hpp"
#include "cli/watch/notification_service.hpp"
#include "core/model/config.hpp"
#include "core/ports/clock.hpp"
#include "core/ports/control.hpp"
#include "core/ports/git_mirror.hpp"
#include "core/ports/github_client.hpp"
#include "core/ports/http_transport.hpp"
#include "core/ports/signature_source.hpp"
#include "core/ports/state_store.hpp"
#include "core/report/log.hpp"
#include "core/watch/commit_processor.hpp"
#include "core/watch/event_log.hpp"
#include "core/watch/head_watch.hpp"
#include "core/watch/progress.hpp"
#include "core/watch/watcher.hpp"
#include "extract/static/static_extractor.hpp"
#include "io/posix/signal_control_posix.hpp"
#include "io/posix/system_clock.hpp"
#include "io/runtime.hpp"
#include "util/file_lock.hpp"

namespace aaw::cli {

class WatchSession {
 public:
  WatchSession(const Config& config, Runtime& runtime);
  // Logs the source's work summary (how much of a static extraction was reused).
  ~WatchSession();
  WatchSession(const WatchSession&) = delete;
  WatchSession& operator=(const WatchSession&) = delete;

  Watcher& watcher() { return *m_watcher; }
  Logger& log() { return *m_log; }

  // Start-up: once the mirror holds the remote's commits (the first poll or replay fetched, or
  // cloned them), logs an ERROR naming each monitored function found neither at the branch head,
  // nor at the start commit of a first start, nor at either end of `replayed`, nor ever recorded,
  // with the closest names. Nothing is built: the static view is asked.
  void check_functions_when_ready(std::vector<std::string> replayed = {});

  // Continuous modes: deliver notifications in the background from now on.
  void start_notifications();
  // --once: deliver what is due now before exiting.
  void flush_notifications();
  // report.dir: writes the HTML report again (after each poll, and after a replay). A failure is
  // logged as a warning; nothing happens without report.dir.
  void refresh_report();

 private:
  void open_api_polling();
  // consumer.*: every change from now on carries what it breaks there; a consumer that cannot be
  // read now is tried again after each poll.
  void open_consumer();
  void refresh_consumer();
  // The watcher's mirror_ready: the first clone's end said, the start-up function check.
  void mirror_ready();
  void check_functions();

  const Config& m_config;
  Runtime& m_runtime;
  SignalControl m_control;  // first: Python must find our handlers already installed
  SystemClock m_clock;
  std::shared_ptr<Logger> m_log;
  std::optional<FileLock> m_writer_lock;     // one writer per state_dir, for as long as the session lives
  std::optional<CloneAnnouncement> m_clone;  // a first clone, made by the first poll or replay
  std::unique_ptr<GitMirror> m_mirror;
  std::unique_ptr<SignatureSource> m_source;
  std::unique_ptr<StateStore> m_store;
  // Polling through GitHub's API (github.poll), when it applies; else polls use git ls-remote.
  std::unique_ptr<HttpTransport> m_transport;
  std::unique_ptr<GithubClient> m_github;
  std::unique_ptr<HeadWatch> m_heads;
  std::unique_ptr<EventLog> m_events;
  std::unique_ptr<Progress> m_progress;
  std::unique_ptr<ConsumerSession> m_consumer;  // before the processor, which points into it
  std::unique_ptr<CommitProcessor> m_processor;
  std::unique_ptr<Watcher> m_watcher;
  std::optional<std::vector<std::string>> m_check_pending;  // the replayed commits, when a check is due
  // Last: its thread stops before anything it shares (the log, the control) goes.
  std::unique_ptr<NotificationService> m_notifications;
};

}  // namespace aaw::cli
