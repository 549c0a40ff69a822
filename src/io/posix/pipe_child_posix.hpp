// Internal to src/io/: a helper process of this binary (`PROGRAM SUBCOMMAND ARGS...`) talking over
// its stdin and stdout, as the git helper and the process that parses ahead are.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace aaw::detail {

// A started helper: its pid, the write end of its stdin and the read end of its stdout.
struct PipeChild {
  pid_t pid = -1;
  UniqueFd input;
  UniqueFd output;
};

// `program` run with `arguments` (argv[1...]), in its own process group, with default signal
// handling, no other descriptor inherited and our environment minus anything named like a secret.
// `what` names it in the error when it cannot be started.
Result<PipeChild> spawn_pipe_child(const std::filesystem::path& program,
                                   const std::vector<std::string>& arguments, std::string_view what);

// Writes all of `text`; false on any failure.
bool write_all(int fd, std::string_view text);
// write_all to a pipe whose reader may be gone: a SIGPIPE the write raises is taken back, so the
// daemon's handling of it stays what it was.
bool write_to_child(int fd, std::string_view text);
// waitpid's status, waiting as long as it takes; -1 (neither exited nor signalled) when there is
// none to have: the child was reaped elsewhere, or SIGCHLD is ignored.
int reap(pid_t pid);
// The peak resident memory of a running process (VmHWM in /proc/PID/status), in KiB; 0 when it
// cannot be read (not Linux, or no such process).
std::int64_t peak_rss_kb(pid_t pid);
// "exited with status N" / "was killed by signal N".
std::string describe_exit(int status);

}  // namespace aaw::detail
