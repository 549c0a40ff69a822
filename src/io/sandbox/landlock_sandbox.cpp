// The Landlock runner: the plain runner's child (no_new_privs, no capability, a subreaper sweeping
// what leaves its group) restricted by a Landlock ruleset made for each request: all of `/` but
// the hidden paths readable, the sandbox root and the request's writable paths writable, the
// request's readable paths readable, TCP cut when the network is off (ABI 4), signals and abstract
// sockets kept inside (ABI 6).
#include <cstdlib>

#include "io/sandbox/landlock_posix.hpp"
#include "io/sandbox/sandbox_posix.hpp"

namespace aaw::detail {
namespace {

namespace fs = std::filesystem;

class LandlockSandbox final : public PosixSandbox {
 public:
  LandlockSandbox(fs::path root, int abi, bool network, Logger& log, HiddenPaths hidden,
                  std::optional<ChildUser> user)
      : PosixSandbox(std::move(root), log, std::move(user)),
        m_abi(abi),
        m_network(network),
        m_hidden(std::move(hidden)) {}

  std::string_view kind() const override { return "landlock"; }
  std::string confinement() const override {
    return "Landlock ABI " + std::to_string(m_abi) + " (" + landlock_coverage(m_abi, m_network) +
           "): writes only to the work tree, the venv and the sandbox directory; the state directory and "
           "the token file unreadable; no_new_privs; " +
           runs_as() + (m_network || m_abi >= 4 ? "" : "; the network stays on (TCP rules need ABI 4)");
  }

 protected:
  Result<ChildSpec> child_spec(const SandboxRequest& request, const PreparedCommand& command) const override {
    auto spec = PosixSandbox::child_spec(request, command);
    if (!spec) return spec;
    LandlockPolicy policy;
    policy.hidden = m_hidden.all();
    policy.writable = writable_paths(command);
    policy.readable = request.readable;
    policy.network = request.network.value_or(m_network);
    auto ruleset = make_landlock_ruleset(policy, m_abi);
    if (!ruleset) return ruleset.error();
    spec->landlock_ruleset = std::move(*ruleset);
    spec->drop_privileges = true;  // Landlock requires no_new_privs
    spec->sweep_escapees = true;   // no PID namespace: what leaves the group is found as our orphan
    return spec;
  }

 private:
  int m_abi;
  bool m_network;
  HiddenPaths m_hidden;
};

}  // namespace

Result<std::unique_ptr<Sandbox>> make_landlock_sandbox(const fs::path& root, bool network, Logger& log,
                                                       const HiddenPaths& hidden,
                                                       std::optional<ChildUser> user) {
  std::string why;
  const int abi = landlock_abi(&why);
  if (abi == 0) return Error(ErrorCode::invalid_input, "Landlock cannot run here: " + why);
  auto sandbox = std::make_unique<LandlockSandbox>(root, abi, network, log, hidden, std::move(user));
  if (auto probed = probe_sandbox(*sandbox, "Landlock (ABI " + std::to_string(abi) + ")"); !probed)
    return probed.error();
  return std::unique_ptr<Sandbox>(std::move(sandbox));
}

}  // namespace aaw::detail
