// Landlock through raw system calls: Debian 12's headers stop at ABI 2 and glibc has no wrappers,
// so the structures and the rights of later ABIs are spelled here as the kernel defines them
// (include/uapi/linux/landlock.h). An older kernel is given a structure of the size it knows.
#include "io/sandbox/landlock_posix.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <system_error>

namespace aaw::detail {
namespace {

namespace fs = std::filesystem;

#ifndef SYS_landlock_create_ruleset
constexpr long SYS_landlock_create_ruleset = 444;
constexpr long SYS_landlock_add_rule = 445;
constexpr long SYS_landlock_restrict_self = 446;
#endif

constexpr std::uint32_t k_create_ruleset_version = 1u << 0;
constexpr int k_rule_path_beneath = 1;

// Filesystem rights (ABI 1 unless said).
constexpr std::uint64_t k_execute = 1ull << 0;
constexpr std::uint64_t k_write_file = 1ull << 1;
constexpr std::uint64_t k_read_file = 1ull << 2;
constexpr std::uint64_t k_read_dir = 1ull << 3;
constexpr std::uint64_t k_refer = 1ull << 13;      // ABI 2
constexpr std::uint64_t k_truncate = 1ull << 14;   // ABI 3
constexpr std::uint64_t k_ioctl_dev = 1ull << 15;  // ABI 5
// Network rights (ABI 4) and scopes (ABI 6).
constexpr std::uint64_t k_bind_tcp = 1ull << 0;
constexpr std::uint64_t k_connect_tcp = 1ull << 1;
constexpr std::uint64_t k_scope_abstract_unix_socket = 1ull << 0;
constexpr std::uint64_t k_scope_signal = 1ull << 1;

// The rights a rule on a file (not a directory) may hold.
constexpr std::uint64_t k_file_rights = k_execute | k_write_file | k_read_file | k_truncate | k_ioctl_dev;
constexpr std::uint64_t k_read_rights = k_execute | k_read_file | k_read_dir;

// Device files every build may read and write; the GPU's, which ROCm opens and ioctls at import
// (as bubblewrap binds them), only where they exist.
const char* const k_devices[] = {"/dev/null",    "/dev/zero", "/dev/full", "/dev/random",
                                 "/dev/urandom", "/dev/tty",  "/dev/kfd",  "/dev/dri"};

struct RulesetAttr {
  std::uint64_t handled_access_fs = 0;
  std::uint64_t handled_access_net = 0;  // ABI 4
  std::uint64_t scoped = 0;              // ABI 6
};

struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

std::uint64_t fs_rights(int abi) {
  std::uint64_t rights = (1ull << 13) - 1;  // ABI 1: execute .. make_sym
  if (abi >= 2) rights |= k_refer;
  if (abi >= 3) rights |= k_truncate;
  if (abi >= 5) rights |= k_ioctl_dev;
  return rights;
}

// The size of RulesetAttr an `abi` kernel reads: it refuses fields it does not know.
std::size_t attr_size(int abi) {
  if (abi >= 6) return sizeof(RulesetAttr);
  if (abi >= 4) return offsetof(RulesetAttr, scoped);
  return offsetof(RulesetAttr, handled_access_net);
}

Error landlock_error(const std::string& what, int err) {
  return Error(ErrorCode::io, "Landlock: " + what + ": " + std::strerror(err));
}

class RulesetBuilder {
 public:
  RulesetBuilder(int ruleset, std::uint64_t handled) : m_ruleset(ruleset), m_handled(handled) {}

  // Grants `access` at and beneath `path` (on a file: its file rights only). A path that does not
  // exist is skipped: nothing there to grant.
  Result<void> grant(const fs::path& path, std::uint64_t access) {
    UniqueFd fd(::open(path.c_str(), O_PATH | O_CLOEXEC));
    if (!fd.valid()) return {};
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return {};
    PathBeneathAttr rule{access & m_handled, fd.get()};
    if (!S_ISDIR(st.st_mode)) rule.allowed_access &= k_file_rights;
    if (rule.allowed_access == 0) return {};
    if (::syscall(SYS_landlock_add_rule, m_ruleset, k_rule_path_beneath, &rule, 0) != 0)
      return landlock_error("cannot add a rule for '" + path.string() + "'", errno);
    return {};
  }

  // Grants `access` to everything at or beneath `dir` except what is at or beneath `hidden`:
  // where a hidden path lies beneath, each entry of `dir` is granted on its own instead, except the
  // one leading there. A link needs no rule (the kernel checks its target where the target is).
  Result<void> grant_except(const fs::path& dir, const std::vector<fs::path>& hidden, std::uint64_t access) {
    bool above_hidden = false;
    for (const fs::path& path : hidden) {
      if (path == dir) return {};
      const fs::path rel = path.lexically_relative(dir);
      if (!rel.empty() && *rel.begin() != "..") above_hidden = true;
    }
    if (!above_hidden) return grant(dir, access);
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_symlink(ec)) continue;
      if (auto granted = grant_except(it->path(), hidden, access); !granted) return granted;
    }
    return {};
  }

 private:
  int m_ruleset;
  std::uint64_t m_handled;
};

std::vector<fs::path> canonical_paths(const std::vector<fs::path>& paths) {
  std::vector<fs::path> out;
  for (const fs::path& path : paths) {
    std::error_code ec;
    const fs::path real = fs::weakly_canonical(fs::absolute(path), ec);
    out.push_back(ec ? path.lexically_normal() : real);
  }
  return out;
}

}  // namespace

int landlock_abi(std::string* why) {
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, k_create_ruleset_version);
  if (abi > 0) return static_cast<int>(abi);
  if (why != nullptr) {
    const int err = errno;
    if (err == ENOSYS)
      *why = "this kernel has no Landlock (Linux 5.13 or later), or a seccomp filter refuses it";
    else if (err == EOPNOTSUPP)
      *why = "Landlock is not enabled at boot (lsm= on the kernel command line)";
    else
      *why = std::string("Landlock is refused here: ") + std::strerror(err);
  }
  return 0;
}

std::string landlock_coverage(int abi, bool network) {
  std::string text = "filesystem";
  if (!network && abi >= 4) text += ", TCP";
  if (abi >= 6) text += ", signals, abstract sockets";
  return text;
}

Result<UniqueFd> make_landlock_ruleset(const LandlockPolicy& policy, int abi) {
  RulesetAttr attr;
  attr.handled_access_fs = fs_rights(abi);
  if (abi >= 4 && !policy.network) attr.handled_access_net = k_bind_tcp | k_connect_tcp;  // no rule: none
  if (abi >= 6) attr.scoped = k_scope_abstract_unix_socket | k_scope_signal;
  UniqueFd ruleset(static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, attr_size(abi), 0)));
  if (!ruleset.valid())
    return landlock_error("cannot create a ruleset (ABI " + std::to_string(abi) + ")", errno);
  RulesetBuilder rules(ruleset.get(), attr.handled_access_fs);
  if (auto granted = rules.grant_except("/", canonical_paths(policy.hidden), k_read_rights); !granted)
    return granted.error();
  for (const fs::path& dir : canonical_paths(policy.readable)) {
    if (auto granted = rules.grant(dir, k_read_rights); !granted) return granted.error();
  }
  for (const fs::path& dir : canonical_paths(policy.writable)) {
    if (auto granted = rules.grant(dir, attr.handled_access_fs); !granted) return granted.error();
  }
  for (const char* device : k_devices) {
    if (auto granted = rules.grant(device, k_read_rights | k_write_file | k_truncate | k_ioctl_dev); !granted)
      return granted.error();
  }
  return ruleset;
}

bool landlock_restrict_self(int ruleset) { return ::syscall(SYS_landlock_restrict_self, ruleset, 0) == 0; }

}  // namespace aaw::detail
