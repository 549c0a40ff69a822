// `check [COMMIT] [--format text|json|markdown]`: the consumer's call sites (consumer.path,
// rescanned each time) bound against the signatures the static extractor reads at COMMIT
// (default: the branch head), with the commit each broken call broke at.
#pragma once

#include <filesystem>
#include <string>

#include "cli/command.hpp"

namespace aaw::cli {

struct CheckOptions {
  std::filesystem::path config_path;
  std::string commit;  // empty: the branch head
  std::string format = "text";
  bool no_blame = false;
  bool since_pin = false;  // what breaks between consumer.pinned_commit and COMMIT
};

void add_check_command(CLI::App& app, Commands& commands);

// Returns the exit code: 0 every call binds (or is guarded or unknown), 1 a call breaks, 2 error.
int run_check(const CheckOptions& options, Runtime& runtime);

}  // namespace aaw::cli
