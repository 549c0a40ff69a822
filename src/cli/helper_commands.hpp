// Hidden subcommands that run this binary as a helper process of the daemon, never typed by a user:
// `__git` (one clone, fetch or ls-remote of the mirror: io/git/git_helper_posix.hpp) and `__checkout REQUEST
// RESULT` (one checkout of the work tree, confined in the sandbox: io/git/libgit2_work_tree.hpp).
#pragma once

#include "cli/command.hpp"

namespace aaw::cli {

void add_git_helper_command(CLI::App& app, Commands& commands);
void add_checkout_command(CLI::App& app, Commands& commands);
void add_summary_worker_command(CLI::App& app, Commands& commands);

}  // namespace aaw::cli
