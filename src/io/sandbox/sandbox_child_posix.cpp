// fork/exec and supervision of one sandboxed child. Everything the child needs (argv, envp, limits)
// is prepared before fork(): the daemon has threads, and between fork and exec a child may call
// only async-signal-safe functions. Every descriptor is opened close-on-exec, so that no other
// thread's child inherits our pipe and keeps the reader from ever seeing end-of-file.
//
// A second pipe (close-on-exec) reports a failed chdir/exec to the parent: reading end-of-file on it
// means exec succeeded, so "program cannot run" is an Error and not an exit status 127 that could
// also be the command's own.
#include "io/sandbox/sandbox_child_posix.hpp"

#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <functional>
#include <set>
#include <string_view>
#include <thread>
#include <utility>

#include "io/posix/pipe_child_posix.hpp"
#include "io/sandbox/escapee_sweep_posix.hpp"
#include "io/sandbox/landlock_posix.hpp"
#include "util/unique_fd.hpp"

namespace aaw::detail {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Time a timed-out group gets between SIGTERM and SIGKILL: enough for a compiler driver to remove
// its temporaries, short enough not to hold up the daemon.
constexpr auto k_term_grace = std::chrono::milliseconds(1000);
// The same after a stop request (SIGTERM to the daemon): shorter, as whoever stops us is waiting.
constexpr auto k_stop_grace = std::chrono::milliseconds(300);
// How long to wait for end-of-file on the output once the child is gone and its group killed; only
// a process that left the group (setsid) can hold the pipe longer, and it is not waited for.
constexpr auto k_drain_after_exit = std::chrono::milliseconds(1000);
// The longest sleep between looks at the child while it writes nothing.
constexpr auto k_tick = std::chrono::milliseconds(50);
constexpr rlim_t k_max_open_files = 4096;
constexpr std::size_t k_chunk = 64 * 1024;

Error system_error(ErrorCode code, const std::string& what, int err) {
  return Error(code, what + ": " + std::strerror(err));
}

// A descriptor above 2: a daemon started with a closed stdin would otherwise get its pipe as fd 0,
// which the child's dup2 onto 0..2 would clobber.
UniqueFd above_stdio(int fd) {
  if (fd < 0 || fd > 2) return UniqueFd(fd);
  UniqueFd moved(::fcntl(fd, F_DUPFD_CLOEXEC, 3));
  ::close(fd);
  return moved;
}

struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

Result<Pipe> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return system_error(ErrorCode::io, "cannot create a pipe", errno);
  Pipe pipe{above_stdio(fds[0]), above_stdio(fds[1])};
  if (!pipe.read.valid() || !pipe.write.valid())
    return system_error(ErrorCode::io, "cannot create a pipe", errno);
  return pipe;
}

// argv or envp as execve wants them; owns the strings. Not movable: the pointers point into them.
class CStrings {
 public:
  explicit CStrings(const std::vector<std::string>& strings) : m_strings(strings) {
    for (auto& s : m_strings) m_pointers.push_back(s.data());
    m_pointers.push_back(nullptr);
  }
  CStrings(const CStrings&) = delete;
  CStrings& operator=(const CStrings&) = delete;
  char* const* get() const { return m_pointers.data(); }

 private:
  std::vector<std::string> m_strings;
  std::vector<char*> m_pointers;
};

// Sent through the status pipe when the child fails before exec.
struct ChildFailure {
  enum Stage : int { setup = 0, chdir_failed = 1, exec_failed = 2 };
  int stage = setup;
  int error = 0;
};

// What the child does between fork and exec, all computed beforehand.
struct ExecPlan {
  explicit ExecPlan(const ChildSpec& spec)
      : program(spec.program.string()),
        argv(spec.argv),
        envp(spec.environment),
        cwd(spec.cwd.string()),
        parent(::getpid()),
        drop_privileges(spec.drop_privileges),
        landlock(spec.landlock_ruleset.get()),
        user(spec.user) {
    rlimit current{};
    ::getrlimit(RLIMIT_NOFILE, &current);
    const rlim_t limit = std::min(current.rlim_max, k_max_open_files);
    open_files = {limit, limit};
    max_fd = static_cast<int>(std::min<rlim_t>(current.rlim_cur, 1 << 20));
    if (spec.address_space_bytes) {
      const auto bytes = static_cast<rlim_t>(*spec.address_space_bytes);
      address_space = rlimit{bytes, bytes};
    }
  }

  std::string program;
  CStrings argv;
  CStrings envp;
  std::string cwd;
  pid_t parent;
  bool drop_privileges;
  int landlock;  // a ruleset to restrict the child to, or -1
  std::optional<ChildUser> user;
  rlimit open_files{};
  std::optional<rlimit> address_space;
  int max_fd = 0;  // for closing descriptors where close_range is missing
};

[[noreturn]] void child_fail(int status_fd, int stage) {
  const ChildFailure failure{stage, errno};
  [[maybe_unused]] auto ignored = ::write(status_fd, &failure, sizeof failure);
  ::_exit(127);
}

void reset_signals() {
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &action, nullptr);  // SIGKILL etc. fail
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

// Leaves 0..2 and the status pipe (moved to 3, still close-on-exec) open, closes everything else.
void close_other_fds(const ExecPlan& plan, int status_fd) {
  if (status_fd != 3) {
    ::dup2(status_fd, 3);
    ::fcntl(3, F_SETFD, FD_CLOEXEC);
  }
  if (::close_range(4, UINT_MAX, 0) != 0) {
    for (int fd = 4; fd < plan.max_fd; ++fd) ::close(fd);
  }
}

// No way back to more privilege than now (setuid programs included), and as root no capability at
// all: raw system calls, as this runs between fork and exec.
bool shed_privileges() {
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  if (::geteuid() != 0) return true;
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  for (int cap = 0; cap <= 63; ++cap) ::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);  // past the last: EINVAL
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = {};
  return ::syscall(SYS_capset, &header, none) == 0;
}

// Runs in the forked child: async-signal-safe calls only.
[[noreturn]] void exec_child(const ExecPlan& plan, int in, int out, int status) {
  if (::setsid() < 0) child_fail(status, ChildFailure::setup);
  // First: a change of uid clears the parent-death signal.
  if (plan.user && !become(*plan.user)) child_fail(status, ChildFailure::setup);
  // Dies with us: a daemon killed with -9 leaves no build running (a grandchild may survive the
  // plain runner; under bubblewrap --die-with-parent takes the whole PID namespace down).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != plan.parent) ::_exit(127);
  reset_signals();
  if (::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(out, 2) < 0) child_fail(status, ChildFailure::setup);
  // Before the descriptors are closed: the ruleset is one of them. Landlock needs no_new_privs.
  if (plan.drop_privileges && !shed_privileges()) child_fail(status, ChildFailure::setup);
  if (plan.landlock >= 0 && !landlock_restrict_self(plan.landlock)) child_fail(status, ChildFailure::setup);
  close_other_fds(plan, status);
  status = 3;
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  ::setrlimit(RLIMIT_NOFILE, &plan.open_files);
  if (plan.address_space && ::setrlimit(RLIMIT_AS, &*plan.address_space) != 0)
    child_fail(status, ChildFailure::setup);
  if (::chdir(plan.cwd.c_str()) != 0) child_fail(status, ChildFailure::chdir_failed);
  ::execve(plan.program.c_str(), plan.argv.get(), plan.envp.get());
  child_fail(status, ChildFailure::exec_failed);
}

Error start_failure(const ChildSpec& spec, const ChildFailure& failure) {
  const std::string name = "cannot run '" + spec.program.string() + "'";
  switch (failure.stage) {
    case ChildFailure::chdir_failed:
      return system_error(ErrorCode::io, name + " in '" + spec.cwd.string() + "'", failure.error);
    case ChildFailure::exec_failed:
      return system_error(failure.error == ENOENT ? ErrorCode::not_found : ErrorCode::io, name,
                          failure.error);
    default:
      return system_error(ErrorCode::io, name + ": setting up the child", failure.error);
  }
}

// Copies the child's output to the log file. Past the limit the file keeps the first half of it and
// the last half, with a "[... N bytes omitted ...]" line between: a build prints its real error at
// the end, and build_failed details read the end. Until the limit is reached the file grows as
// the output comes (an operator can follow it); the last half is also kept in memory, and written
// over everything past the first half when the output ends.
class CappedLog {
 public:
  CappedLog(UniqueFd file, std::uint64_t limit)
      : m_file(std::move(file)),
        m_head(limit - limit / 2),
        m_tail_limit(static_cast<std::size_t>(limit / 2)) {}

  void write(const char* data, std::size_t size) {
    if (m_seen < m_head) {
      const auto kept = static_cast<std::size_t>(std::min<std::uint64_t>(m_head - m_seen, size));
      append_to_file(data, kept);
      m_seen += kept;
      data += kept;
      size -= kept;
    }
    if (size == 0) return;
    const std::uint64_t limit = m_head + m_tail_limit;
    if (m_seen < limit)
      append_to_file(data, static_cast<std::size_t>(std::min<std::uint64_t>(limit - m_seen, size)));
    m_seen += size;
    keep_in_tail(data, size);
  }

  // Rewrites everything past the first half as the marker and the last half when output was
  // omitted; true then.
  bool finish() {
    const std::uint64_t tail_seen = m_seen > m_head ? m_seen - m_head : 0;
    if (tail_seen <= m_tail_limit) return false;
    const std::string marker =
        "\n[... " + std::to_string(tail_seen - m_tail_limit) + " bytes omitted by aiter-api-watcher ...]\n";
    if (::ftruncate(m_file.get(), static_cast<off_t>(m_head)) != 0 || ::lseek(m_file.get(), 0, SEEK_END) < 0)
      return true;
    m_failed = false;
    append_to_file(marker.data(), marker.size());
    append_to_file(m_tail.data() + m_tail_start, m_tail.size() - m_tail_start);
    append_to_file(m_tail.data(), m_tail_start);
    return true;
  }

 private:
  // The last m_tail_limit bytes, in a ring: m_tail_start is the oldest byte once it is full.
  void keep_in_tail(const char* data, std::size_t size) {
    if (m_tail_limit == 0) return;
    if (size >= m_tail_limit) {
      m_tail.assign(data + size - m_tail_limit, data + size);
      m_tail_start = 0;
      return;
    }
    if (m_tail.size() < m_tail_limit) {
      const std::size_t room = std::min(m_tail_limit - m_tail.size(), size);
      m_tail.insert(m_tail.end(), data, data + room);
      data += room;
      size -= room;
    }
    while (size > 0) {
      const std::size_t n = std::min(size, m_tail_limit - m_tail_start);
      std::copy(data, data + n, m_tail.begin() + static_cast<std::ptrdiff_t>(m_tail_start));
      m_tail_start = (m_tail_start + n) % m_tail_limit;
      data += n;
      size -= n;
    }
  }

  void append_to_file(const char* data, std::size_t size) {
    if (!m_failed) m_failed = !write_all(data, size);
  }

  bool write_all(const char* data, std::size_t size) {
    while (size > 0) {
      const ssize_t n = ::write(m_file.get(), data, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;  // disk full: the rest of the output is lost, the build goes on
      data += n;
      size -= static_cast<std::size_t>(n);
    }
    return true;
  }

  UniqueFd m_file;
  std::uint64_t m_head;      // bytes kept from the start
  std::size_t m_tail_limit;  // bytes kept from the end
  std::uint64_t m_seen = 0;
  std::vector<char> m_tail;
  std::size_t m_tail_start = 0;
  bool m_failed = false;
};

// Exited children that are not ours: when we are PID 1 in a container, what a build left behind is
// reparented to us when its parent dies, and would stay a zombie. Only once
// our own child has been reaped, and only then: elsewhere orphans go to init, and a waitpid(-1)
// could take the status of a child another part of this process waits for.
// The members of `group` were just sent SIGKILL: death is asynchronous, so wait briefly until
// none is left (a zombie still counts as a member until reaped).
// As a subreaper of our own making (the plain runner) the sweep reaps what is ours: a waitpid(-1)
// there would take the status of children other code waits for.
void reap_orphans(pid_t group) {
  if (::getpid() != 1) return;
  const auto until = Clock::now() + std::chrono::milliseconds(500);
  int status = 0;
  for (;;) {
    while (::waitpid(-1, &status, WNOHANG) > 0) {
    }
    if (::kill(-group, 0) != 0 || Clock::now() >= until) return;  // ESRCH: the whole group is gone
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Watches one started child: output, exit, timeout, stop request.
class Supervisor {
 public:
  Supervisor(pid_t pid, UniqueFd output, CappedLog& log, Clock::time_point deadline,
             std::function<bool()> stop_requested, const std::set<pid_t>* sweep_before)
      : m_pid(pid),
        m_output(std::move(output)),
        m_log(log),
        m_deadline(deadline),
        m_stop_requested(std::move(stop_requested)),
        m_sweep_before(sweep_before) {
    ::fcntl(m_output.get(), F_SETFL, O_NONBLOCK);
  }

  SandboxResult run() {
    while (!leader_exited()) {
      enforce_deadline(Clock::now());
      wait_for_output(next_wakeup());
    }
    // The leader is a zombie until reaped, so its pid (the group id) cannot be reused yet: this
    // reaches only what it left behind in its group (`sleep 1000 &` in a build script).
    ::kill(-m_pid, SIGKILL);
    const int status = reap(m_pid);
    reap_orphans(m_pid);
    // Before draining: an escaped daemon holding the output would hold the drain up too.
    if (m_sweep_before) sweep_escapees(*m_sweep_before, k_drain_after_exit);
    drain_until_eof(Clock::now() + k_drain_after_exit);
    reap_orphans(m_pid);  // what died of the SIGKILL above meanwhile
    return result(status);
  }

 private:
  bool leader_exited() {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(m_pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == m_pid;
  }

  void enforce_deadline(Clock::time_point now) {
    if (!terminating() && now >= m_deadline) {
      m_timed_out = true;
      ::kill(-m_pid, SIGTERM);
      m_kill_at = now + k_term_grace;
    }
    if (!terminating() && m_stop_requested && m_stop_requested()) {
      m_cancelled = true;
      ::kill(-m_pid, SIGTERM);
      m_kill_at = now + k_stop_grace;
    }
    if (terminating() && !m_killed && now >= m_kill_at) {
      ::kill(-m_pid, SIGKILL);
      m_killed = true;
    }
  }

  Clock::time_point next_wakeup() const {
    Clock::time_point wake = Clock::now() + k_tick;
    if (!terminating()) wake = std::min(wake, m_deadline);
    if (terminating() && !m_killed) wake = std::min(wake, m_kill_at);
    return wake;
  }

  // Reads what is there, or waits until `until` for some.
  void wait_for_output(Clock::time_point until) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now());
    const int timeout_ms = static_cast<int>(std::max<long long>(left.count(), 0));
    if (!m_output.valid()) {
      ::poll(nullptr, 0, timeout_ms);
      return;
    }
    pollfd fd{m_output.get(), POLLIN, 0};
    if (::poll(&fd, 1, timeout_ms) > 0) read_available();
  }

  // Up to a bounded amount, so a child that writes without pause still has its deadline checked.
  void read_available() {
    char buffer[k_chunk];
    for (int i = 0; i < 16 && m_output.valid(); ++i) {
      const ssize_t n = ::read(m_output.get(), buffer, sizeof buffer);
      if (n > 0) {
        m_log.write(buffer, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n == 0 || errno != EAGAIN) m_output.reset();
      return;
    }
  }

  void drain_until_eof(Clock::time_point until) {
    while (m_output.valid() && Clock::now() < until) wait_for_output(until);
  }

  SandboxResult result(int status) const {
    SandboxResult r;
    if (WIFSIGNALED(status)) {
      r.outcome = SandboxResult::Outcome::signaled;
      r.signal = WTERMSIG(status);
    } else {
      r.exit_code = WEXITSTATUS(status);
    }
    if (m_timed_out) r.outcome = SandboxResult::Outcome::timed_out;
    if (m_cancelled) r.outcome = SandboxResult::Outcome::cancelled;
    return r;
  }

  bool terminating() const { return m_timed_out || m_cancelled; }

  pid_t m_pid;
  UniqueFd m_output;
  CappedLog& m_log;
  Clock::time_point m_deadline;
  std::function<bool()> m_stop_requested;
  const std::set<pid_t>* m_sweep_before;  // our children before the run; nullptr: no sweep
  Clock::time_point m_kill_at;
  bool m_timed_out = false;
  bool m_cancelled = false;
  bool m_killed = false;
};

}  // namespace

Result<SandboxResult> run_child(const ChildSpec& spec) {
  // Made afresh: a link a build planted at the log's name is removed, never written through.
  ::unlink(spec.log_file.c_str());
  UniqueFd log =
      above_stdio(::open(spec.log_file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!log.valid())
    return system_error(ErrorCode::io, "cannot open sandbox log '" + spec.log_file.string() + "'", errno);
  UniqueFd null = above_stdio(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!null.valid()) return system_error(ErrorCode::io, "cannot open '/dev/null'", errno);
  auto output = make_pipe();
  if (!output) return output.error();
  auto status = make_pipe();
  if (!status) return status.error();

  const ExecPlan plan(spec);
  std::set<pid_t> children_before;
  if (spec.sweep_escapees) {
    become_subreaper();
    children_before = current_children();
  }
  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) return system_error(ErrorCode::io, "cannot run '" + spec.program.string() + "': fork", errno);
  if (pid == 0) exec_child(plan, null.get(), output->write.get(), status->write.get());
  output->write.reset();
  status->write.reset();

  ChildFailure failure;
  ssize_t n = 0;
  do {
    n = ::read(status->read.get(), &failure, sizeof failure);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof failure)) {
    reap(pid);
    return start_failure(spec, failure);
  }

  CappedLog capped(std::move(log), spec.log_limit_bytes);
  SandboxResult result = Supervisor(pid, std::move(output->read), capped, start + spec.timeout,
                                    spec.stop_requested, spec.sweep_escapees ? &children_before : nullptr)
                             .run();
  result.log_truncated = capped.finish();
  result.timeout = spec.timeout;
  result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  return result;
}

Result<fs::path> find_program(const std::string& name, const std::string& path, const fs::path& cwd) {
  const auto runnable = [](const fs::path& candidate) {
    std::error_code ec;
    return fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) {
    const fs::path candidate = (cwd / name).lexically_normal();  // absolute `name` replaces cwd
    if (runnable(candidate)) return candidate;
    return Error(ErrorCode::not_found, "cannot run '" + name + "': no such executable file");
  }
  std::string_view rest = path;
  while (true) {
    const auto colon = rest.find(':');
    const std::string_view dir = rest.substr(0, colon);
    const fs::path candidate = (cwd / (dir.empty() ? "." : dir) / name).lexically_normal();
    if (runnable(candidate)) return candidate;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return Error(ErrorCode::not_found, "cannot run '" + name + "': not found in PATH '" + path + "'");
}

}  // namespace aaw::detail
