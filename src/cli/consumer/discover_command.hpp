// `discover --consumer PATH [--package aiter] [--write-config F] [--format text|json]`: what a
// consumer calls in the package, as one functions_to_monitor entry per function with its call
// sites; modules, classes and constants apart. --write-config writes a complete config.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "cli/command.hpp"

namespace aaw::cli {

struct DiscoverOptions {
  std::filesystem::path config_path;  // read only when --consumer is not given
  std::filesystem::path consumer;
  std::string package;               // empty: the config's consumer.package, else "aiter"
  std::vector<std::string> exclude;  // globs, with the config's consumer.exclude when it is read
  std::filesystem::path write_config;
  std::string format = "text";
};

void add_discover_command(CLI::App& app, Commands& commands);

// Returns the exit code: 0 scanned, 2 error.
int run_discover(const DiscoverOptions& options, Runtime& runtime);

}  // namespace aaw::cli
