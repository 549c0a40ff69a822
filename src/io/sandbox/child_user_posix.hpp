// Internal to src/io/sandbox/: the user a root daemon's children run as (sandbox.run_as). Root
// without a capability still owns every file root owns: a build running so could rewrite the store,
// the mirror or /etc. Under a uid of their own, builds and imports can write only what that uid
// owns (the work tree, the venv and the sandbox directory, handed over before each run) and
// world-writable directories, cannot read files only root may read (the token file), and every
// process they leave can be found by its uid and killed.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

#include "util/result.hpp"

namespace aaw::detail {

struct ChildUser {
  uid_t uid = 0;
  gid_t gid = 0;
  std::string name;  // for messages: "uid 61234", "aaw-build (uid 1001)", "root"
};

// `auto` gives a root daemon's children a uid (and the same gid) of their own, derived from the
// state directory: another daemon on the machine, with another state directory, gets another, so
// that a build of one can neither rewrite the other's work tree nor be killed with its processes.
// It lies in Debian's 60000-64999 range (allocated only on demand) and is never a uid with a
// passwd entry.
constexpr uid_t k_auto_first_uid = 60000;
constexpr uid_t k_auto_uids = 5000;

// The user sandbox.run_as names for a daemon whose effective uid is `euid` and whose state
// directory is `state_dir`: nullopt means the daemon's own. "auto": a uid of their own (above)
// when euid is 0, else nullopt; "daemon": nullopt; a user name (its passwd entry's uid and gid),
// "UID" (gid the same) or "UID:GID". invalid_input naming the value: a user that does not exist,
// root, nobody (65534, shared by other services), or any user when the daemon is not root (it
// cannot switch).
Result<std::optional<ChildUser>> resolve_run_as(const std::string& run_as, uid_t euid,
                                                const std::filesystem::path& state_dir);

// In a forked child about to exec: drops every supplementary group and takes the user's gid and
// uid, for good. Async-signal-safe. False when the kernel refused.
bool become(const ChildUser& user);

// Whether `user` may access `path` with `mode` (access(2)'s R_OK, W_OK, X_OK): asked by a forked
// process that has taken the user's uid and gid, so every directory above, ACLs included, counts.
bool user_may_access(const ChildUser& user, const std::filesystem::path& path, int mode);

// Makes `dir` and everything under it belong to `user`: links themselves (never followed), and
// never a file with more than one link (a hard link a build made to a file elsewhere would hand
// that file over too). Nothing of `user` may run meanwhile (kill_processes_of first), so no entry
// changes under the walk. io naming the path that could not be handed over.
Result<void> hand_over(const std::filesystem::path& dir, const ChildUser& user);

// SIGKILL to every process running as `user`, from a forked process that has taken its uid: what a
// build left behind, wherever it went (another session, another parent, a daemon killed before it
// could sweep). REQUIRES: user.uid is neither 0 nor ours, and no other run of this user is under way.
void kill_processes_of(const ChildUser& user);

}  // namespace aaw::detail
