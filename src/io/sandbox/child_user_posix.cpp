// The forked helpers here (user_may_access, kill_processes_of) run in a multithreaded daemon:
// between fork and _exit they call only async-signal-safe functions.
#include "io/sandbox/child_user_posix.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <vector>

#include "io/posix/pipe_child_posix.hpp"
#include "util/hash.hpp"
#include "util/unique_fd.hpp"

namespace aaw::detail {
namespace {

namespace fs = std::filesystem;

constexpr uid_t k_nobody = 65534;
// Deeper than this, a tree is not one a checkout or a build makes: handing it over fails.
constexpr int k_max_depth = 512;

std::optional<unsigned long> number(std::string_view text) {
  unsigned long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value > 0xFFFFFFFEul) return std::nullopt;
  return value;
}

Result<ChildUser> named_user(const std::string& name) {
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  const int rc = ::getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found);
  if (rc != 0 || found == nullptr)
    return Error(ErrorCode::invalid_input, "sandbox.run_as: no user '" + name + "' on this machine" +
                                               (rc != 0 ? std::string(" (") + std::strerror(rc) + ")" : ""));
  return ChildUser{found->pw_uid, found->pw_gid, name + " (uid " + std::to_string(found->pw_uid) + ")"};
}

Result<ChildUser> given_user(const std::string& run_as) {
  const auto colon = run_as.find(':');
  const auto uid = number(std::string_view(run_as).substr(0, colon));
  if (!uid) {
    if (colon != std::string::npos)
      return Error(ErrorCode::invalid_input,
                   "sandbox.run_as '" + run_as + "' is not a user name, UID or UID:GID");
    return named_user(run_as);
  }
  auto gid = colon == std::string::npos ? uid : number(std::string_view(run_as).substr(colon + 1));
  if (!gid)
    return Error(ErrorCode::invalid_input,
                 "sandbox.run_as '" + run_as + "' is not a user name, UID or UID:GID");
  return ChildUser{static_cast<uid_t>(*uid), static_cast<gid_t>(*gid), "uid " + std::to_string(*uid)};
}

bool has_passwd_entry(uid_t uid) {
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  return ::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr;
}

ChildUser own_user(const fs::path& state_dir) {
  fs::path dir = state_dir.lexically_normal();
  if (!dir.has_filename() && dir.has_parent_path()) dir = dir.parent_path();  // "a/b/" is "a/b"
  const auto start = static_cast<uid_t>(fnv1a_64(dir.string()) % k_auto_uids);
  uid_t uid = k_auto_first_uid + start;
  for (uid_t i = 0; i < k_auto_uids && has_passwd_entry(uid); ++i)
    uid = k_auto_first_uid + (start + i + 1) % k_auto_uids;
  return ChildUser{uid, uid, "uid " + std::to_string(uid)};
}

Error hand_over_error(const fs::path& path, int err) {
  return Error(ErrorCode::io,
               "cannot hand '" + path.string() + "' over to the sandbox's user: " + std::strerror(err));
}

bool owned_by(const struct stat& st, const ChildUser& user) {
  return st.st_uid == user.uid && st.st_gid == user.gid;
}

// `dir` is open (O_NOFOLLOW) on `path`: its entries, then itself.
Result<void> hand_over_open(int dir, const fs::path& path, const ChildUser& user, int depth) {
  if (depth > k_max_depth)
    return Error(ErrorCode::io, "cannot hand '" + path.string() +
                                    "' over to the sandbox's user: deeper than " +
                                    std::to_string(k_max_depth) + " directories");
  std::vector<std::string> names;
  {
    const int listed = ::fcntl(dir, F_DUPFD_CLOEXEC, 0);
    DIR* stream = listed < 0 ? nullptr : ::fdopendir(listed);
    if (stream == nullptr) {
      if (listed >= 0) ::close(listed);
      return hand_over_error(path, errno);
    }
    while (const dirent* entry = ::readdir(stream)) {
      const std::string_view name = entry->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
    }
    ::closedir(stream);
  }
  for (const std::string& name : names) {
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;
      return hand_over_error(path / name, errno);
    }
    if (S_ISDIR(st.st_mode)) {
      UniqueFd child(::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!child.valid()) return hand_over_error(path / name, errno);
      if (auto done = hand_over_open(child.get(), path / name, user, depth + 1); !done) return done;
      if (!owned_by(st, user) && ::fchown(child.get(), user.uid, user.gid) != 0)
        return hand_over_error(path / name, errno);
      continue;
    }
    if (owned_by(st, user) || st.st_nlink > 1) continue;
    if (::fchownat(dir, name.c_str(), user.uid, user.gid, AT_SYMLINK_NOFOLLOW) != 0 && errno != ENOENT)
      return hand_over_error(path / name, errno);
  }
  return {};
}

}  // namespace

bool become(const ChildUser& user) {
  return ::setgroups(0, nullptr) == 0 && ::setresgid(user.gid, user.gid, user.gid) == 0 &&
         ::setresuid(user.uid, user.uid, user.uid) == 0;
}

Result<std::optional<ChildUser>> resolve_run_as(const std::string& run_as, uid_t euid,
                                                const fs::path& state_dir) {
  if (run_as == "daemon" || (run_as == "auto" && euid != 0)) return std::optional<ChildUser>();
  if (run_as == "auto") return std::optional<ChildUser>(own_user(state_dir));
  if (run_as.empty())
    return Error(ErrorCode::invalid_input,
                 "sandbox.run_as is empty (expected auto, daemon, a user, UID or UID:GID)");
  auto user = given_user(run_as);
  if (!user) return user.error();
  if (euid != 0)
    return Error(ErrorCode::invalid_input, "sandbox.run_as '" + run_as +
                                               "' needs the daemon to run as root, and it runs as uid " +
                                               std::to_string(euid) + " (use auto or daemon)");
  if (user->uid == 0)
    return Error(ErrorCode::invalid_input,
                 "sandbox.run_as '" + run_as + "' is root: builds would own everything");
  if (user->uid == k_nobody)
    return Error(ErrorCode::invalid_input,
                 "sandbox.run_as '" + run_as +
                     "' is nobody, which other services share: every process of the sandbox's user is killed "
                     "after each run, so it needs a uid of its own");
  return std::optional<ChildUser>(std::move(*user));
}

bool user_may_access(const ChildUser& user, const fs::path& path, int mode) {
  const std::string text = path.string();
  const pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) _exit(become(user) && ::access(text.c_str(), mode) == 0 ? 0 : 1);
  const int status = reap(pid);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

Result<void> hand_over(const fs::path& dir, const ChildUser& user) {
  UniqueFd top(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!top.valid()) return hand_over_error(dir, errno);
  if (auto done = hand_over_open(top.get(), dir, user, 0); !done) return done;
  struct stat st {};
  if (::fstat(top.get(), &st) != 0) return hand_over_error(dir, errno);
  if (!owned_by(st, user) && ::fchown(top.get(), user.uid, user.gid) != 0) return hand_over_error(dir, errno);
  return {};
}

void kill_processes_of(const ChildUser& user) {
  const pid_t pid = ::fork();
  if (pid < 0) return;
  if (pid == 0) {
    if (!become(user)) _exit(1);
    // kill(-1) reaches every process of ours but this one; again, for a fork that raced the first.
    const timespec pause{0, 5'000'000};
    for (int round = 0; round < 5 && ::kill(-1, SIGKILL) == 0; ++round) ::nanosleep(&pause, nullptr);
    _exit(0);
  }
  reap(pid);
}

}  // namespace aaw::detail
