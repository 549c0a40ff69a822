// The bubblewrap runner: the same child as the plain runner, executed through
//   bwrap --ro-bind / / --dev /dev --dev-bind-try /dev/kfd /dev/kfd --dev-bind-try /dev/dri /dev/dri
//         --proc /proc --bind ROOT ROOT [--bind W W ...] [--ro-bind /dev/null HIDDEN ...]
//         --unshare-pid --die-with-parent [--unshare-net] --chdir CWD -- PROGRAM ARGS...
// The whole filesystem is visible but read-only except the sandbox and its writable paths; a PID
// namespace means killing bwrap's group (or this process dying) ends everything inside, daemons
// included. The environment needs no --setenv: bwrap passes its own, already allow-listed, on.
#include <system_error>

#include "io/sandbox/sandbox_posix.hpp"
#include "util/files.hpp"

namespace aaw::detail {
namespace {

namespace fs = std::filesystem;

// A probe runs `true`; anything slower than this is not a usable sandbox either.
constexpr std::chrono::seconds k_probe_timeout{20};
constexpr std::size_t k_probe_message_bytes = 600;

class BwrapSandbox final : public PosixSandbox {
 public:
  BwrapSandbox(fs::path root, fs::path bwrap, bool network, Logger& log, std::vector<fs::path> hidden)
      : PosixSandbox(std::move(root), log),
        m_bwrap(std::move(bwrap)),
        m_network(network),
        m_hidden(std::move(hidden)) {}

  std::string_view kind() const override { return "bwrap"; }

 protected:
  ChildSpec child_spec(const SandboxRequest& request, const PreparedCommand& command) const override {
    ChildSpec spec = PosixSandbox::child_spec(request, command);
    // The GPU devices on top of the minimal /dev: ROCm builds and imports probe them (rocminfo,
    // hipGetDeviceCount at import), and without them an import that works on the host fails here.
    // -try: a host without a GPU has neither.
    std::vector<std::string> argv = {"bwrap",    "--ro-bind",      "/",        "/",        "--dev",
                                     "/dev",     "--dev-bind-try", "/dev/kfd", "/dev/kfd", "--dev-bind-try",
                                     "/dev/dri", "/dev/dri",       "--proc",   "/proc"};
    for (const fs::path& dir : writable_dirs(command)) {
      argv.insert(argv.end(), {"--bind", dir.string(), dir.string()});
    }
    // Secrets the daemon reads (the token file) read as empty in here. Its canonical path: a link
    // to it resolves there too.
    for (const fs::path& file : m_hidden) {
      std::error_code ec;
      const fs::path real = fs::canonical(file, ec);
      if (!ec && fs::is_regular_file(real, ec))
        argv.insert(argv.end(), {"--ro-bind", "/dev/null", real.string()});
    }
    argv.insert(argv.end(), {"--unshare-pid", "--die-with-parent"});
    if (!request.network.value_or(m_network)) argv.emplace_back("--unshare-net");
    argv.insert(argv.end(), {"--chdir", command.cwd.string(), "--", command.program.string()});
    argv.insert(argv.end(), request.argv.begin() + 1, request.argv.end());
    spec.program = m_bwrap;
    spec.argv = std::move(argv);
    return spec;
  }

 private:
  std::vector<fs::path> writable_dirs(const PreparedCommand& command) const {
    std::vector<fs::path> dirs = {root()};
    dirs.insert(dirs.end(), command.writable.begin(), command.writable.end());
    return dirs;
  }

  fs::path m_bwrap;
  bool m_network;
  std::vector<fs::path> m_hidden;
};

std::string one_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  return text;
}

}  // namespace

Result<std::unique_ptr<Sandbox>> make_bwrap_sandbox(const fs::path& root, bool network, Logger& log,
                                                    const std::vector<fs::path>& hidden) {
  const char* our_path = std::getenv("PATH");
  auto bwrap = find_program("bwrap", our_path != nullptr ? our_path : "", "/");
  if (!bwrap)
    return Error(ErrorCode::invalid_input, "bubblewrap is not installed (" + bwrap.error().message() + ")");
  auto sandbox = std::make_unique<BwrapSandbox>(root, *bwrap, network, log, hidden);

  // The probe: the flags of a real run, so "works here" means what the builds will need.
  SandboxRequest probe;
  probe.argv = {"true"};
  probe.timeout = k_probe_timeout;
  probe.log_file = root / "tmp" / "bwrap-probe.log";
  probe.log_limit_bytes = 64 * 1024;
  auto result = sandbox->run(probe);
  const std::string output = one_line(log_tail(probe.log_file, k_probe_message_bytes));
  std::error_code ignored;
  fs::remove(probe.log_file, ignored);
  if (!result)
    return Error(ErrorCode::invalid_input, "bubblewrap cannot run here: " + result.error().message());
  if (!result->succeeded()) {
    return Error(ErrorCode::invalid_input, "bubblewrap cannot create its namespaces here: '" +
                                               bwrap->string() + "' " + result->describe() +
                                               (output.empty() ? "" : ": " + output));
  }
  return std::unique_ptr<Sandbox>(std::move(sandbox));
}

}  // namespace aaw::detail
