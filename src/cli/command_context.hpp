// What every subcommand does first: read the config (warnings to stderr), set up the log, and
// open the mirror of the watched repository. Failures here print one line and exit 2.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "aaw/core/config.hpp"
#include "aaw/core/git_mirror.hpp"
#include "aaw/core/log.hpp"

namespace aaw::cli {

inline constexpr int k_exit_error = 2;

// Thrown by the helpers below; main() prints "aiter-api-watcher: error: <message>" and exits 2.
struct CommandError {
  std::string message;
};

// The value, or CommandError with the error's message.
template <class T>
T value_or_throw(Result<T> result) {
  if (!result) throw CommandError{result.error().message()};
  return std::move(*result);
}

// Reads `path`, printing each warning to stderr; throws CommandError with the reason.
Config read_config_or_throw(const std::filesystem::path& path);

// Applies an --extractor override (static, runtime or both).
void apply_extractor(Config& config, const std::string& override_value);

std::shared_ptr<Logger> open_log_or_throw(const Config& config, ConsoleStream console);

// Opens (cloning on first use) the mirror of config.repository_url under state_dir/mirrors.
std::unique_ptr<GitMirror> open_mirror_or_throw(const Config& config);

// GITHUB_TOKEN, else the contents of github.token_file, else ""; throws CommandError when the
// token file cannot be read. Never logged.
std::string github_token(const Config& config);

// The token for https remotes: GITHUB_TOKEN, else github.token_file; sent only when the remote is
// on GitHub's host or on the host of github.api_url. Never logged.
std::string https_token_for(const Config& config);

}  // namespace aaw::cli
