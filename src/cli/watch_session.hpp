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

#include "aaw/core/clock.hpp"
#include "aaw/core/commit_processor.hpp"
#include "aaw/core/config.hpp"
#include "aaw/core/control.hpp"
#include "aaw/core/event_log.hpp"
#include "aaw/core/git_mirror.hpp"
#include "aaw/core/github_client.hpp"
#include "aaw/core/head_watch.hpp"
#include "aaw/core/http_transport.hpp"
#include "aaw/core/log.hpp"
#include "aaw/core/progress.hpp"
#include "aaw/core/signature_source.hpp"
#include "aaw/core/state_store.hpp"
#include "aaw/core/watcher.hpp"
#include "aaw/extract/static_extractor.hpp"
#include "aaw/io/runtime.hpp"
#include "aaw/io/signal_control.hpp"
#include "aaw/io/system_clock.hpp"
#include "aaw/util/file_lock.hpp"
#include "command_context.hpp"
#include "consumer_session.hpp"
#include "notification_service.hpp"

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
