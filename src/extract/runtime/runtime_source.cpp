// RuntimeSource: checkout -> venv -> build -> extraction child -> states. Everything untrusted
// (the commit's build, the import of the package) runs through the Sandbox; this file only
// decides what to run, when a build can be skipped, and how to read what came back.
#include "extract/runtime/runtime_source.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>
#include <thread>
#include <utility>

#include "extract/source_registry.hpp"
#include "util/file_lock.hpp"
#include "util/files.hpp"
#include "util/strings.hpp"

namespace aaw {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* k_python_placeholder = "{python}";
constexpr std::size_t k_extract_tail_bytes = 4000;
// Creating a venv without pip takes well under a second; this only bounds a wedged interpreter.
constexpr std::chrono::seconds k_venv_timeout{300};
// Between two tries of a held runtime.lock: a stop request is seen this quickly.
constexpr std::chrono::milliseconds k_lock_poll{100};
Error stop_error(const std::string& what) { return Error(ErrorCode::cancelled, what + ": stop requested"); }

std::chrono::milliseconds since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
}

// "a/b/c.py" is under "a/b" and "a/b/" and "./a", not under "a/bc".
bool is_under(const std::string& path, std::string prefix) {
  while (prefix.rfind("./", 0) == 0) prefix.erase(0, 2);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (prefix.empty() || prefix == ".") return true;
  return path == prefix || (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
                            path[prefix.size()] == '/');
}

std::vector<SignatureState> all_failed(std::size_t count, Status status, const std::string& detail) {
  return std::vector<SignatureState>(count, SignatureState::failed(status, detail));
}

std::string with_tail(std::string what, const fs::path& log_file, std::size_t bytes) {
  std::string tail = trim(log_tail(log_file, bytes));
  if (!tail.empty()) what += "; log " + log_file.string() + " ends with:\n" + tail;
  return what;
}

// One line, as it is repeated for every function: the reason, the crash Python reported when it
// did ("Fatal Python error: Segmentation fault", from faulthandler), and where the whole log is.
std::string child_failure(const std::string& reason, const fs::path& log_file) {
  std::istringstream tail(log_tail(log_file, k_extract_tail_bytes));
  std::string what = "extraction child " + reason;
  for (std::string line; std::getline(tail, line);) {
    if (line.rfind("Fatal Python error: ", 0) == 0) {
      what += ": " + trim(line);
      break;
    }
  }
  return what + " (log: " + log_file.string() + ")";
}

// An exclusive flock on state_dir/runtime.lock for one extraction: a `show` run beside the daemon
// must not move the work tree under the daemon's build. Polled rather than blocking, so that a stop
// request ends the wait (the other process may build for an hour).
Result<FileLock> lock_runtime(const fs::path& file, const std::function<bool()>& stop, Logger& log) {
  for (bool waiting = false;; waiting = true) {
    auto lock = FileLock::try_acquire(file);
    if (!lock) return lock.error();
    if (*lock) return std::move(**lock);
    if (stop && stop()) return stop_error("waiting for '" + file.string() + "'");
    if (!waiting) log.info("Waiting for another process using {}", file.parent_path().string());
    std::this_thread::sleep_for(k_lock_poll);
  }
}

// build.env as last_build.json records it: what reaches the build. A secret-looking entry never
// does (the sandbox drops it), so it cannot change the build, and its value must never be written
// to a file: it is left out.
Json recorded_env(const std::map<std::string, std::string>& env) {
  Json out = Json::object();
  for (const auto& [name, value] : env)
    if (!is_secret_name(name)) out[name] = value;
  return out;
}

Json request_json(const fs::path& work_tree, const fs::path& venv,
                  const std::vector<MonitoredFunction>& functions,
                  const std::optional<std::vector<std::string>>& source_roots) {
  Json list = Json::array();
  for (const MonitoredFunction& f : functions)
    list.push_back({{"import_statement", f.import_statement}, {"function_path", f.function_path}});
  Json request = {{"work_tree", work_tree.string()}, {"venv", venv.string()}, {"functions", std::move(list)}};
  if (source_roots) request["source_roots"] = *source_roots;
  return request;
}

// The child's result file: {"states": [STATE, ...]}, one per function. The reason when it is not.
Result<std::vector<SignatureState>> read_result(const fs::path& file, std::size_t count) {
  auto text = read_regular_file(file);  // in the sandbox: whatever the import left there
  if (!text) return Error(ErrorCode::io, "wrote no result");
  Json json = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object() || !json.contains("states") || !json["states"].is_array())
    return Error(ErrorCode::invalid_input, "wrote an unreadable result (not {\"states\": [...]})");
  const Json& states = json["states"];
  if (states.size() != count)
    return Error(ErrorCode::invalid_input, "returned " + std::to_string(states.size()) + " states for " +
                                               std::to_string(count) + " functions");
  std::vector<SignatureState> out;
  for (std::size_t i = 0; i < count; ++i) {
    auto state = state_from_json(states[i]);
    if (!state)
      return state.error().context("wrote an unreadable state for function " + std::to_string(i + 1));
    out.push_back(std::move(*state));
  }
  return out;
}

}  // namespace

fs::path RuntimeSourceOptions::this_program() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path("/proc/self/exe") : self;
}

std::string top_level_package(const MonitoredFunction& function) {
  const std::string statement = trim(function.import_statement);
  auto head_of = [](std::string_view text) {
    text.remove_prefix(std::min(text.size(), text.find_first_not_of(" \t")));
    return std::string(text.substr(0, text.find_first_of(". \t,")));
  };
  std::string package;
  if (statement.rfind("from ", 0) == 0) package = head_of(std::string_view(statement).substr(5));
  if (statement.rfind("import ", 0) == 0) package = head_of(std::string_view(statement).substr(7));
  if (package.empty()) package = function.function_path.substr(0, function.function_path.find('.'));
  return package;
}

bool RuntimeSource::stopping() const { return m_options.stop_requested && m_options.stop_requested(); }

RuntimeSource::RuntimeSource(std::unique_ptr<WorkTree> work_tree, std::unique_ptr<Sandbox> sandbox,
                             RuntimeSourceOptions options, Logger& log)
    : RuntimeSource(*work_tree, *sandbox, std::move(options), log) {
  m_owned_work_tree = std::move(work_tree);
  m_owned_sandbox = std::move(sandbox);
}

RuntimeSource::RuntimeSource(WorkTree& work_tree, Sandbox& sandbox, RuntimeSourceOptions options, Logger& log)
    : m_work_tree(work_tree),
      m_sandbox(sandbox),
      m_options(std::move(options)),
      m_log(log),
      m_state(StateDir(m_options.state_dir).absolute()) {
  // Absolute: these paths go to children whose working directory is elsewhere (the work tree).
  m_options.state_dir = m_state.root();
  m_venv = m_state.venv();
  m_logs = m_state.logs();
}

Result<std::vector<SignatureState>> RuntimeSource::extract(const ObjectId& commit,
                                                           const std::vector<MonitoredFunction>& functions) {
  m_timings = RuntimeTimings{};
  if (functions.empty()) return std::vector<SignatureState>{};
  std::error_code ec;
  fs::create_directories(m_logs, ec);
  if (ec) return Error(ErrorCode::io, "cannot create '" + m_logs.string() + "': " + ec.message());
  auto lock = lock_runtime(m_state.runtime_lock(), m_options.stop_requested, m_log);
  if (!lock) return lock.error();
  auto start = Clock::now();
  auto checked_out = m_work_tree.checkout(commit, m_options.build.submodules);
  m_timings.checkout = since(start);
  if (!checked_out) return checked_out.error();
  if (auto venv = ensure_venv(); !venv) return venv.error();
  if (stopping()) return stop_error("extracting " + commit.hex);

  start = Clock::now();
  auto failed_build = build(commit, top_level_package(functions.front()));
  if (m_timings.built) m_timings.build = since(start);
  if (!failed_build) return failed_build.error();
  if (*failed_build) {
    prune_logs();
    return all_failed(functions.size(), Status::build_failed, **failed_build);
  }
  start = Clock::now();
  auto states = run_child(commit, functions);
  m_timings.extract = since(start);
  m_log.debug("Runtime extraction of {}: checkout {} ms, build {} ms ({}), extract {} ms", commit.hex,
              m_timings.checkout.count(), m_timings.build.count(), m_timings.built ? "built" : "skipped",
              m_timings.extract.count());
  prune_logs();
  return states;
}

SandboxRequest RuntimeSource::request_for(std::vector<std::string> argv, std::chrono::seconds timeout,
                                          fs::path log_file) const {
  SandboxRequest request;
  request.argv = std::move(argv);
  request.cwd = m_work_tree.path();
  request.env = m_options.build.env;
  // As an activated venv: its bin/ first, so a build calling `python` or `pip` gets the venv's.
  const char* path = std::getenv("PATH");
  request.env["PATH"] =
      (m_venv / "bin").string() + ":" + (path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
  request.env["VIRTUAL_ENV"] = m_venv.string();
  request.timeout = timeout;
  request.log_file = std::move(log_file);
  request.writable = {m_work_tree.path(), m_venv};
  request.stop_requested = m_options.stop_requested;
  return request;
}

// Without pip: the system's pip and setuptools are visible through --system-site-packages, and
// bootstrapping a private pip costs seconds for every new state_dir.
Result<void> RuntimeSource::ensure_venv() {
  if (m_venv_ready) return {};
  // The interpreter and the embedded X.Y: a binary rebuilt against another Python needs a new venv
  // (and a new build: what was compiled into the old one does not import).
  const fs::path marker = m_venv / ".aaw-python";
  const std::string wanted = m_options.python.string() + "\n" + m_options.python_version + "\n";
  if (fs::exists(m_venv / "bin" / "python") && read_regular_file(marker) == wanted) {
    m_venv_ready = true;
    return {};
  }
  const std::string what = "cannot create the virtual environment '" + m_venv.string() + "' with '" +
                           m_options.python.string() + "'";
  std::error_code ec;
  fs::remove(m_state.last_build(), ec);  // what it installed is gone
  fs::remove_all(m_venv, ec);
  fs::create_directories(m_venv, ec);
  if (ec) return Error(ErrorCode::io, what + ": " + ec.message());
  m_log.info("Creating the virtual environment {}", m_venv.string());
  const fs::path log_file = m_logs / "venv.log";
  auto result = m_sandbox.run(request_for(
      {m_options.python.string(), "-m", "venv", "--system-site-packages", "--without-pip", m_venv.string()},
      k_venv_timeout, log_file));
  if (!result) return result.error().context(what);
  if (result->outcome == SandboxResult::Outcome::cancelled) return stop_error(what);
  if (!result->succeeded())
    return Error(ErrorCode::io, with_tail(what + ": " + result->describe(), log_file, 2000));
  if (auto written = write_file_atomically(marker, wanted); !written) return written.error().context(what);
  m_venv_ready = true;
  return {};
}

// The last successful build still holds when it ran the same command with the same environment
// and no file under build.paths (any file when empty) differs between its commit and this one.
bool RuntimeSource::build_is_current(const ObjectId& commit) {
  const BuildConfig& build = m_options.build;
  if (!build.skip_if_unchanged) return false;
  auto text = read_file(m_state.last_build());
  if (!text) return false;
  Json last = Json::parse(*text, nullptr, false);
  if (last.is_discarded() || !last.is_object() || !last.contains("commit") || !last["commit"].is_string())
    return false;
  if (last.value("command", Json()) != Json(build.command) ||
      last.value("env", Json()) != recorded_env(build.env) ||
      last.value("python", Json()) != Json(m_options.python.string()) ||
      last.value("python_version", Json()) != Json(m_options.python_version))
    return false;
  const ObjectId built{last["commit"].get<std::string>()};
  auto changed = m_work_tree.changed_paths(built, commit);
  if (!changed) return false;  // that commit is gone (a force-push): build again
  for (const std::string& path : *changed) {
    if (build.paths.empty()) return false;
    for (const std::string& prefix : build.paths)
      if (is_under(path, prefix)) return false;
  }
  m_log.info("Not rebuilding: nothing under build.paths changed since the last build ({})", built.hex);
  return true;
}

Result<std::optional<std::string>> RuntimeSource::build(const ObjectId& commit, const std::string& package) {
  const BuildConfig& config = m_options.build;
  if (config.command.empty()) return std::optional<std::string>();
  if (build_is_current(commit)) return std::optional<std::string>();
  // From here the outputs belong to no known commit until this build succeeds.
  std::error_code ec;
  const fs::path record = m_state.last_build();
  fs::remove(record, ec);

  std::vector<std::string> argv;
  for (const std::string& arg : config.command)
    argv.push_back(replace_all(arg, k_python_placeholder, (m_venv / "bin" / "python").string()));
  const fs::path log_file = m_logs / (commit.hex + "-build.log");
  m_log.info("Installing {} package", package);
  auto result =
      m_sandbox.run(request_for(std::move(argv), std::chrono::seconds(config.timeout_seconds), log_file));
  if (!result) return result.error().context("building " + commit.hex);
  if (result->outcome == SandboxResult::Outcome::cancelled) return stop_error("building " + commit.hex);
  m_timings.built = true;
  if (!result->succeeded()) {
    m_log.warn("Building {} at {} failed: {} (log: {})", package, commit.hex, result->describe(),
               log_file.string());
    return std::optional<std::string>(with_tail("build " + result->describe(), log_file, 4000));
  }
  m_log.info("Successfully installed {}", package);
  Json done = {{"commit", commit.hex},
               {"command", config.command},
               {"env", recorded_env(config.env)},
               {"python", m_options.python.string()},
               {"python_version", m_options.python_version}};
  if (auto written = write_file_atomically(record, done.dump()); !written)
    m_log.warn("{}: the next build cannot be skipped", written.error().message());
  return std::optional<std::string>();
}

Result<std::vector<SignatureState>> RuntimeSource::run_child(
    const ObjectId& commit, const std::vector<MonitoredFunction>& functions) {
  const fs::path dir = m_sandbox.root() / "extract";
  const fs::path request_file = dir / "request.json";
  const fs::path result_file = dir / "result.json";
  // Made afresh: a build may have left a link or a FIFO here, to be written through or read from.
  if (auto made = make_fresh_directory(dir); !made) return made.error();
  if (auto written = write_file_atomically(
          request_file, request_json(m_work_tree.path(), m_venv, functions, m_options.source_roots).dump());
      !written)
    return written.error();
  const fs::path log_file = m_logs / (commit.hex + "-extract.log");
  auto result = m_sandbox.run(request_for(
      {m_options.extract_program.string(), "__extract", request_file.string(), result_file.string()},
      std::chrono::seconds(m_options.runtime.extract_timeout_seconds), log_file));
  if (!result) return result.error().context("starting the extraction child for " + commit.hex);
  if (result->outcome == SandboxResult::Outcome::cancelled) return stop_error("extracting " + commit.hex);
  auto states = read_result(result_file, functions.size());
  if (!result->succeeded()) {
    // The result is renamed into place whole, so a readable one is complete: the crash came after
    // (a GPU runtime's teardown at interpreter exit), and the states are good.
    if (states) {
      m_log.warn("Extraction child for {} {} after writing its result; using the result (log: {})",
                 commit.hex, result->describe(), log_file.string());
      return states;
    }
    return all_failed(functions.size(), Status::extract_failed, child_failure(result->describe(), log_file));
  }
  if (!states) {
    return all_failed(functions.size(), Status::extract_failed,
                      child_failure(states.error().message(), log_file));
  }
  return states;
}

// Per commit, not per file: a commit whose build was skipped has one log, a built one two.
void RuntimeSource::prune_logs() const {
  std::error_code ec;
  std::map<std::string, std::pair<fs::file_time_type, std::vector<fs::path>>> commits;  // newest write, files
  for (const auto& entry : fs::directory_iterator(m_logs, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with("-build.log") && !name.ends_with("-extract.log")) continue;
    auto& [newest, files] = commits[name.substr(0, name.rfind('-'))];
    newest = std::max(newest, entry.last_write_time(ec));
    files.push_back(entry.path());
  }
  if (commits.size() <= m_options.kept_logs) return;
  std::vector<std::pair<fs::file_time_type, const std::vector<fs::path>*>> by_age;
  for (const auto& [commit, logs] : commits) by_age.emplace_back(logs.first, &logs.second);
  std::sort(by_age.begin(), by_age.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = m_options.kept_logs; i < by_age.size(); ++i)
    for (const fs::path& file : *by_age[i].second) fs::remove(file, ec);
}

Result<void> run_extraction_child(const fs::path& request, const fs::path& result, PythonHost& python) {
  auto text = read_file(request);
  if (!text) return Error(ErrorCode::io, "cannot read the extraction request '" + request.string() + "'");
  Json args = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (args.is_discarded() || !args.is_object())
    return Error(ErrorCode::invalid_input,
                 "extraction request '" + request.string() + "': not a JSON object");
  auto states = python.call("aaw_runtime", "extract_all", args, {});
  if (!states) return states.error().context("extracting");
  return write_file_atomically(result, Json({{"states", std::move(*states)}}).dump());
}

SourceKind runtime_source_kind() {
  return {"runtime", "build each commit in a sandbox and read inspect.signature after one import",
          [](const Config& config, SourceDeps& deps) -> Result<std::unique_ptr<SignatureSource>> {
            auto sandbox = deps.make_sandbox();
            if (!sandbox) return sandbox.error();
            auto work_tree = deps.open_work_tree(**sandbox);
            if (!work_tree) return work_tree.error();
            RuntimeSourceOptions options;
            options.state_dir = deps.state_dir.root();
            options.build = config.build;
            options.runtime = config.runtime;
            options.python = deps.python_executable;
            options.python_version = deps.python_version;
            options.stop_requested = deps.stop_requested;
            if (config.build.command.empty()) options.source_roots = config.static_extraction.source_roots;
            return std::unique_ptr<SignatureSource>(std::make_unique<RuntimeSource>(
                std::move(*work_tree), std::move(*sandbox), std::move(options), deps.log));
          }};
}

}  // namespace aaw
