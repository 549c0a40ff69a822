// The operator's log: the original tool's line format on the console and in a size-rotated file,
//   2025-04-26 17:41:54,547 - aiter_api_watcher - INFO - Checking commit <sha>
// Level names are Python logging's (DEBUG, INFO, WARNING, ERROR), as users grep for them.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/model/config.hpp"
#include "util/result.hpp"

namespace spdlog {
class logger;
}

namespace aaw {

using Logger = spdlog::logger;

// Where log lines go on the console. stdout_stream: ERROR and CRITICAL go to stderr, everything
// else to stdout (the log is the output of watch, replay and compare in text mode).
enum class ConsoleStream { stdout_stream, stderr_stream, none };

// A logger named "aiter_api_watcher" writing to `console` and to the rotating file of `config`
// (`file` empty: no file). The file takes config.level and up; the console `console_level` and up
// ("" : config.level too; --quiet makes it "warning"). io when the log file cannot be opened
// (naming it and why).
Result<std::shared_ptr<Logger>> make_logger(const LogConfig& config, ConsoleStream console,
                                            const std::string& console_level = "");

// A line of routine detail, one per commit or per function ("Checking commit X", "No API change
// for F"): an INFO line in the log file, as the original tool wrote it, but on the console only
// when it shows DEBUG, as a replay writes millions of them and they would bury the progress line,
// the changes and the summary of the run.
void log_detail(Logger& log, std::string_view message);

// Closes and reopens the log file of a logger made by make_logger (after logrotate moved it, on
// SIGHUP); io when it cannot be reopened, in which case the old file is kept.
Result<void> reopen_log_file(Logger& log, const LogConfig& config);

enum class LogLevel { error, critical };

// Writes one line to the log file of a logger made by make_logger, not to its console: for a fatal
// error already printed on stderr as "aiter-api-watcher: error: ...". Nothing when it has no file.
void write_to_file_only(Logger& log, LogLevel level, std::string_view message);

// While one lives, the lines of `log` are flushed together when it ends (WARNING and worse still
// at once) rather than line by line: the lines of one commit (a "No API change" line for every
// function) cost a few writes, not one or two per line.
class LogBatch {
 public:
  explicit LogBatch(Logger& log);
  ~LogBatch();
  LogBatch(const LogBatch&) = delete;
  LogBatch& operator=(const LogBatch&) = delete;

 private:
  Logger& m_log;
  int m_flush_level;  // the logger's own, restored at the end
};

// A logger that writes nowhere, for code paths and tests that need one.
std::shared_ptr<Logger> null_logger();

}  // namespace aaw
