// `watch` (continuous monitoring) and `replay C1 C2 ...` (then monitoring, unless --once), and the
// original script's behaviour without a subcommand: compare_pair -> compare and exit;
// commit_list -> replay then monitor; else monitor.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "cli/command.hpp"

namespace aaw::cli {

struct WatchOptions {
  std::filesystem::path config_path;
  bool once = false;
  std::string extractor;
  std::vector<std::string> commits;  // replay only
};

void add_watch_command(CLI::App& app, Commands& commands);
void add_replay_command(CLI::App& app, Commands& commands);

int run_watch(const WatchOptions& options, Runtime& runtime);
int run_replay(const WatchOptions& options, Runtime& runtime);
// No subcommand: what the original script did with this config.
int run_original_mode(const std::filesystem::path& config_path, Runtime& runtime);

}  // namespace aaw::cli
