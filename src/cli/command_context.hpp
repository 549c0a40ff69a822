// What every subcommand does first: read the config (warnings to stderr), set up the log, and
// open the mirror of the watched repository. Failures here print one line and exit 2.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/model/config.hpp"
#include "core/model/state_dir.hpp"
#include "core/ports/git_mirror.hpp"
#include "core/ports/signature_source.hpp"
#include "core/ports/state_store.hpp"
#include "core/report/log.hpp"
#include "io/runtime.hpp"
#include "util/file_lock.hpp"

namespace aaw::cli {

inline constexpr int k_exit_error = 2;

// Thrown by the helpers below; main() prints "aiter-api-watcher: error: <message>" and exits 2.
struct CommandError {
  std::string message;
};

// The value, or CommandError with the error's message.
template <class T>
T value_or_throw(Result<T> result) {
  if (!result) throw CommandError{result.error().message()};
  return std::move(*result);
}
inline void value_or_throw(Result<void> result) {
  if (!result) throw CommandError{result.error().message()};
}

// The config's vocabulary from the extension registries: the extractor names of
// builtin_sources() and the notify sections of builtin_channels().
ConfigSchema config_schema();

// The token in github.token_file `path`, trimmed; CommandError naming the file and why it cannot be read.
std::string read_token_file(const std::string& path);

// Reads `path`, printing each warning to stderr; throws CommandError with the reason.
Config read_config_or_throw(const std::filesystem::path& path);

// The names --extractor accepts: the source registry's.
std::vector<std::string> extractor_names();

// Applies an --extractor override (a name from extractor_names(); "" keeps the config's).
void apply_extractor(Config& config, const std::string& override_value);

// The signature source config.extractor names, on the mirror, the embedded interpreter (started
// only when the source needs it) and, for a runtime source, the work tree and the sandbox under
// state_dir. `stop_requested` (empty: never) cancels a runtime extraction's wait, build, child or
// submodule fetch. Throws CommandError when what it runs on cannot be opened.
std::unique_ptr<SignatureSource> make_source_or_throw(const Config& config, GitMirror& mirror,
                                                      Runtime& runtime, Logger& log,
                                                      std::function<bool()> stop_requested = {});

// The global --log-level and --quiet, set once by run_app before any command opens its log.
struct ConsoleSettings {
  std::string log_level;  // "": the config's log.level
  bool quiet = false;     // the console shows WARNING and worse, and no live progress line
};
void set_console_settings(ConsoleSettings settings);
const ConsoleSettings& console_settings();

// The log section of `config` with --log-level applied.
LogConfig effective_log_config(const Config& config);
// The console's own level under --quiet ("warning"), else "" (the log's).
std::string console_level();

// The log of `config`, on `console` and in its file; remembered as the process's log, whose file
// report_fatal() also writes to. `console_is_output`: the console's lines are the command's output
// (compare in text mode), which --quiet does not silence. Throws CommandError when the file cannot
// be opened.
std::shared_ptr<Logger> open_log_or_throw(const Config& config, ConsoleStream console,
                                          bool console_is_output = false);

// "aiter-api-watcher: error: <message>" on stderr, and an ERROR line in the log file when a
// command opened one: what main() does with an error that ends the process.
void report_fatal(const std::string& message);

// Opens (cloning on first use) the mirror of config.repository_url under state_dir/mirrors. A
// first clone is announced on `log`, with how long it took, as it can take minutes. Every
// operation on the remote runs in the git helper (io/git/git_helper_posix.hpp): given up after
// git.timeout_seconds of silence, killed at once when `stop_requested` (empty: never) turns true.
// With `clone_on_first_fetch` a missing mirror is cloned by its first fetch() instead of here (the
// daemon, which retries an unreachable remote).
// A first clone, said on a log: "Cloning URL into DIR (first use ...)" when made (only when the
// mirror does not exist yet and `log` is given), "Cloned URL in N s" at done() (once). A first
// clone of a large remote takes minutes with nothing else to show.
class CloneAnnouncement {
 public:
  CloneAnnouncement(const Config& config, Logger* log);
  void done();

 private:
  std::string m_url;
  std::chrono::steady_clock::time_point m_start;
  Logger* m_log = nullptr;
};

std::unique_ptr<GitMirror> open_mirror_or_throw(const Config& config, Logger* log = nullptr,
                                                std::function<bool()> stop_requested = {},
                                                bool clone_on_first_fetch = false);

// The writer's lock on config.state_dir (created when missing), held for as long as the returned
// lock lives: one writer (watch, replay) per state_dir. Throws CommandError naming the holder's
// PID when another process holds it. Queries never take it.
FileLock lock_state_dir_or_throw(const Config& config);

// The state directory of a query (history, show, status): throws CommandError saying there is
// none when it does not exist, as a query never creates it.
StateDir existing_state_dir_or_throw(const Config& config);

// A state_dir that is a file, or a state.db that is a directory: CommandError naming it.
void refuse_what_is_no_state_dir(const StateDir& state);

// The state store a query reads in `state`: opened read-only (a query writes nothing, and an
// operator may read a state_dir the service's user owns), never created; nullptr when there is
// none yet.
std::unique_ptr<StateStore> open_recorded_store(const StateDir& state, const Config& config);

// GITHUB_TOKEN as this process started with it, taken out of the environment at the first call
// (run_app makes it before anything else): no child, and no build reading /proc/<pid>/environ,
// ever sees it. "" when unset.
const std::string& environment_token();

// GITHUB_TOKEN, else the contents of github.token_file, else ""; throws CommandError when the
// token file cannot be read. Never logged.
std::string github_token(const Config& config);

// The token for https remotes: GITHUB_TOKEN, else github.token_file; sent only when the remote is
// on GitHub's host or on the host of github.api_url. Never logged.
std::string https_token_for(const Config& config);

}  // namespace aaw::cli
