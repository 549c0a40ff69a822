// Landlock (Linux 5.13 and later): confinement that needs neither privilege nor a namespace, so it
// still holds inside a container started with `docker run` defaults, where the default seccomp
// profile refuses the user namespaces bubblewrap needs. A ruleset is made in the daemon before
// fork() and applied by the child between fork and exec, once no_new_privs is set.
//
// Landlock only grants: a path is reachable when a rule covers it or one of its parents. "All of
// `/` except these" is therefore spelled as rules on every sibling of each directory on the way to
// a hidden path, never on the hidden path or its parents.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace aaw::detail {

// The Landlock ABI version this kernel offers (1 in 5.13; 4 adds TCP rules, 6 signal and
// abstract-socket scoping), or 0 when there is none: an older kernel, Landlock not enabled at boot,
// or a seccomp filter refusing the system call. `why` gets the reason for 0.
int landlock_abi(std::string* why = nullptr);

struct LandlockPolicy {
  // Nothing at or beneath these can be read, written or executed (the token file, the state
  // directory); everything else under `/` can be read and executed.
  std::vector<std::filesystem::path> hidden;
  // Read, write, create, remove, rename and execute at or beneath these, hidden or not.
  std::vector<std::filesystem::path> writable;
  // Read and execute at or beneath these, hidden or not (the mirror, for a checkout).
  std::vector<std::filesystem::path> readable;
  // false: no TCP connect or bind at all (needs ABI 4; below it the network stays on).
  bool network = true;
};

// The access a ruleset made for `abi` enforces, for a message: "filesystem, TCP, signals".
std::string landlock_coverage(int abi, bool network);

// A ruleset enforcing `policy` with what `abi` offers: every filesystem access right it knows is
// handled, device files a build needs (/dev/null, /dev/zero, /dev/urandom, ..., the GPU's /dev/kfd
// and /dev/dri) stay writable, and from ABI 6 the child can neither signal nor reach through an
// abstract socket a process outside its domain (the daemon). Paths that do not exist are skipped.
// io when the kernel refuses the ruleset or a rule.
Result<UniqueFd> make_landlock_ruleset(const LandlockPolicy& policy, int abi);

// Restricts the calling thread (and all it will exec) to `ruleset`: a raw system call, safe
// between fork and exec. no_new_privs must be set already. false on failure (errno set).
bool landlock_restrict_self(int ruleset);

}  // namespace aaw::detail
