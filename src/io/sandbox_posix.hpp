// Internal to the sandbox: what both runners share (checking a request, building the child's
// environment, finding the program) and how make_sandbox reaches the bubblewrap runner.
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "aaw/core/sandbox.hpp"
#include "sandbox_child_posix.hpp"

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
