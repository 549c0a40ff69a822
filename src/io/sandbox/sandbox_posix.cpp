// The sandbox's front: checking a request (cwd inside the sandbox, program on the sandbox PATH),
// the allow-listed environment, the plain runner, and make_sandbox choosing between it and
// bubblewrap. Processes are started and supervised in sandbox_child_posix.cpp.
#include "io/sandbox/sandbox_posix.hpp"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <system_error>
#include <utility>

#include "core/ports/sandbox.hpp"
#include "util/files.hpp"

namespace aaw {
namespace {

namespace fs = std::filesystem;

constexpr const char* k_default_path = "/usr/local/bin:/usr/bin:/bin";

std::string parent_value(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' ? value : fallback;
}

bool inside(const fs::path& path, const fs::path& dir) {
  const fs::path rel = path.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

Result<void> make_directory(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return Error(ErrorCode::io, "cannot create sandbox directory '" + dir.string() + "': " + ec.message());
  return {};
}

// Why `cwd` may not be used, or nothing: it must be in the root or a writable path.
Result<void> check_inside(const fs::path& cwd, const fs::path& root, const std::vector<fs::path>& writable) {
  if (inside(cwd, root)) return {};
  for (const auto& dir : writable) {
    if (inside(cwd, dir)) return {};
  }
  return Error(ErrorCode::invalid_input, "sandbox working directory '" + cwd.string() +
                                             "' is outside the sandbox '" + root.string() + "'" +
                                             (writable.empty() ? "" : " and its writable paths"));
}

Result<std::vector<fs::path>> writable_dirs(const std::vector<fs::path>& dirs) {
  std::vector<fs::path> out;
  for (const auto& dir : dirs) {
    std::error_code ec;
    const fs::path path = fs::weakly_canonical(fs::absolute(dir), ec);
    if (ec || !fs::is_directory(path, ec))
      return Error(ErrorCode::not_found, "sandbox writable path '" + dir.string() + "' does not exist");
    out.push_back(path);
  }
  return out;
}

// `cwd` made absolute (relative to the root, which is also the default), symlinks resolved.
Result<fs::path> working_directory(const fs::path& cwd, const fs::path& root,
                                   const std::vector<fs::path>& writable) {
  const fs::path given = cwd.empty() ? root : root / cwd;  // an absolute cwd replaces the root
  std::error_code ec;
  fs::path path = fs::weakly_canonical(given, ec);
  if (ec) path = given.lexically_normal();
  if (auto ok = check_inside(path, root, writable); !ok) return ok.error();
  if (!fs::is_directory(path, ec))
    return Error(ErrorCode::not_found, "sandbox working directory '" + given.string() + "' does not exist");
  return path;
}

class ProcessSandbox final : public detail::PosixSandbox {
 public:
  ProcessSandbox(fs::path root, Logger& log, std::optional<detail::ChildUser> user)
      : PosixSandbox(std::move(root), log, std::move(user)) {}
  std::string_view kind() const override { return "process"; }
  std::string confinement() const override {
    if (switches_user())
      return "no sandbox: builds and imports run " + runs_as() +
             " with no_new_privs: they cannot write what root owns or read what only root may (the token "
             "file), but can read what any user can (the state directory's files included, unless closed to "
             "others) and write world-writable directories (/tmp, /var/tmp, /dev/shm)";
    return "nothing: builds and imports run " + runs_as() +
           " with no_new_privs and can read and write all it can (the state directory included)";
  }

 protected:
  Result<detail::ChildSpec> child_spec(const SandboxRequest& request,
                                       const detail::PreparedCommand& command) const override {
    auto spec = PosixSandbox::child_spec(request, command);
    if (!spec) return spec;
    spec->drop_privileges = true;
    spec->sweep_escapees = true;  // no PID namespace: what leaves the group is found as our orphan
    return spec;
  }
};

// The secrets a build could read under the plain runner: as `user` when it is set.
std::vector<fs::path> readable_secrets(const HiddenPaths& hidden,
                                       const std::optional<detail::ChildUser>& user) {
  std::vector<fs::path> out;
  for (const fs::path& file : hidden.secrets) {
    std::error_code ec;
    if (!fs::exists(file, ec)) continue;
    if (user ? detail::user_may_access(*user, file, R_OK) : ::access(file.c_str(), R_OK) == 0)
      out.push_back(file);
  }
  return out;
}

// The plain runner confines nothing: refused while a secret is readable, unless accepted; then
// said once at start, with what it means.
Result<std::unique_ptr<Sandbox>> unconfined(const SandboxConfig& config, const fs::path& root, Logger& log,
                                            const HiddenPaths& hidden, const std::string& why,
                                            std::optional<detail::ChildUser> user) {
  const bool other_user = user && user->uid != ::geteuid();
  const std::vector<fs::path> secrets = readable_secrets(hidden, other_user ? user : std::nullopt);
  const std::string reason = why.empty() ? "sandbox.kind is process" : why;
  if (!secrets.empty() && !config.accept_unconfined)
    return Error(
        ErrorCode::invalid_input,
        "sandbox: builds and imports would run unconfined (" + reason + ") and could read '" +
            secrets.front().string() +
            "' (github.token_file); pass the token in GITHUB_TOKEN instead, let bubblewrap or Landlock "
            "run, or set sandbox.accept_unconfined to true to accept it");
  if (other_user)
    log.warn(
        "sandbox: {}; builds and imports run unconfined as {}: they can read what any user can (the state "
        "directory included, unless closed to others{}) and write world-writable directories, but not "
        "write what root owns{}",
        reason, user->name, secrets.empty() ? "" : ", and '" + secrets.front().string() + "'",
        config.network ? "" : "; they can use the network");
  else
    log.warn(
        "sandbox: {}; builds and imports run unconfined: they can read and write everything this user can "
        "(the state directory, the store and the mirror included{}){}",
        reason, secrets.empty() ? "" : ", and '" + secrets.front().string() + "'",
        config.network ? "" : ", and use the network");
  return detail::make_process_sandbox(root, log, std::move(user));
}

// This program, which the sandbox runs too (`__checkout`, `__extract`).
fs::path this_program() {
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec);
}

// Root's own children, as root (bwrap's, `daemon`, a fallback): the paths are handed back to it.
std::optional<detail::ChildUser> root_user() {
  if (::geteuid() != 0) return std::nullopt;
  return detail::ChildUser{0, 0, "root"};
}

// Who the children run as: `named` (what sandbox.run_as resolved to) when it can reach the sandbox
// (its directory's parent, where the work tree and the venv also live) and this program; as root,
// root otherwise (auto) or an error (a user named); nobody in particular when we are not root.
Result<std::optional<detail::ChildUser>> children_user(const SandboxConfig& config, const fs::path& dir,
                                                       const std::optional<detail::ChildUser>& named,
                                                       Logger& log) {
  if (::geteuid() != 0) return std::optional<detail::ChildUser>();
  if (!named) return root_user();
  const detail::ChildUser& user = *named;
  std::string why;
  const fs::path program = this_program();
  if (!detail::user_may_access(user, dir.parent_path(), X_OK))
    why = "it cannot reach '" + dir.parent_path().string() + "' (a directory on the way is closed to it)";
  else if (!program.empty() && !detail::user_may_access(user, program, X_OK))
    why = "it cannot run '" + program.string() + "'";
  if (why.empty()) return named;
  if (config.run_as != "auto")
    return Error(ErrorCode::invalid_input, "sandbox.run_as: builds and imports cannot run as " + user.name +
                                               ": " + why +
                                               "; open the way to it or set sandbox.run_as to daemon");
  log.warn(
      "sandbox: builds and imports cannot run as {} (sandbox.run_as auto): {}; they run as root without "
      "capabilities, which still owns every file root owns",
      user.name, why);
  return root_user();
}

}  // namespace

namespace detail {

Result<SandboxResult> PosixSandbox::run(const SandboxRequest& request) { return run_swept(request, true); }

Result<SandboxResult> PosixSandbox::probe(const SandboxRequest& request) { return run_swept(request, false); }

Result<SandboxResult> PosixSandbox::run_swept(const SandboxRequest& request, bool kill_user_after) {
  auto command = prepare(request);
  if (!command) return command.error();
  auto spec = child_spec(request, *command);
  if (!spec) return spec.error();
  if (!m_user) return run_child(*spec);
  for (const fs::path& dir : writable_paths(*command)) {
    if (auto handed = hand_over(dir, *m_user); !handed) return handed.error();
  }
  if (!switches_user()) return run_child(*spec);
  spec->user = m_user;
  auto result = run_child(*spec);
  // The runs of one state directory come one at a time (runtime extraction holds its lock), and
  // the uid is that state directory's: whatever of it still runs is this run's leftover.
  if (kill_user_after) kill_processes_of(*m_user);
  return result;
}

bool PosixSandbox::switches_user() const { return m_user && m_user->uid != ::geteuid(); }

std::string PosixSandbox::runs_as() const {
  if (switches_user()) return "as " + m_user->name;
  return ::geteuid() == 0 ? "as root with every capability dropped" : "as the daemon's user";
}

Result<ChildSpec> PosixSandbox::child_spec(const SandboxRequest& request,
                                           const PreparedCommand& command) const {
  ChildSpec spec;
  spec.program = command.program;
  spec.argv = request.argv;
  spec.environment = command.environment;
  spec.cwd = command.cwd;
  spec.address_space_bytes = request.address_space_bytes;
  spec.timeout = request.timeout;
  spec.log_file = request.log_file;
  spec.log_limit_bytes = request.log_limit_bytes;
  spec.stop_requested = request.stop_requested;
  return spec;
}

Result<PreparedCommand> PosixSandbox::prepare(const SandboxRequest& request) {
  if (request.argv.empty() || request.argv[0].empty())
    return Error(ErrorCode::invalid_input, "sandbox: empty command");
  for (const auto& [name, value] : request.env) {
    if (name.empty() || name.find('=') != std::string::npos)
      return Error(ErrorCode::invalid_input, "sandbox: invalid environment variable name '" + name + "'");
  }
  for (const char* dir : {"home", "tmp"}) {
    if (auto made = make_directory(root() / dir); !made) return made.error();
  }
  PreparedCommand command;
  auto writable = writable_dirs(request.writable);
  if (!writable) return writable.error();
  command.writable = std::move(*writable);
  auto cwd = working_directory(request.cwd, root(), command.writable);
  if (!cwd) return cwd.error();
  command.cwd = std::move(*cwd);
  command.environment = environment(request);
  std::string path;
  for (const auto& entry : command.environment) {
    if (entry.starts_with("PATH=")) path = entry.substr(5);
  }
  auto program = find_program(request.argv[0], path, command.cwd);
  if (!program) return program.error();
  command.program = *program;
  return command;
}

std::vector<std::string> PosixSandbox::environment(const SandboxRequest& request) {
  std::map<std::string, std::string> env{
      {"PATH", parent_value("PATH", k_default_path)},
      {"LANG", parent_value("LANG", "C.UTF-8")},
      {"HOME", (root() / "home").string()},
      {"TMPDIR", (root() / "tmp").string()},
  };
  for (const auto& [name, value] : request.env) {
    if (!is_secret_name(name)) {
      env[name] = value;
      continue;
    }
    const std::lock_guard lock(m_mutex);
    if (m_warned.insert(name).second) {
      m_log.warn(
          "sandbox: environment variable '{}' is not passed to sandboxed commands: names like "
          "*_TOKEN, *_KEY, *_SECRET never reach a child",
          name);
    }
  }
  std::vector<std::string> out;
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

std::unique_ptr<Sandbox> make_process_sandbox(const fs::path& root, Logger& log,
                                              std::optional<ChildUser> user) {
  return std::make_unique<ProcessSandbox>(root, log, std::move(user));
}

Result<void> probe_sandbox(PosixSandbox& sandbox, const std::string& what) {
  // A probe runs an empty shell script; anything slower than this is not a usable sandbox either.
  constexpr std::chrono::seconds k_probe_timeout{20};
  constexpr std::size_t k_probe_message_bytes = 600;
  SandboxRequest probe;
  probe.argv = {"/bin/sh", "-c", "exit 0"};  // by its path: whatever PATH holds
  probe.timeout = k_probe_timeout;
  probe.log_file = sandbox.root() / "tmp" / "probe.log";
  probe.log_limit_bytes = 64 * 1024;
  auto result = sandbox.probe(probe);
  std::string output = log_tail(probe.log_file, k_probe_message_bytes);
  std::error_code ignored;
  fs::remove(probe.log_file, ignored);
  while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
  std::replace(output.begin(), output.end(), '\n', ' ');
  if (!result) return Error(ErrorCode::invalid_input, what + " cannot run here: " + result.error().message());
  if (!result->succeeded())
    return Error(ErrorCode::invalid_input, what + " cannot run here: an empty shell script " +
                                               result->describe() + (output.empty() ? "" : ": " + output));
  return {};
}

}  // namespace detail

Result<std::unique_ptr<Sandbox>> make_sandbox(const SandboxConfig& config, const fs::path& root, Logger& log,
                                              const HiddenPaths& hidden) {
  if (config.kind != "auto" && config.kind != "bwrap" && config.kind != "landlock" &&
      config.kind != "process")
    return Error(ErrorCode::invalid_input,
                 "unknown sandbox kind '" + config.kind + "' (expected auto, bwrap, landlock or process)");
  for (const auto& dir : {root, root / "home", root / "tmp"}) {
    if (auto made = make_directory(dir); !made) return made.error();
  }
  // Canonical: bwrap binds it at the same path, and cwd checks compare against it.
  std::error_code ec;
  const fs::path dir = fs::canonical(root, ec);
  if (ec)
    return Error(ErrorCode::io, "cannot use sandbox directory '" + root.string() + "': " + ec.message());
  // Checked first even for bwrap, whose children do not use it: a value that cannot work is an
  // error wherever the daemon runs.
  auto named = detail::resolve_run_as(config.run_as, ::geteuid(), dir.parent_path());
  if (!named) return named.error();
  std::string why;
  if (config.kind == "auto" || config.kind == "bwrap") {
    // As root, bwrap's children stay root: the paths go back to root if another runner had them.
    auto bwrap = detail::make_bwrap_sandbox(dir, config.network, log, hidden, root_user());
    if (bwrap || config.kind == "bwrap") return bwrap;
    why = bwrap.error().message();
  }
  auto user = children_user(config, dir, *named, log);
  if (!user) return user.error();
  if (config.kind == "process") return unconfined(config, dir, log, hidden, "", *user);
  auto landlock = detail::make_landlock_sandbox(dir, config.network, log, hidden, *user);
  if (landlock) {
    if (!why.empty()) log.info("sandbox: {}; builds and imports are confined with Landlock instead", why);
    return landlock;
  }
  if (config.kind == "landlock") return landlock;
  return unconfined(config, dir, log, hidden, why + "; " + landlock.error().message(), *user);
}

}  // namespace aaw
