// Internal to src/io/sandbox/: one supervised child process. Both runners (the plain one in
// sandbox_posix.cpp and bubblewrap in bwrap_sandbox.cpp) end here; they differ only in what they
// ask this to execute.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/ports/sandbox.hpp"
#include "io/sandbox/child_user_posix.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace aaw::detail {

struct ChildSpec {
  std::filesystem::path program;         // absolute; executed as is, no PATH search
  std::vector<std::string> argv;         // argv[0] included
  std::vector<std::string> environment;  // NAME=VALUE: the child's whole environment
  std::filesystem::path cwd;             // must exist
  std::optional<std::uint64_t> address_space_bytes;
  std::chrono::seconds timeout{3600};
  std::filesystem::path log_file;
  std::uint64_t log_limit_bytes = 16u << 20;
  std::function<bool()> stop_requested;  // empty: never
  // The plain runner's child runs with no_new_privs and, when we are root, without any capability:
  // a root build can then neither ptrace nor read the memory or /proc/<pid>/environ of the
  // (non-dumpable) daemon. Not for bwrap, which does its own and may itself be setuid.
  bool drop_privileges = false;
  // The plain runner's: this process becomes a child subreaper, and once the child is gone every
  // process it left behind that became our child (a `setsid` daemon, reparented here) is killed
  // and reaped (escapee_sweep_posix.hpp). Not for bwrap, whose PID namespace ends with it.
  bool sweep_escapees = false;
  // The Landlock runner's ruleset (landlock_posix.hpp), applied by the child after no_new_privs:
  // what it may read and write from then on, its children included. Invalid: none.
  UniqueFd landlock_ruleset;
  // Set when a root daemon's child runs as another user (sandbox.run_as): taken right after the
  // new session, before anything else.
  std::optional<ChildUser> user;
};

// Runs `spec` in a new session (so its own process group), stdin /dev/null, stdout and stderr into
// a pipe this process copies to the log file (past the limit only its first and last halves are
// kept; the child never blocks on a full pipe), RLIMIT_CORE 0, RLIMIT_NOFILE at most 4096, RLIMIT_AS when
// asked, no inherited descriptor above 2, killed with SIGKILL when this process dies.
// At the timeout, or once spec.stop_requested() is true, the whole group gets SIGTERM, then SIGKILL
// after a short grace. Exited orphans are reaped afterwards when we are PID 1 or a subreaper. When the child
// exits, anything it left running in its group is killed too. Returns once the child is reaped and
// its output drained (bounded: a process that left the group and holds the pipe open is not waited
// for). Errors: io when the log file cannot be opened or fork fails; not_found / io when the
// program cannot be executed (naming it).
Result<SandboxResult> run_child(const ChildSpec& spec);

// The executable `name` would run as: a name with a slash is taken relative to `cwd`, any other is
// searched in `path` (a PATH value; an empty entry means `cwd`). not_found naming it otherwise.
Result<std::filesystem::path> find_program(const std::string& name, const std::string& path,
                                           const std::filesystem::path& cwd);

}  // namespace aaw::detail
