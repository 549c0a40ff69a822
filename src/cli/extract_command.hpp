// `__extract REQUEST RESULT`: the extraction child. Hidden from --help: only RuntimeSource runs
// it, re-executing this binary inside the sandbox. It imports the built package in the embedded
// interpreter and writes every function's state to RESULT; a crash or hang here costs this
// process only.
#pragma once

#include <filesystem>

#include "cli/command.hpp"

namespace aaw::cli {

struct ExtractOptions {
  std::filesystem::path request;
  std::filesystem::path result;
};

void add_extract_command(CLI::App& app, Commands& commands);

// 0 when RESULT was written; CommandError (exit 2) otherwise.
int run_extract(const ExtractOptions& options, Runtime& runtime);

}  // namespace aaw::cli
