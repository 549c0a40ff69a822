// `status [--check] [--format text|json]`: what the daemon last did, read from state_dir alone
// (never the network, never creating anything): the last poll and its result, the remote head, the
// last processed commit, the commits between them (from the mirror, when there is one), the
// outbox (pending, delivered, failed with their errors) and the last error. With --check the exit
// code says whether the daemon is healthy: 0 when its last successful poll is at most three
// check intervals old, 1 when it is older or there never was one (for a container HEALTHCHECK).
#pragma once

#include <filesystem>
#include <string>

#include "cli/command.hpp"

namespace aaw::cli {

struct StatusOptions {
  std::filesystem::path config_path;
  bool check = false;
  std::string format = "text";
};

void add_status_command(CLI::App& app, Commands& commands);

// Returns 0, or 1 for --check when the daemon looks stale; errors throw CommandError (exit 2).
int run_status(const StatusOptions& options);

}  // namespace aaw::cli
