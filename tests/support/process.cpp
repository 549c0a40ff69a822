// Child processes for tests, started with posix_spawn: glibc's makes the child with
// CLONE_VM|CLONE_VFORK, so the test binary's page tables are neither copied nor made copy-on-write
// (a fork of it made every page the parent then touched fault, with a TLB flush across its
// threads: a third of the suite's system time). The test binary has threads (the loopback HTTP
// server runs CGI children from its own thread), so every descriptor is opened close-on-exec, so
// that one thread's pipes never leak into another thread's child and keep a reader from ever
// seeing end-of-file.
#include "support/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>

#include "util/unique_fd.hpp"

extern char** environ;

namespace aaw::test {
namespace {

using Clock = std::chrono::steady_clock;

// How long to keep reading a killed child's pipes: a grandchild outside its group could hold
// them open forever.
constexpr auto k_drain_after_kill = std::chrono::seconds(5);

struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe2");
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

// argv or envp in the form posix_spawnp wants; owns the strings.
class CStrings {
 public:
  explicit CStrings(std::vector<std::string> strings) : m_strings(std::move(strings)) {
    for (auto& s : m_strings) m_pointers.push_back(s.data());
    m_pointers.push_back(nullptr);
  }
  char** get() { return m_pointers.data(); }

 private:
  std::vector<std::string> m_strings;
  std::vector<char*> m_pointers;
};

std::vector<std::string> child_environment(const RunOptions& options) {
  std::map<std::string, std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view pair(*entry);
    const auto eq = pair.find('=');
    if (eq != std::string_view::npos) env.emplace(pair.substr(0, eq), pair.substr(eq + 1));
  }
  for (const auto& name : options.unset_env) env.erase(name);
  for (const auto& [name, value] : options.env) env[name] = value;
  std::vector<std::string> out;
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

// Writing to a child that has exited raises SIGPIPE, which would kill the whole test binary;
// we want EPIPE instead. Children get the default disposition back before exec.
void ignore_sigpipe() {
  static const bool done = [] {
    std::signal(SIGPIPE, SIG_IGN);
    return true;
  }();
  (void)done;
}

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -1;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return decode_status(status);
}

// Feeds stdin and drains stdout/stderr of a running child until both outputs close.
class Pump {
 public:
  Pump(pid_t pid, Pipe& in, Pipe& out, Pipe& err, const RunOptions& options)
      : m_pid(pid),
        m_in(std::move(in.write)),
        m_out(std::move(out.read)),
        m_err(std::move(err.read)),
        m_input(options.stdin_text),
        m_deadline(Clock::now() + std::chrono::seconds(options.timeout_seconds)) {
    if (m_input.empty()) m_in.reset();
    if (m_in.valid()) ::fcntl(m_in.get(), F_SETFL, O_NONBLOCK);
  }

  void run(ProcessResult& result) {
    while (m_out.valid() || m_err.valid()) {
      if (!check_deadline(result)) return;
      std::vector<pollfd> fds = poll_set();
      const int n = ::poll(fds.data(), fds.size(), poll_timeout_ms());
      if (n < 0 && errno != EINTR) return;
      if (n > 0) handle(fds, result);
    }
  }

 private:
  std::vector<pollfd> poll_set() const {
    std::vector<pollfd> fds;
    if (m_in.valid()) fds.push_back({m_in.get(), POLLOUT, 0});
    if (m_out.valid()) fds.push_back({m_out.get(), POLLIN, 0});
    if (m_err.valid()) fds.push_back({m_err.get(), POLLIN, 0});
    return fds;
  }

  int poll_timeout_ms() const {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(m_deadline - Clock::now());
    return static_cast<int>(std::clamp<long long>(left.count(), 0, 1000));
  }

  // False when even the grace period after the kill is over.
  bool check_deadline(ProcessResult& result) {
    if (Clock::now() < m_deadline) return true;
    if (result.timed_out) return false;
    result.timed_out = true;
    ::kill(-m_pid, SIGKILL);
    m_in.reset();
    m_deadline = Clock::now() + k_drain_after_kill;
    return true;
  }

  void handle(const std::vector<pollfd>& fds, ProcessResult& result) {
    for (const pollfd& p : fds) {
      if (p.revents == 0) continue;
      if (p.fd == m_in.get()) feed();
      if (p.fd == m_out.get()) drain(m_out, result.out);
      if (p.fd == m_err.get()) drain(m_err, result.err);
    }
  }

  void feed() {
    const std::size_t left = m_input.size() - m_written;
    const ssize_t n = ::write(m_in.get(), m_input.data() + m_written, std::min<std::size_t>(left, 65536));
    if (n > 0) m_written += static_cast<std::size_t>(n);
    const bool retry = n < 0 && (errno == EAGAIN || errno == EINTR);
    if ((n < 0 && !retry) || m_written == m_input.size()) m_in.reset();  // EPIPE: it stopped reading
  }

  static void drain(UniqueFd& fd, std::string& sink) {
    char buffer[65536];
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n > 0) sink.append(buffer, static_cast<std::size_t>(n));
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) fd.reset();
  }

  pid_t m_pid;
  UniqueFd m_in, m_out, m_err;
  const std::string& m_input;
  std::size_t m_written = 0;
  Clock::time_point m_deadline;
};

// The child leads a process group of its own (so a timeout kills what it started too), with
// SIGPIPE back to its default disposition and no signal blocked. -errno when it could not start.
pid_t spawn(const std::vector<std::string>& argv, const RunOptions& options, int in, int out, int err) {
  if (argv.empty()) throw std::invalid_argument("run_process: empty argv");
  ignore_sigpipe();
  CStrings args(argv);
  CStrings envp(child_environment(options));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in, 0);
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  posix_spawn_file_actions_adddup2(&actions, err, 2);
  if (!options.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, options.cwd.c_str());
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, args.get()[0], &actions, &attributes, args.get(), envp.get());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  return rc == 0 ? pid : -rc;
}

std::string cannot_start(const std::vector<std::string>& argv, const RunOptions& options, int error) {
  return "cannot run '" + argv[0] + "'" + (options.cwd.empty() ? "" : " in '" + options.cwd.string() + "'") +
         ": " + std::strerror(error) + "\n";
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const RunOptions& options) {
  Pipe in = make_pipe();
  Pipe out = make_pipe();
  Pipe err = make_pipe();
  ProcessResult result;
  const pid_t pid = spawn(argv, options, in.read.get(), out.write.get(), err.write.get());
  if (pid < 0) {
    result.exit_code = 127;
    result.err = cannot_start(argv, options, -pid);
    return result;
  }
  in.read.reset();
  out.write.reset();
  err.write.reset();
  Pump(pid, in, out, err, options).run(result);
  if (result.timed_out) ::kill(-pid, SIGKILL);
  result.exit_code = wait_for(pid);
  return result;
}

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv,
                                     const std::filesystem::path& log_file, const RunOptions& options)
    : m_log_file(log_file) {
  UniqueFd log(::open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  UniqueFd null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!log.valid() || !null.valid()) {
    throw std::system_error(errno, std::generic_category(), "cannot open " + log_file.string());
  }
  m_pid = spawn(argv, options, null.get(), log.get(), log.get());
  if (m_pid < 0) throw std::runtime_error(cannot_start(argv, options, -m_pid));
}

BackgroundProcess::~BackgroundProcess() { stop(); }

bool BackgroundProcess::running() {
  if (m_exit_code) return false;
  int status = 0;
  if (::waitpid(m_pid, &status, WNOHANG) != m_pid) return true;
  m_exit_code = decode_status(status);
  return false;
}

int BackgroundProcess::stop(std::chrono::milliseconds grace) {
  if (m_exit_code) return *m_exit_code;
  ::kill(-m_pid, SIGTERM);
  const auto deadline = Clock::now() + grace;
  siginfo_t info{};
  // WNOWAIT: look without reaping, so the group id cannot be reused before the SIGKILL below
  // reaches whatever the leader left behind (git daemon's per-connection children).
  while (Clock::now() < deadline) {
    info.si_pid = 0;
    if (::waitid(P_PID, static_cast<id_t>(m_pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == m_pid) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(-m_pid, SIGKILL);
  m_exit_code = wait_for(m_pid);
  return *m_exit_code;
}

std::string BackgroundProcess::log() const {
  std::ifstream in(m_log_file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool eventually(const std::function<bool()>& ready, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return ready();
}

ProcessResult run_watcher(const std::string& binary, const std::filesystem::path& cwd,
                          std::vector<std::string> args) {
  args.insert(args.begin(), binary);
  RunOptions options;
  options.cwd = cwd;
  options.unset_env = {"GITHUB_TOKEN"};
  return run_process(args, options);
}

}  // namespace aaw::test
