#include "command_context.hpp"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "aaw/io/libgit2_mirror.hpp"
#include "aaw/util/strings.hpp"
#include "aaw/util/url.hpp"

namespace aaw::cli {
namespace {

std::string read_token_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw CommandError{"cannot read github.token_file '" + path + "'"};
  std::ostringstream text;
  text << in.rdbuf();
  return trim(text.str());
}

}  // namespace

Config read_config_or_throw(const std::filesystem::path& path) {
  auto loaded = load_config(path);
  if (!loaded) throw CommandError{loaded.error().message()};
  for (const std::string& warning : loaded->warnings)
    std::cerr << "aiter-api-watcher: warning: " << warning << "\n";
  return std::move(loaded->config);
}

void apply_extractor(Config& config, const std::string& override_value) {
  if (!override_value.empty()) {
    auto kind = parse_extractor(override_value);
    if (!kind)
      throw CommandError{"--extractor: expected static, runtime or both, got '" + override_value + "'"};
    config.extractor = *kind;
  }
}

std::shared_ptr<Logger> open_log_or_throw(const Config& config, ConsoleStream console) {
  auto log = make_logger(config.log, console);
  if (!log) throw CommandError{log.error().message()};
  return *log;
}

std::string github_token(const Config& config) {
  if (const char* token = std::getenv("GITHUB_TOKEN"); token && *token) return token;
  if (!config.github.token_file.empty()) return read_token_file(config.github.token_file);
  return "";
}

std::string https_token_for(const Config& config) {
  std::string host = url_host(config.repository_url);
  if (host.empty() || (host != "github.com" && host != url_host(config.github.api_url))) return "";
  return github_token(config);
}

std::unique_ptr<GitMirror> open_mirror_or_throw(const Config& config) {
  MirrorOptions options;
  options.https_token = https_token_for(config);
  auto mirror = open_mirror(config.repository_url, config.state_dir / "mirrors", options);
  if (!mirror) throw CommandError{mirror.error().message()};
  return std::move(*mirror);
}

}  // namespace aaw::cli
