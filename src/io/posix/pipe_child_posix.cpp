#include "io/posix/pipe_child_posix.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "core/ports/sandbox.hpp"

extern char** environ;

namespace aaw::detail {

// write_all to a pipe whose reader may be gone, with SIGPIPE blocked in this thread only (the
// signal a failed write raises is directed at it) and taken back if it came: the other threads'
// handling of SIGPIPE stays what it was.
bool write_to_child(int fd, std::string_view text) {
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  sigset_t previous;
  ::pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
  const bool written = write_all(fd, text);
  const timespec no_wait{0, 0};
  while (::sigtimedwait(&pipe_signal, nullptr, &no_wait) > 0) {
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return written;
}

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

namespace {

// The helper's environment: ours (proxy settings, certificates, HOME for git config) without
// anything named like a secret (the git helper takes its token through stdin).
std::vector<std::string> helper_environment() {
  std::vector<std::string> out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    if (!is_secret_name(text.substr(0, text.find('=')))) out.emplace_back(text);
  }
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

Error system_failure(const std::string& what, int err) {
  return Error(ErrorCode::io, what + ": " + std::strerror(err));
}

}  // namespace

Result<PipeChild> spawn_pipe_child(const std::filesystem::path& program,
                                   const std::vector<std::string>& arguments, std::string_view what) {
  int in[2];
  int out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return system_failure("cannot create a pipe", errno);
  UniqueFd in_read(in[0]), in_write(in[1]);
  if (::pipe2(out, O_CLOEXEC) != 0) return system_failure("cannot create a pipe", errno);
  UniqueFd out_read(out[0]), out_write(out[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_read.get(), 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.get(), 1);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigset_t defaults;
  sigemptyset(&none);
  sigfillset(&defaults);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  // Its own process group: a Ctrl-C at the terminal reaches us, and we decide.
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

  std::vector<std::string> argv_strings = {program.string()};
  argv_strings.insert(argv_strings.end(), arguments.begin(), arguments.end());
  std::vector<std::string> env_strings = helper_environment();
  std::vector<char*> argv = pointers(argv_strings);
  std::vector<char*> envp = pointers(env_strings);
  PipeChild helper;
  const int rc = ::posix_spawn(&helper.pid, program.c_str(), &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) return system_failure("cannot run " + std::string(what) + " '" + program.string() + "'", rc);
  helper.input = std::move(in_write);
  helper.output = std::move(out_read);
  return helper;
}

int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

std::int64_t peak_rss_kb(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (!line.starts_with("VmHWM:")) continue;
    std::int64_t kb = 0;
    std::istringstream(line.substr(6)) >> kb;
    return kb;
  }
  return 0;
}

std::string describe_exit(int status) {
  if (status == -1) return "ended unseen (its exit status was not ours to wait for)";
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace aaw::detail
