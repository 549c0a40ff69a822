// `completion bash|zsh|fish`: prints a completion script made from the command line itself (every
// subcommand, its options and the values they accept), so it never falls behind the binary.
//   source <(aiter-api-watcher completion bash)        # bash, or zsh after compinit
//   aiter-api-watcher completion fish | source
#pragma once

#include <string>

#include "cli/command.hpp"

namespace aaw::cli {

void add_completion_command(CLI::App& app, Commands& commands);

// The completion scripts for `app` (its visible subcommands and options).
std::string bash_completion(const CLI::App& app);
std::string zsh_completion(const CLI::App& app);
std::string fish_completion(const CLI::App& app);

}  // namespace aaw::cli
