#include "helper_commands.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <utility>

#include "aaw/io/git_helper.hpp"
#include "aaw/io/libgit2_work_tree.hpp"
#include "command_context.hpp"

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

}  // namespace aaw::cli
