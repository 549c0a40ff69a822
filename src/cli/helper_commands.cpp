#include "cli/helper_commands.hpp"

#include <sys/prctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <memory>
#include <utility>

#include "cli/command_context.hpp"
#include "extract/static/static_extractor.hpp"
#include "extract/static/summary_worker.hpp"
#include "io/git/git_helper_posix.hpp"
#include "io/git/libgit2_mirror.hpp"
#include "io/git/libgit2_work_tree.hpp"
#include "io/posix/fd_line_input_posix.hpp"

namespace aaw::cli {

void add_git_helper_command(CLI::App& app, Commands& commands) {
  // An empty group hides the subcommand from --help.
  CLI::App* cmd = app.add_subcommand("__git", "Clone, fetch or ls-remote for the mirror (internal)");
  cmd->group("");
  commands.on(cmd, [](AppContext&) { return run_git_helper(); });
}

void add_checkout_command(CLI::App& app, Commands& commands) {
  auto paths = std::make_shared<std::pair<std::filesystem::path, std::filesystem::path>>();
  CLI::App* cmd = app.add_subcommand("__checkout", "Check out the work tree in the sandbox (internal)");
  cmd->group("");
  cmd->add_option("REQUEST", paths->first, "Request file written by the work tree")->required();
  cmd->add_option("RESULT", paths->second, "Where to write the outcome")->required();
  commands.on(cmd, [paths](AppContext&) {
    auto done = run_checkout_child(paths->first, paths->second);
    if (!done) throw CommandError{done.error().message()};
    return 0;
  });
}

void add_summary_worker_command(CLI::App& app, Commands& commands) {
  auto repository = std::make_shared<std::filesystem::path>();
  CLI::App* cmd = app.add_subcommand("__summaries", "Parse ahead of a replay (internal)");
  cmd->group("");
  cmd->add_option("REPOSITORY", *repository, "The mirror to read")->required();
  commands.on(cmd, [repository](AppContext& context) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the daemon
    std::ios::sync_with_stdio(false);
    auto mirror = open_checkout(*repository);
    if (!mirror) throw CommandError{mirror.error().message()};
    StaticExtractor extractor(context.runtime.python());
    auto input = make_fd_line_input(STDIN_FILENO);
    return run_summary_worker(**mirror, extractor, *input, std::cout);
  });
}

}  // namespace aaw::cli
