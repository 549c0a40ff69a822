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
  ProcessSandbox(fs::path root, Logger& log) : PosixSandbox(std::move(root), log) {}
  std::string_view kind() const override { return "process"; }

 protected:
  detail::ChildSpec child_spec(const SandboxRequest& request,
                               const detail::PreparedCommand& command) const override {
    detail::ChildSpec spec = PosixSandbox::child_spec(request, command);
    spec.drop_privileges = true;
    spec.sweep_escapees = true;  // no PID namespace: what leaves the group is found as our orphan
    return spec;
  }
};

// Without a mount namespace nothing can be hidden: say so once for each secret file a build can
// read as this user.
void warn_readable(const std::vector<fs::path>& hidden, Logger& log) {
  for (const fs::path& file : hidden) {
    if (::access(file.c_str(), R_OK) == 0)
      log.warn(
          "sandbox: without bubblewrap builds and imports run as this user and can read '{}'; pass the "
          "token in GITHUB_TOKEN instead of github.token_file, or let bubblewrap run",
          file.string());
  }
}

}  // namespace

namespace detail {

Result<SandboxResult> PosixSandbox::run(const SandboxRequest& request) {
  auto command = prepare(request);
  if (!command) return command.error();
  return run_child(child_spec(request, *command));
}

ChildSpec PosixSandbox::child_spec(const SandboxRequest& request, const PreparedCommand& command) const {
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

std::unique_ptr<Sandbox> make_process_sandbox(const fs::path& root, Logger& log) {
  return std::make_unique<ProcessSandbox>(root, log);
}

}  // namespace detail

Result<std::unique_ptr<Sandbox>> make_sandbox(const SandboxConfig& config, const fs::path& root, Logger& log,
                                              const std::vector<fs::path>& hidden) {
  if (config.kind != "auto" && config.kind != "bwrap" && config.kind != "process")
    return Error(ErrorCode::invalid_input,
                 "unknown sandbox kind '" + config.kind + "' (expected auto, bwrap or process)");
  for (const auto& dir : {root, root / "home", root / "tmp"}) {
    if (auto made = make_directory(dir); !made) return made.error();
  }
  // Canonical: bwrap binds it at the same path, and cwd checks compare against it.
  std::error_code ec;
  const fs::path dir = fs::canonical(root, ec);
  if (ec)
    return Error(ErrorCode::io, "cannot use sandbox directory '" + root.string() + "': " + ec.message());
  if (config.kind == "process") {
    warn_readable(hidden, log);
    return detail::make_process_sandbox(dir, log);
  }
  auto bwrap = detail::make_bwrap_sandbox(dir, config.network, log, hidden);
  if (bwrap || config.kind == "bwrap") return bwrap;
  log.warn("sandbox: {}; builds run without bubblewrap, so without a read-only filesystem{}",
           bwrap.error().message(), config.network ? "" : " and with network access");
  warn_readable(hidden, log);
  return detail::make_process_sandbox(dir, log);
}

}  // namespace aaw
