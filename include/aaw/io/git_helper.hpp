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

namespace aaw {

// The helper's side, for `__git`: reads the request on stdin, runs it, reports on stdout. Dies
// with its parent, and is not dumpable (the token is in its memory). Returns the exit code: 0 when a
// result line was written (the result may be an error), 2 when the request was unreadable.
int run_git_helper();

}  // namespace aaw
