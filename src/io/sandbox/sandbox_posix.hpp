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

// The sandbox chosen by `config.kind` with `root` as its writable directory (created when missing;
// HOME is root/home and TMPDIR root/tmp). auto: bubblewrap when it can create namespaces here, else
// the plain runner with one warning on `log`; bwrap: invalid_input when bubblewrap is missing or
// cannot run here; process: the plain runner. io when root cannot be created. root() is its
// canonical path (bwrap binds it at that path). `log` must outlive the sandbox (it gets the
// warnings about secrets dropped from a request's env). `hidden` are files no sandboxed command may
// read (github.token_file): bubblewrap binds /dev/null over each that exists; the plain runner
// cannot, and warns for each it could read.
Result<std::unique_ptr<Sandbox>> make_sandbox(const SandboxConfig& config, const std::filesystem::path& root,
                                              Logger& log,
                                              const std::vector<std::filesystem::path>& hidden = {});

}  // namespace aaw

namespace aaw::detail {

// A request checked against the sandbox, ready to run.
struct PreparedCommand {
  std::filesystem::path program;                // argv[0] found in the sandbox PATH
  std::filesystem::path cwd;                    // absolute, existing, inside the root or a writable path
  std::vector<std::filesystem::path> writable;  // absolute, existing
  std::vector<std::string> environment;         // NAME=VALUE
};

// run() for both runners: checks and prepares the request, then runs what child_spec() makes of it.
class PosixSandbox : public Sandbox {
 public:
  Result<SandboxResult> run(const SandboxRequest& request) final;

 protected:
  PosixSandbox(std::filesystem::path root, Logger& log) : Sandbox(std::move(root)), m_log(log) {}
  // What to execute for a prepared request (the plain runner: the command itself).
  virtual ChildSpec child_spec(const SandboxRequest& request, const PreparedCommand& command) const;

 private:
  Result<PreparedCommand> prepare(const SandboxRequest& request);
  std::vector<std::string> environment(const SandboxRequest& request);

  Logger& m_log;
  std::mutex m_mutex;
  std::set<std::string> m_warned;  // secret names already warned about
};

// The plain runner.
std::unique_ptr<Sandbox> make_process_sandbox(const std::filesystem::path& root, Logger& log);

// The bubblewrap runner, once `bwrap` found in our PATH has run `true` with the flags a request
// would get (the probe). `hidden` files read as empty inside (/dev/null is bound over each). invalid_input
// saying why otherwise (not installed, cannot create namespaces here, with bwrap's own message). `root` must
// exist.
Result<std::unique_ptr<Sandbox>> make_bwrap_sandbox(const std::filesystem::path& root, bool network,
                                                    Logger& log,
                                                    const std::vector<std::filesystem::path>& hidden);

}  // namespace aaw::detail
