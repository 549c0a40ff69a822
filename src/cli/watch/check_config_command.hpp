// `check-config [--at COMMIT]`: validate a config file, say what it would watch, and look every
// monitored function up at the branch head (or COMMIT) without building anything. Exit 2 when the
// config is invalid or a function is not found there (each named, with the closest names).
#pragma once

#include <filesystem>
#include <string>

#include "cli/command.hpp"

namespace aaw::cli {

struct CheckConfigOptions {
  std::filesystem::path config_path;
  std::string at;  // empty: the branch head
};

void add_check_config_command(CLI::App& app, Commands& commands);
int run_check_config(const CheckConfigOptions& options, Runtime& runtime);

}  // namespace aaw::cli
