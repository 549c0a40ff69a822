// `history [FUNCTION_PATH] [--since D] [--until D] [--range A..B] [--severity S] [--limit N]`: the
// recorded changes, oldest first (text or the contract's JSON).
// `show COMMIT`: the states recorded at a commit, or extracted on the fly when it was not.
#pragma once

#include <filesystem>
#include <string>

#include "cli/command.hpp"

namespace aaw::cli {

struct HistoryOptions {
  std::filesystem::path config_path;
  std::string function_path;  // empty: all
  std::string since;          // empty: no bound
  std::string until;
  std::string range;     // "A..B"; empty: every commit
  std::string severity;  // empty: all
  int limit = 0;         // 0: all
  std::string format = "text";
};

struct ShowOptions {
  std::filesystem::path config_path;
  std::string commit;
  std::string format = "text";
  std::string extractor;
  bool drift = false;  // only the compile_ops stubs that disagree with their compiled binding
};

void add_history_command(CLI::App& app, Commands& commands);
void add_show_command(CLI::App& app, Commands& commands);
int run_history(const HistoryOptions& options);
int run_show(const ShowOptions& options, Runtime& runtime);

}  // namespace aaw::cli
