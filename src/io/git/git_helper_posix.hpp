// The git helper: one clone, fetch or ls-remote of the mirror, in a child process (this binary's
// hidden `__git` subcommand). libgit2 1.5 has no network timeout and cannot be interrupted while it
// waits on a socket, so the mirror (libgit2_mirror.hpp) runs every operation that talks to the
// remote here: a remote that accepts and never answers is abandoned after the stall timeout, and a
// stop request (SIGTERM) kills the helper at once.
//
// Protocol: the parent writes one JSON request on the helper's stdin (the token travels there,
// never in argv or the environment) and closes it; the helper writes a "progress" line whenever the
// remote sent something (at most a few a second) and ends with one "result <JSON>" line.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>

#include "io/git/libgit2_remote.hpp"

namespace aaw {

// The helper's side, for `__git`: reads the request on stdin, runs it, reports on stdout. Dies
// with its parent, and is not dumpable (the token is in its memory). Returns the exit code: 0 when a
// result line was written (the result may be an error), 2 when the request was unreadable.
int run_git_helper();

}  // namespace aaw

namespace aaw::detail {

// The parent's side, for the mirror.
struct HelperOptions {
  std::filesystem::path program;                      // run as `PROGRAM __git`
  std::optional<std::chrono::seconds> stall_timeout;  // none: as long as it takes
  std::function<bool()> stop_requested;               // empty: never
};

// run_remote(request) in a helper process: the same results, plus network ("... sent nothing for
// N s") when the remote is silent past the stall timeout, cancelled when stop_requested() turned
// true (the helper is killed in both cases, at once), and io when the helper cannot be started or
// dies without a result.
Result<std::optional<ObjectId>> run_remote_in_helper(const RemoteRequest& request,
                                                     const HelperOptions& options);

}  // namespace aaw::detail
