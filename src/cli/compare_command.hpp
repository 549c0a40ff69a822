// `compare OLD NEW`: the states of every monitored function at two commits, printed as log lines
// (text), the contract's JSON, or Markdown. Also the original tool's mode 3 (compare_pair).
#pragma once

#include <filesystem>
#include <string>

#include "command.hpp"

namespace aaw::cli {

struct CompareOptions {
  std::filesystem::path config_path;
  std::string old_revision;  // any revision git rev-parse accepts for one commit
  std::string new_revision;
  std::string format = "text";
  std::string fail_on = "any";
  std::string extractor;       // empty: the config's
  bool original_mode = false;  // run as the original script did: startup lines, no subcommand
};

void add_compare_command(CLI::App& app, Commands& commands);

// Returns the exit code: 0 nothing changed, 1 changes found, 2 error.
int run_compare(const CompareOptions& options, Runtime& runtime);

}  // namespace aaw::cli
