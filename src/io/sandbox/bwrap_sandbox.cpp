// The bubblewrap runner: the same child as the plain runner, executed through
//   bwrap --ro-bind / / --dev /dev --dev-bind-try /dev/kfd /dev/kfd --dev-bind-try /dev/dri /dev/dri
//         --proc /proc [--ro-bind /dev/null HIDDEN_FILE | --tmpfs HIDDEN_DIR ...]
//         --bind ROOT ROOT [--bind W W ...] [--ro-bind R R ...]
//         --unshare-pid --die-with-parent [--unshare-net] --chdir CWD -- PROGRAM ARGS...
// The whole filesystem is visible but read-only except the sandbox and its writable paths; hidden
// files read as empty and hidden directories as empty directories (the binds after them, made on
// top, bring back the sandbox root, the work tree, the venv and a checkout's mirror); a PID
// namespace means killing bwrap's group (or this process dying) ends everything inside, daemons
// included. The environment needs no --setenv: bwrap passes its own, already allow-listed, on.
#include <system_error>

#include "io/sandbox/sandbox_posix.hpp"

namespace aaw::detail {
namespace {

namespace fs = std::filesystem;

class BwrapSandbox final : public PosixSandbox {
 public:
  BwrapSandbox(fs::path root, fs::path bwrap, bool network, Logger& log, HiddenPaths hidden,
               std::optional<ChildUser> user)
      : PosixSandbox(std::move(root), log, std::move(user)),
        m_bwrap(std::move(bwrap)),
        m_network(network),
        m_hidden(std::move(hidden)) {}

  std::string_view kind() const override { return "bwrap"; }
  std::string confinement() const override {
    return std::string("bubblewrap: user and PID namespaces") + (m_network ? "" : ", no network") +
           ", a read-only filesystem, the state directory and the token file hidden";
  }

 protected:
  Result<ChildSpec> child_spec(const SandboxRequest& request, const PreparedCommand& command) const override {
    auto spec = PosixSandbox::child_spec(request, command);
    if (!spec) return spec;
    // The GPU devices on top of the minimal /dev: ROCm builds and imports probe them (rocminfo,
    // hipGetDeviceCount at import), and without them an import that works on the host fails here.
    // -try: a host without a GPU has neither.
    std::vector<std::string> argv = {"bwrap",    "--ro-bind",      "/",        "/",        "--dev",
                                     "/dev",     "--dev-bind-try", "/dev/kfd", "/dev/kfd", "--dev-bind-try",
                                     "/dev/dri", "/dev/dri",       "--proc",   "/proc"};
    // Secrets and the state directory by their canonical paths, so a link to them resolves there too.
    for (const fs::path& path : m_hidden.all()) {
      std::error_code ec;
      const fs::path real = fs::canonical(path, ec);
      if (ec) continue;
      if (fs::is_directory(real, ec))
        argv.insert(argv.end(), {"--tmpfs", real.string()});
      else if (fs::is_regular_file(real, ec))
        argv.insert(argv.end(), {"--ro-bind", "/dev/null", real.string()});
    }
    for (const fs::path& dir : writable_paths(command)) {
      argv.insert(argv.end(), {"--bind", dir.string(), dir.string()});
    }
    for (const fs::path& dir : request.readable) {
      std::error_code ec;
      const fs::path real = fs::canonical(dir, ec);
      if (!ec) argv.insert(argv.end(), {"--ro-bind", real.string(), real.string()});
    }
    argv.insert(argv.end(), {"--unshare-pid", "--die-with-parent"});
    if (!request.network.value_or(m_network)) argv.emplace_back("--unshare-net");
    argv.insert(argv.end(), {"--chdir", command.cwd.string(), "--", command.program.string()});
    argv.insert(argv.end(), request.argv.begin() + 1, request.argv.end());
    spec->program = m_bwrap;
    spec->argv = std::move(argv);
    return spec;
  }

 private:
  fs::path m_bwrap;
  bool m_network;
  HiddenPaths m_hidden;
};

}  // namespace

Result<std::unique_ptr<Sandbox>> make_bwrap_sandbox(const fs::path& root, bool network, Logger& log,
                                                    const HiddenPaths& hidden,
                                                    std::optional<ChildUser> user) {
  const char* our_path = std::getenv("PATH");
  auto bwrap = find_program("bwrap", our_path != nullptr ? our_path : "", "/");
  if (!bwrap)
    return Error(ErrorCode::invalid_input, "bubblewrap is not installed (" + bwrap.error().message() + ")");
  auto sandbox = std::make_unique<BwrapSandbox>(root, *bwrap, network, log, hidden, std::move(user));
  // The flags of a real run, so "works here" means what the builds will need.
  if (auto probed = probe_sandbox(*sandbox, "bubblewrap ('" + bwrap->string() + "')"); !probed)
    return probed.error();
  return std::unique_ptr<Sandbox>(std::move(sandbox));
}

}  // namespace aaw::detail
