#include "cli/command_context.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "cli/sandbox_record.hpp"
#include "core/model/state_dir.hpp"
#include "extract/runtime/runtime_source.hpp"
#include "extract/source_registry.hpp"
#include "io/git/libgit2_mirror.hpp"
#include "io/git/libgit2_work_tree.hpp"
#include "io/posix/parse_ahead_posix.hpp"
#include "io/posix/process_hardening_posix.hpp"
#include "io/python/embedded_python.hpp"
#include "io/sandbox/sandbox_posix.hpp"
#include "io/sqlite/sqlite_state_store.hpp"
#include "notify/channel_registry.hpp"
#include "util/files.hpp"
#include "util/strings.hpp"
#include "util/url.hpp"

namespace aaw::cli {
namespace {

// The log of this process, once a command opened it: fatal errors reach its file too. Held until
// exit: the error that ends a command unwinds the objects that owned it first.
std::shared_ptr<Logger>& process_log() {
  static std::shared_ptr<Logger> log;
  return log;
}

}  // namespace

std::string read_token_file(const std::string& path) {
  errno = 0;
  auto text = read_file(path);
  if (!text)
    throw CommandError{"cannot read github.token_file '" + path + "': " + std::strerror(errno ? errno : EIO)};
  return trim(*text);
}

ConfigSchema config_schema() { return {builtin_sources().names(), builtin_channels().config_sections()}; }

Config read_config_or_throw(const std::filesystem::path& path) {
  auto loaded = load_config(path, config_schema());
  if (!loaded) throw CommandError{loaded.error().message()};
  for (const std::string& warning : loaded->warnings)
    std::cerr << "aiter-api-watcher: warning: " << warning << "\n";
  return std::move(loaded->config);
}

std::vector<std::string> extractor_names() { return builtin_sources().names(); }

void apply_extractor(Config& config, const std::string& override_value) {
  if (override_value.empty()) return;
  if (!builtin_sources().find(override_value))
    throw CommandError{"--extractor: expected one of " + join(extractor_names()) + ", got '" +
                       override_value + "'"};
  config.extractor = override_value;
}

namespace {

// The sandbox of the config, with what builds must not read hidden from them: the token file, the
// state directory (store, events, the mirror's config) and the config file. Which one it is and how
// it confines is logged and kept in state_dir for `status`.
Result<std::unique_ptr<Sandbox>> make_recorded_sandbox(const Config& config, const StateDir& state,
                                                       Logger& log) {
  HiddenPaths hidden;
  if (!config.github.token_file.empty())
    hidden.secrets.push_back(std::filesystem::absolute(config.github.token_file));
  hidden.private_paths.push_back(std::filesystem::absolute(state.root()));
  if (!config.file.empty()) hidden.private_paths.push_back(config.file);
  auto sandbox = make_sandbox(config.sandbox, std::filesystem::absolute(state.sandbox()), log, hidden);
  if (!sandbox) return sandbox;
  log.info("Sandbox: {} ({})", (*sandbox)->kind(), (*sandbox)->confinement());
  record_sandbox(state, **sandbox, log);
  return sandbox;
}

}  // namespace

std::unique_ptr<SignatureSource> make_source_or_throw(const Config& config, GitMirror& mirror,
                                                      Runtime& runtime, Logger& log,
                                                      std::function<bool()> stop_requested) {
  StateDir state(config.state_dir);
  SourceDeps deps{mirror,
                  log,
                  state,
                  [&runtime]() -> PythonHost& { return runtime.python(); },
                  // The work tree's origin is the redacted URL: it only resolves relative submodule
                  // URLs, and state_dir must hold no credentials.
                  [&, stop_requested](Sandbox& sandbox) {
                    WorkTreeOptions options;
                    options.stop_requested = stop_requested;
                    options.sandbox = &sandbox;  // checkouts confined as builds are
                    options.program = RuntimeSourceOptions::this_program();
                    options.timeout = std::chrono::seconds(config.build.timeout_seconds);
                    return open_work_tree(state.work_tree(), mirror.path(), mirror.display_url(), log,
                                          std::move(options));
                  },
                  [&] { return make_recorded_sandbox(config, state, log); },
                  embedded_python_executable(),
                  embedded_python_version(),
                  stop_requested,
                  {}};
  if (config.static_extraction.parse_ahead && parse_ahead_pays()) {
    deps.parse_ahead = [&mirror] {
      return make_parse_ahead(RuntimeSourceOptions::this_program(), mirror.path());
    };
  }
  return value_or_throw(builtin_sources().make(config, deps));
}

ConsoleSettings& settings_of_process() {
  static ConsoleSettings settings;
  return settings;
}

void set_console_settings(ConsoleSettings settings) { settings_of_process() = std::move(settings); }

const ConsoleSettings& console_settings() { return settings_of_process(); }

LogConfig effective_log_config(const Config& config) {
  LogConfig log = config.log;
  if (!console_settings().log_level.empty()) log.level = console_settings().log_level;
  return log;
}

std::string console_level() { return console_settings().quiet ? "warning" : ""; }

std::shared_ptr<Logger> open_log_or_throw(const Config& config, ConsoleStream console,
                                          bool console_is_output) {
  auto log = make_logger(effective_log_config(config), console, console_is_output ? "" : console_level());
  if (!log) throw CommandError{log.error().message()};
  process_log() = *log;
  return *log;
}

void report_fatal(const std::string& message) {
  std::cerr << "aiter-api-watcher: error: " << message << "\n";
  if (const auto& log = process_log())
    write_to_file_only(*log, LogLevel::error, "Exiting on error: " + message);
}

FileLock lock_state_dir_or_throw(const Config& config) {
  StateDir state(config.state_dir);
  refuse_what_is_no_state_dir(state);
  std::error_code ec;
  std::filesystem::create_directories(state.root(), ec);
  if (ec) throw CommandError{"cannot create state_dir '" + state.root().string() + "': " + ec.message()};
  auto lock = value_or_throw(FileLock::try_acquire(state.writer_lock()));
  if (!lock) {
    std::string holder = trim(read_file(state.writer_lock()).value_or(""));
    throw CommandError{"state_dir '" + state.root().string() + "' is in use by another aiter-api-watcher (" +
                       (holder.empty() ? std::string("PID unknown") : "PID " + holder) +
                       "): one writer per state_dir; stop it, or give this run another state_dir"};
  }
  value_or_throw(lock->write(std::to_string(::getpid()) + "\n"));
  return std::move(*lock);
}

StateDir existing_state_dir_or_throw(const Config& config) {
  StateDir state(config.state_dir);
  refuse_what_is_no_state_dir(state);
  if (!std::filesystem::is_directory(state.root()))
    throw CommandError{"state_dir '" + state.root().string() +
                       "' does not exist: nothing has been recorded with this config yet (watch or replay "
                       "creates it)"};
  return state;
}

void refuse_what_is_no_state_dir(const StateDir& state) {
  std::error_code ec;
  if (std::filesystem::exists(state.root(), ec) && !std::filesystem::is_directory(state.root(), ec))
    throw CommandError{"state_dir '" + state.root().string() +
                       "' is not a directory: give a directory's path"};
  if (std::filesystem::is_directory(state.database(), ec))
    throw CommandError{"state store '" + state.database().string() +
                       "' is a directory, not a SQLite file: move it away and run again"};
}

std::unique_ptr<StateStore> open_recorded_store(const StateDir& state, const Config& config) {
  refuse_what_is_no_state_dir(state);
  if (!std::filesystem::exists(state.database())) return nullptr;
  return value_or_throw(open_state_store_read_only(state.database(), config.repository_url));
}

const std::string& environment_token() {
  static const std::string token = take_environment_secret("GITHUB_TOKEN");
  return token;
}

std::string github_token(const Config& config) {
  if (const std::string& token = environment_token(); !token.empty()) return token;
  if (!config.github.token_file.empty()) return read_token_file(config.github.token_file);
  return "";
}

std::string https_token_for(const Config& config) {
  std::string host = url_host(config.repository_url);
  if (host.empty() || (host != "github.com" && host != url_host(config.github.api_url))) return "";
  return github_token(config);
}

namespace {

// Why a local path cannot be a git repository ("" when it may be one): what is there is read in
// place, so a wrong path never becomes right by waiting.
std::string not_a_repository(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return "no such directory: a local repository is read where it is, check the path";
  if (!std::filesystem::is_directory(path, ec)) return "not a directory: give the repository's directory";
  bool bare = std::filesystem::is_regular_file(path / "HEAD", ec) &&
              std::filesystem::is_directory(path / "objects", ec);
  if (!bare && !std::filesystem::exists(path / ".git", ec))
    return "not a git repository (no .git, nor HEAD and objects/ of a bare one)";
  return "";
}

}  // namespace

std::unique_ptr<GitMirror> open_mirror_or_throw(const Config& config, Logger* log,
                                                std::function<bool()> stop_requested,
                                                bool clone_on_first_fetch) {
  // A local repository that is not there is the config's mistake, not an outage for the daemon to
  // wait out; said before anything announces a clone. A mirror made earlier still serves the
  // commands that only read it.
  if (auto local = local_repository_path(config.repository_url);
      local &&
      (clone_on_first_fetch || !mirror_exists(config.repository_url, StateDir(config.state_dir).mirrors()))) {
    if (std::string why = not_a_repository(*local); !why.empty())
      throw CommandError{"repository_url '" + *local + "': " + why};
  }
  MirrorOptions options;
  options.https_token = https_token_for(config);
  // Every clone, fetch and ls-remote in a child process of this binary: abandoned when the remote
  // goes silent, killed at once on SIGTERM.
  options.network_helper = RuntimeSourceOptions::this_program();
  options.stall_timeout = std::chrono::seconds(config.git.timeout_seconds);
  options.stop_requested = std::move(stop_requested);
  options.clone_on_first_fetch = clone_on_first_fetch;
  // A clone deferred to the first fetch is announced by the caller, which sees it end.
  CloneAnnouncement clone(config, clone_on_first_fetch ? nullptr : log);
  auto mirror = open_mirror(config.repository_url, StateDir(config.state_dir).mirrors(), options);
  if (!mirror) throw CommandError{mirror.error().message()};
  clone.done();
  return std::move(*mirror);
}

CloneAnnouncement::CloneAnnouncement(const Config& config, Logger* log)
    : m_url(redact_url(config.repository_url)), m_start(std::chrono::steady_clock::now()) {
  const StateDir state(config.state_dir);
  if (!log || mirror_exists(config.repository_url, state.mirrors())) return;
  m_log = log;
  m_log->info("Cloning {} into {} (first use: the whole history is copied once, which can take minutes)",
              m_url, state.mirrors().string());
}

void CloneAnnouncement::done() {
  if (!m_log) return;
  m_log->info("Cloned {} in {:.1f} s", m_url,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count());
  m_log = nullptr;
}

}  // namespace aaw::cli
