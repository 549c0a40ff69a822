#include "core/report/log.hpp"

#include <spdlog/details/os.h>
#include <spdlog/formatter.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/dist_sink.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <optional>
#include <utility>

namespace aaw {
namespace {

// The stdio buffer of the log file and of stdout: a replay logs a line per function per commit
// (millions in a long one), and with stdio's default of a block (4 KiB) each sink made a write(2)
// every few dozen lines. What the buffer holds still reaches the file at every flush (each
// line, or once per LogBatch), so only the number of writes changes.
constexpr std::size_t k_stream_buffer = std::size_t{256} << 10;

// The original tool's line, "2025-04-26 17:41:54,547 - aiter_api_watcher - INFO - message", in
// local time, with Python logging's level names (spdlog's own are lower case). Written by hand
// rather than by spdlog's pattern_formatter: a replay logs a line per function per commit, millions
// of them, and here the date is formatted once per second, not once per line.
class OriginalLineFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    using std::chrono::duration_cast;
    auto since_epoch = msg.time.time_since_epoch();
    auto second = duration_cast<std::chrono::seconds>(since_epoch);
    if (m_date_size == 0 || second != m_second) {
      std::tm local = spdlog::details::os::localtime(static_cast<std::time_t>(second.count()));
      m_date_size = std::strftime(m_date, sizeof m_date, "%Y-%m-%d %H:%M:%S,", &local);
      m_second = second;
    }
    auto millis = duration_cast<std::chrono::milliseconds>(since_epoch - second).count();
    const char digits[3] = {static_cast<char>('0' + millis / 100), static_cast<char>('0' + millis / 10 % 10),
                            static_cast<char>('0' + millis % 10)};
    dest.append(m_date, m_date + m_date_size);
    dest.append(digits, digits + 3);
    append(dest, " - aiter_api_watcher - ");
    append(dest, level_name(msg.level));
    append(dest, " - ");
    dest.append(msg.payload.begin(), msg.payload.end());
    append(dest, "\n");
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<OriginalLineFormatter>();
  }

 private:
  static void append(spdlog::memory_buf_t& dest, std::string_view text) {
    dest.append(text.data(), text.data() + text.size());
  }
  static std::string_view level_name(spdlog::level::level_enum level) {
    switch (level) {
      case spdlog::level::trace:
      case spdlog::level::debug:
        return "DEBUG";
      case spdlog::level::info:
        return "INFO";
      case spdlog::level::warn:
        return "WARNING";
      case spdlog::level::err:
        return "ERROR";
      case spdlog::level::critical:
        return "CRITICAL";
      default:
        return "NOTSET";
    }
  }

  std::chrono::seconds m_second{0};
  char m_date[32] = {};  // "2025-04-26 17:41:54," of m_second
  std::size_t m_date_size = 0;
};

std::unique_ptr<spdlog::formatter> make_formatter() { return std::make_unique<OriginalLineFormatter>(); }

constexpr std::pair<std::string_view, spdlog::level::level_enum> k_levels[] = {
    {"trace", spdlog::level::trace},  {"debug", spdlog::level::debug}, {"info", spdlog::level::info},
    {"warning", spdlog::level::warn}, {"error", spdlog::level::err},
};

spdlog::level::level_enum parse_level(const std::string& level) {
  for (const auto& [name, value] : k_levels)
    if (name == level) return value;
  return spdlog::level::info;
}

// One console stream, written through stdio's buffer and flushed when the logger says so (after
// every line, but once for a LogBatch): spdlog's own stdout sink flushes each line itself, a
// write(2) per line even inside a batch.
class StreamSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit StreamSink(std::FILE* file) : m_file(file) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    std::fwrite(formatted.data(), 1, formatted.size(), m_file);
  }
  void flush_() override { std::fflush(m_file); }

 private:
  std::FILE* m_file;
};

// The console of a command whose output is its log lines: ERROR and worse go to stderr, where
// scripts and people look for failures, the rest to stdout.
class SplitConsoleSink final : public spdlog::sinks::sink {
 public:
  void log(const spdlog::details::log_msg& msg) override {
    if (msg.level >= spdlog::level::err) {
      m_err.log(msg);
    } else {
      m_out.log(msg);
    }
  }
  void flush() override {
    m_out.flush();
    m_err.flush();
  }
  void set_pattern(const std::string& pattern) override {
    m_out.set_pattern(pattern);
    m_err.set_pattern(pattern);
  }
  void set_formatter(std::unique_ptr<spdlog::formatter> formatter) override {
    m_err.set_formatter(formatter->clone());
    m_out.set_formatter(std::move(formatter));
  }

 private:
  StreamSink m_out{stdout};
  StreamSink m_err{stderr};
};

// Gives stdout the larger buffer once, before anything is written to it (setvbuf must come first).
void buffer_stdout() {
  static std::once_flag once;
  std::call_once(once, [] { std::setvbuf(stdout, nullptr, _IOFBF, k_stream_buffer); });
}

spdlog::sink_ptr console_sink(ConsoleStream console) {
  switch (console) {
    case ConsoleStream::stdout_stream:
      buffer_stdout();
      return std::make_shared<SplitConsoleSink>();
    case ConsoleStream::stderr_stream:
      return std::make_shared<StreamSink>(stderr);
    case ConsoleStream::none:
      break;
  }
  return nullptr;
}

// The log file behind a lock of its own: SIGHUP swaps the rotating file inside it (set_sinks takes
// the lock every write holds), so the notification thread, which logs at any moment, never writes
// through a file that is being replaced. The logger's own list of sinks never changes after
// make_logger: spdlog walks it without a lock.
class ReopenableFileSink final : public spdlog::sinks::dist_sink_mt {};

Result<spdlog::sink_ptr> open_rotating_file(const LogConfig& config) {
  try {
    auto max_bytes = static_cast<size_t>(config.max_size_mb) * 1024 * 1024;
    // max_files counts the rotated files kept beside the live one, as Python's backupCount.
    // Single-threaded: only ever written under the ReopenableFileSink's lock.
    spdlog::file_event_handlers handlers;
    handlers.after_open = [](const spdlog::filename_t&, std::FILE* file) {
      std::setvbuf(file, nullptr, _IOFBF, k_stream_buffer);
    };
    spdlog::sink_ptr file = std::make_shared<spdlog::sinks::rotating_file_sink_st>(
        config.file, max_bytes, static_cast<size_t>(config.max_files), false, handlers);
    file->set_formatter(make_formatter());
    return file;
  } catch (const spdlog::spdlog_ex& e) {
    return Error(ErrorCode::io, "cannot open log file '" + config.file + "': " + e.what());
  }
}

}  // namespace

Result<std::shared_ptr<Logger>> make_logger(const LogConfig& config, ConsoleStream console,
                                            const std::string& console_level) {
  const spdlog::level::level_enum file_level = parse_level(config.level);
  const spdlog::level::level_enum shown = console_level.empty() ? file_level : parse_level(console_level);
  std::vector<spdlog::sink_ptr> sinks;
  if (auto sink = console_sink(console)) {
    sink->set_level(shown);
    sinks.push_back(sink);
  }
  if (!config.file.empty()) {
    auto file = open_rotating_file(config);
    if (!file) return file.error();
    auto reopenable = std::make_shared<ReopenableFileSink>();
    reopenable->set_sinks({*file});
    reopenable->set_level(file_level);
    sinks.push_back(std::move(reopenable));
  }
  auto logger = std::make_shared<Logger>("aiter_api_watcher", sinks.begin(), sinks.end());
  logger->set_formatter(make_formatter());
  logger->set_level(std::min(file_level, shown));
  // The log is how operators follow a daemon: every line reaches the file at once.
  logger->flush_on(spdlog::level::trace);
  return logger;
}

Result<void> reopen_log_file(Logger& log, const LogConfig& config) {
  if (config.file.empty()) return {};
  auto file = open_rotating_file(config);
  if (!file) return file.error();
  for (const spdlog::sink_ptr& sink : log.sinks()) {
    if (auto reopenable = std::dynamic_pointer_cast<ReopenableFileSink>(sink)) reopenable->set_sinks({*file});
  }
  return {};
}

void write_to_file_only(Logger& log, LogLevel level, std::string_view message) {
  auto spd_level = level == LogLevel::critical ? spdlog::level::critical : spdlog::level::err;
  spdlog::details::log_msg msg(log.name(), spd_level, spdlog::string_view_t(message.data(), message.size()));
  for (const spdlog::sink_ptr& sink : log.sinks()) {
    if (!std::dynamic_pointer_cast<ReopenableFileSink>(sink)) continue;  // the log file
    sink->log(msg);
    sink->flush();
  }
}

void log_detail(Logger& log, std::string_view message) {
  std::optional<spdlog::details::log_msg> msg;
  for (const spdlog::sink_ptr& sink : log.sinks()) {
    const bool file = dynamic_cast<ReopenableFileSink*>(sink.get()) != nullptr;
    if (!sink->should_log(file ? spdlog::level::info : spdlog::level::debug)) continue;
    if (!msg)
      msg.emplace(log.name(), spdlog::level::info, spdlog::string_view_t(message.data(), message.size()));
    sink->log(*msg);
    if (spdlog::level::info >= log.flush_level()) sink->flush();
  }
}

LogBatch::LogBatch(Logger& log) : m_log(log), m_flush_level(static_cast<int>(log.flush_level())) {
  if (m_flush_level < spdlog::level::warn) m_log.flush_on(spdlog::level::warn);
}

LogBatch::~LogBatch() {
  m_log.flush();
  m_log.flush_on(static_cast<spdlog::level::level_enum>(m_flush_level));
}

std::shared_ptr<Logger> null_logger() {
  return std::make_shared<Logger>("aiter_api_watcher", std::make_shared<spdlog::sinks::null_sink_mt>());
}

}  // namespace aaw
