#include "watch_session.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include "command_context.hpp"

namespace aaw::cli {
namespace {

template <class T>
T value_or_throw(Result<T> result) {
  if (!result) throw CommandError{result.error().message()};
  return std::move(*result);
}

}  // namespace

WatchSession::WatchSession(const Config& config, Runtime& runtime)
    : m_config(config), m_clock(m_control.wake_fd()) {
  m_log = open_log_or_throw(config, ConsoleStream::stdout_stream);
  m_mirror = open_mirror_or_throw(config);
  m_extractor = std::make_unique<StaticExtractor>(runtime.python());
  m_source = std::make_unique<IncrementalStaticSource>(*m_mirror, *m_extractor);
  m_store = value_or_throw(StateStore::open(config.state_dir / "state.db", config.repository_url));
  m_events = std::make_unique<EventLog>(value_or_throw(EventLog::open(config.state_dir / "events.jsonl")));
  m_progress = std::make_unique<Progress>(m_clock, *m_log, ::isatty(STDERR_FILENO) ? stderr : nullptr);
  m_processor = std::make_unique<CommitProcessor>(config.functions_to_monitor, *m_mirror, *m_source, *m_store,
                                                  *m_events, *m_log, m_clock);
  auto reopen = [this] {
    if (auto reopened = reopen_log_file(*m_log, m_config.log); !reopened) m_log->error("{}", reopened.error().message());
  };
  m_watcher = std::make_unique<Watcher>(
      config, WatcherDeps{*m_mirror, *m_processor, *m_store, *m_log, m_clock, m_control, *m_progress, reopen});
}

WatchSession::~WatchSession() {
  m_log->info("Static extraction: {} function states resolved in Python, {} reused unchanged",
              m_source->resolved_count(), m_source->reused_count());
}

}  // namespace aaw::cli
