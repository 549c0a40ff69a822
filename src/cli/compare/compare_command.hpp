// `compare OLD NEW`: the states of every monitored function at two commits, gated by levels and
// waivers, printed as log lines (text), the compare document (JSON), Markdown, SARIF or GitHub
// workflow commands, with a job summary on request. Also the original tool's mode 3 (compare_pair).
#pragma once

#include <filesystem>
#include <string>

#include "cli/command.hpp"

namespace aaw::cli {

struct CompareOptions {
  std::filesystem::path config_path;
  std::string old_revision;  // any revision git rev-parse accepts for one commit
  std::string new_revision;
  std::string format = "text";
  std::string fail_on = "any";
  std::string extractor;               // empty: the config's
  std::filesystem::path summary_path;  // --summary: append the Markdown job summary here
  std::filesystem::path sarif_path;    // --sarif: also write SARIF here
  std::filesystem::path waivers_path;  // --waivers: this file instead of the ones looked for
  bool strict_waivers = false;         // an unused waiver fails the gate (exit 1)
  bool suggest_waivers = false;        // stdout: waiver entries to paste instead of the document
  bool merge_base = false;             // OLD is BASE: compare NEW with merge-base(BASE, NEW)
  std::filesystem::path repo_path;     // --repo: read this repository as it is, no mirror
  bool original_mode = false;          // run as the original script did: startup lines, no subcommand
};

void add_compare_command(CLI::App& app, Commands& commands);

// Returns the exit code: 0 nothing changed, 1 changes found, 2 error.
int run_compare(const CompareOptions& options, Runtime& runtime);

}  // namespace aaw::cli
