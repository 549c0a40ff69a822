// Running a command we do not trust (a commit's build, the extraction child that imports it) in a
// child process we can always take back: an allow-listed environment (secrets never pass), its own
// process group killed as a whole at the wall-clock timeout, rlimits, output to a capped log file,
// and, with bubblewrap, a read-only view of the filesystem except the sandbox directory and no
// network when asked.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/config.hpp"
#include "core/report/log.hpp"
#include "util/result.hpp"

namespace aaw {

// The child's environment is PATH (ours, or /usr/local/bin:/usr/bin:/bin when unset), LANG (ours,
// or C.UTF-8), HOME=root/home, TMPDIR=root/tmp, then `env` on top; nothing else of ours.
struct SandboxRequest {
  // argv[0] is looked up in the sandbox PATH (after `env`) unless it has a slash (then relative to
  // cwd); a program not found there is an Error (not_found), never an exit status 127.
  std::vector<std::string> argv;
  // Must exist and be inside the sandbox root or a `writable` path (invalid_input otherwise); empty
  // means the root, a relative path is relative to the root.
  std::filesystem::path cwd;
  // Added to the allow-listed environment (build.env). A name that looks like a secret (GITHUB_TOKEN,
  // *_TOKEN, *_KEY, *_SECRET, case-insensitive: is_secret_name) is dropped even when listed here,
  // with one warning naming it (never its value) per sandbox.
  std::map<std::string, std::string> env;
  std::chrono::seconds timeout{3600};
  std::filesystem::path log_file;  // stdout and stderr, truncated at start
  // Past this the log keeps its first half and its last half (where a build prints its error), with
  // a "[... N bytes omitted ...]" line between; the child is never blocked.
  std::uint64_t log_limit_bytes = 16u << 20;
  std::optional<std::uint64_t> address_space_bytes;  // RLIMIT_AS when set
  // Extra directories the child may write besides the sandbox root (the work tree, the venv).
  // bwrap and Landlock enforce the difference; the plain runner cannot stop writes anywhere. Must
  // exist (not_found otherwise). A root daemon hands them (and the root) over to the user its
  // children run as (sandbox.run_as) before each run: never name a directory the daemon does not own.
  std::vector<std::filesystem::path> writable;
  // Directories the child may read although the sandbox hides what holds them (a checkout reads
  // the mirror in the hidden state directory). Paths that do not exist are skipped.
  std::vector<std::filesystem::path> readable;
  // Whether the child may use the network, when not as the sandbox was made (sandbox.network): a
  // checkout fetching submodules needs it whatever the builds get. bwrap enforces it, Landlock for
  // TCP from kernel ABI 4.
  std::optional<bool> network;
  // Polled while the child runs (about every 50 ms); once true, the whole group gets SIGTERM and,
  // after a short grace, SIGKILL, and the result is Outcome::cancelled. Empty: never.
  std::function<bool()> stop_requested;
};

struct SandboxResult {
  enum class Outcome { exited, signaled, timed_out, cancelled };
  Outcome outcome = Outcome::exited;
  int exit_code = 0;  // when exited
  int signal = 0;     // when signaled
  bool log_truncated = false;
  std::chrono::milliseconds elapsed{0};
  std::chrono::seconds timeout{0};  // the request's timeout, for describe()

  bool succeeded() const { return outcome == Outcome::exited && exit_code == 0; }
  // "exited with status 2", "killed by signal 11 (Segmentation fault)", "timed out after 600 s",
  // "cancelled".
  std::string describe() const;
};

class Sandbox {
 public:
  virtual ~Sandbox() = default;
  // Runs the request to completion (or its timeout or stop request, when the whole process group
  // gets SIGTERM and, a moment later, SIGKILL). Whatever the command leaves running in its process group when
  // it exits is killed too. Under the plain runner a process that leaves the group (setsid, a daemon)
  // escapes; under bwrap nothing escapes (a PID namespace). Under bwrap a command killed by signal
  // N is reported as exited with status 128 + N (bwrap's own init reports it so).
  // When this process is PID 1 (a container without an init) or a child subreaper, exited orphans
  // a build left behind are reaped after each run, so that they do not pile up as zombies.
  // An Error only when the child cannot be started (fork, log file, missing program, bad cwd): a
  // command that fails is a result, not an Error.
  virtual Result<SandboxResult> run(const SandboxRequest& request) = 0;
  virtual std::string_view kind() const = 0;  // "bwrap", "landlock" or "process"
  // What confines a child here, in a line for the log and `status`: "user, PID and network
  // namespaces; ...", "Landlock ABI 7 (filesystem, signals, abstract sockets)", "nothing: ...".
  virtual std::string confinement() const = 0;
  const std::filesystem::path& root() const { return m_root; }

 protected:
  explicit Sandbox(std::filesystem::path root) : m_root(std::move(root)) {}

 private:
  std::filesystem::path m_root;
};

// True when the environment variable name must never reach a child or a log.
bool is_secret_name(std::string_view name);

}  // namespace aaw
