// The Sandbox port on POSIX: the plain runner and bubblewrap (bwrap_sandbox.cpp), chosen by
// make_sandbox. The aaw::detail part is what both runners share (checking a request, building the
// child's environment, finding the program) and how make_sandbox reaches the bubblewrap runner.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/model/config.hpp"
#include "core/ports/sandbox.hpp"
#include "core/report/log.hpp"
#include "io/sandbox/sandbox_child_posix.hpp"

namespace aaw {

// What no sandboxed command may read.
struct HiddenPaths {
  // Credentials (github.token_file): a sandbox that cannot hide them is refused unless
  // sandbox.accept_unconfined says so.
  std::vector<std::filesystem::path> secrets;
  // The state directory (the store, the events, the mirror's config) and the config file (a
  // webhook URL): hidden where the runner can, the sandbox root and a request's writable and
  // readable paths beneath them excepted.
  std::vector<std::filesystem::path> private_paths;

  // Both lists: everything a runner that can hide hides.
  std::vector<std::filesystem::path> all() const {
    std::vector<std::filesystem::path> paths = secrets;
    paths.insert(paths.end(), private_paths.begin(), private_paths.end());
    return paths;
  }
};

// The sandbox chosen by `config.kind` with `root` as its writable directory (created when missing;
// HOME is root/home and TMPDIR root/tmp). auto: bubblewrap when it can create namespaces here, else
// Landlock when the kernel offers it, else the plain runner with a warning naming what is not
// protected; bwrap and landlock: invalid_input when that runner cannot work here, saying why;
// process: the plain runner. The plain runner cannot hide anything: with a secret its children could
// read it is invalid_input unless config.accept_unconfined. When this process is root, children run
// as the user config.run_as names (child_user_posix.hpp) where that user can reach `root`'s parent
// directory and this program: with `auto` a user that cannot is warned about and the children run
// as root without capabilities; with a named user it is invalid_input. io when root cannot be created. root()
// is its canonical path (bwrap binds it at that path). `log` must outlive the sandbox (it gets the warnings
// about secrets dropped from a request's env).
Result<std::unique_ptr<Sandbox>> make_sandbox(const SandboxConfig& config, const std::filesystem::path& root,
                                              Logger& log, const HiddenPaths& hidden = {});

}  // namespace aaw

namespace aaw::detail {

// A request checked against the sandbox, ready to run.
struct PreparedCommand {
  std::filesystem::path program;                // argv[0] found in the sandbox PATH
  std::filesystem::path cwd;                    // absolute, existing, inside the root or a writable path
  std::vector<std::filesystem::path> writable;  // absolute, existing
  std::vector<std::string> environment;         // NAME=VALUE
};

// run() for every runner: checks and prepares the request, then runs what child_spec() makes of it.
// With a user (the daemon is root), the sandbox root and the request's writable paths are handed
// over to that user before each run; when it is not root itself, the child runs as it, and every
// process of it is killed after the run.
class PosixSandbox : public Sandbox {
 public:
  Result<SandboxResult> run(const SandboxRequest& request) final;
  // run() without killing the user's processes afterwards: the probe at start, which may run
  // beside another process's extraction in the same state directory (`show` beside the daemon).
  Result<SandboxResult> probe(const SandboxRequest& request);

 protected:
  PosixSandbox(std::filesystem::path root, Logger& log, std::optional<ChildUser> user)
      : Sandbox(std::move(root)), m_log(log), m_user(std::move(user)) {}
  // Who the children run as, for confinement(): "as uid 61234", "as root with every capability
  // dropped", "as the daemon's user".
  std::string runs_as() const;
  bool switches_user() const;
  // What to execute for a prepared request (the plain runner: the command itself).
  virtual Result<ChildSpec> child_spec(const SandboxRequest& request, const PreparedCommand& command) const;
  // What a confining runner lets the child write: the root, then the request's writable paths.
  std::vector<std::filesystem::path> writable_paths(const PreparedCommand& command) const {
    std::vector<std::filesystem::path> dirs = {root()};
    dirs.insert(dirs.end(), command.writable.begin(), command.writable.end());
    return dirs;
  }

 private:
  Result<SandboxResult> run_swept(const SandboxRequest& request, bool kill_user_after);
  Result<PreparedCommand> prepare(const SandboxRequest& request);
  std::vector<std::string> environment(const SandboxRequest& request);

  Logger& m_log;
  std::optional<ChildUser> m_user;
  std::mutex m_mutex;
  std::set<std::string> m_warned;  // secret names already warned about
};

// The plain runner.
std::unique_ptr<Sandbox> make_process_sandbox(const std::filesystem::path& root, Logger& log,
                                              std::optional<ChildUser> user);

// The bubblewrap runner, once `bwrap` found in our PATH has run `/bin/sh -c "exit 0"` with the flags a
// request would get (the probe). Hidden files read as empty inside (/dev/null is bound over each), hidden
// directories as empty (a tmpfs over each). invalid_input saying why otherwise (not installed,
// cannot create namespaces here, with bwrap's own message). `root` must exist.
// As root, its children stay root inside their namespaces: `user` is root, to hand the writable
// paths back to after a runner that switched users.
Result<std::unique_ptr<Sandbox>> make_bwrap_sandbox(const std::filesystem::path& root, bool network,
                                                    Logger& log, const HiddenPaths& hidden,
                                                    std::optional<ChildUser> user);

// The Landlock runner (landlock_posix.hpp): the plain runner's child, restricted to reading all of
// `/` but the hidden paths and to writing the sandbox root and a request's writable paths, once
// it has run `/bin/sh -c "exit 0"` so (the probe). invalid_input saying why otherwise (no Landlock in this
// kernel, refused by seccomp). `root` must exist.
Result<std::unique_ptr<Sandbox>> make_landlock_sandbox(const std::filesystem::path& root, bool network,
                                                       Logger& log, const HiddenPaths& hidden,
                                                       std::optional<ChildUser> user);

// Runs `/bin/sh -c "exit 0"` in `sandbox` as every request would: the check that it works here. invalid_input
// naming `what` and the child's own message when it does not.
Result<void> probe_sandbox(PosixSandbox& sandbox, const std::string& what);

}  // namespace aaw::detail
