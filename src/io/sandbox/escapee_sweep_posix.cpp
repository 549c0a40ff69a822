#include "io/sandbox/escapee_sweep_posix.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "io/posix/pipe_child_posix.hpp"

namespace aaw::detail {
namespace {

using Clock = std::chrono::steady_clock;

// The parent of `pid` (field 4 of /proc/<pid>/stat), or -1 when it is gone.
pid_t parent_of(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string text;
  std::getline(in, text);
  const auto close = text.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos || close + 4 >= text.size()) return -1;
  const std::string rest = text.substr(close + 4);  // past ") S "
  try {
    return static_cast<pid_t>(std::stol(rest));
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace

void become_subreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 1); }

std::set<pid_t> current_children() {
  std::set<pid_t> children;
  const pid_t self = ::getpid();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (parent_of(name) == self) children.insert(static_cast<pid_t>(std::stol(name)));
  }
  return children;
}

int sweep_escapees(const std::set<pid_t>& before, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  const pid_t our_group = ::getpgrp();
  int killed = 0;
  for (;;) {
    bool found = false;
    for (const pid_t pid : current_children()) {
      if (before.count(pid)) continue;
      found = true;
      const pid_t group = ::getpgid(pid);
      if (group > 0 && group != our_group) ::kill(-group, SIGKILL);
      if (::kill(pid, SIGKILL) == 0) ++killed;
      reap(pid);
    }
    if (!found || Clock::now() >= deadline) return killed;
    // Their children are reparented here as they die: look again.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace aaw::detail
