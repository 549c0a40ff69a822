// `completion bash`: prints a bash completion script made from the command line itself (every
// subcommand, its options and the values they accept), so it never falls behind the binary.
//   source <(aiter-api-watcher completion bash)
#pragma once

#include <string>

#include "cli/command.hpp"

namespace aaw::cli {

void add_completion_command(CLI::App& app, Commands& commands);

// The bash completion script for `app` (its visible subcommands and options).
std::string bash_completion(const CLI::App& app);

}  // namespace aaw::cli
