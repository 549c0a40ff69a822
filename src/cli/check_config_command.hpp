// `check-config`: validate a config file and say what it would watch; exit 2 when invalid.
#pragma once

#include <filesystem>

#include "command.hpp"

namespace aaw::cli {

struct CheckConfigOptions {
  std::filesystem::path config_path;
};

void add_check_config_command(CLI::App& app, Commands& commands);
int run_check_config(const CheckConfigOptions& options);

}  // namespace aaw::cli
