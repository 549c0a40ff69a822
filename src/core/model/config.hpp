// The JSON config: the original script's keys verbatim (its file is valid as is) plus ours.
// Read once at start into typed structs; the file is never rewritten.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/compare/levels.hpp"
#include "core/model/signature.hpp"
#include "util/result.hpp"

namespace aaw {

class JsonReader;

// How static extraction finds the package (`static` in the config).
struct StaticConfig {
  // Directories top-level packages are looked for in ("" or "." is the repository root); empty:
  // the root, src/, then what pyproject.toml / setup.cfg / setup.py declare.
  std::vector<std::string> source_roots;
  // Old module name -> new one, for redirects the resolver cannot read (an import hook of code).
  std::map<std::string, std::string> module_aliases;
  // About how many MiB the cache of parsed modules (the embedded interpreter's) may hold.
  int cache_mb = 32;
  // Whether a second process parses the modules a replay will need ahead of it (on a machine with
  // more than one CPU; src/core/ports/summary_prefetch.hpp).
  bool parse_ahead = true;
  // What a signature the resolver cannot vouch for (a decorator it cannot follow) is recorded as:
  // "ok" keeps it ok with its `unverified` flag; "unresolved" records it unresolved, so that a
  // gate treats it as unknown.
  std::string unverified = "ok";
};

struct LogConfig {
  std::string file = "aiter_api_watcher.log";  // relative to the config file's directory
  int max_size_mb = 10;
  int max_files = 5;
  std::string level = "info";  // one of log_levels()
};

// The levels log.level and --log-level accept, most verbose first: Python logging's names.
const std::vector<std::string>& log_levels();

struct BuildConfig {
  std::vector<std::string> command = {"{python}", "setup.py", "develop"};
  std::map<std::string, std::string> env = {{"PREBUILD_KERNELS", "0"}};
  int timeout_seconds = 3600;
  bool submodules = true;
  std::vector<std::string> paths;
  bool skip_if_unchanged = true;
};

struct SandboxConfig {
  std::string kind = "auto";  // auto, bwrap, landlock, process
  bool network = true;
  // Runs builds and imports unconfined (neither bubblewrap nor Landlock) even though they could
  // read github.token_file: refused without it.
  bool accept_unconfined = false;
  // Who builds, imports and checkouts run as when the daemon is root: auto (a uid of the state
  // directory's own), daemon (root, without capabilities), or a user name, UID or UID:GID.
  std::string run_as = "auto";
};

struct RuntimeConfig {
  int extract_timeout_seconds = 600;
  bool bisect = true;
};

struct GitConfig {
  int timeout_seconds = 120;  // a git remote silent this long is given up on (clone, fetch, ls-remote)
};

struct GithubConfig {
  std::string api_url = "https://api.github.com";
  std::string token_file;
  std::string poll = "auto";  // auto, api, git
};

// The sections of `notify`, one per notification channel ("github_issue", "webhook", ...), as
// written: each channel reads its own (notify/channel_registry.hpp), so adding a channel touches
// nothing here.
struct NotifyConfig {
  std::map<std::string, Json, std::less<>> sections;
};

// The consumer of the watched package: a local checkout (`path`) or a repository mirrored and
// checked out like the watched one (`repository_url`, `branch`), never both.
struct ConsumerConfig {
  std::string path;
  std::string repository_url;
  std::string branch = "main";
  std::string package = "aiter";
  // The watched repository's commit the consumer builds against today (check --since-pin).
  std::string pinned_commit;
  // Globs of the consumer's paths to leave out of the scan (relative to its root: "tests",
  // "benchmarks/*", "**/conftest.py"); a directory matched is left out whole.
  std::vector<std::string> exclude;

  bool configured() const { return !path.empty() || !repository_url.empty(); }
  // The path, or the repository URL and branch: how the log names the consumer.
  std::string display() const { return path.empty() ? repository_url + " (" + branch + ")" : path; }
};

struct ReportConfig {
  // Where `watch` writes the HTML report (index.html) after each poll; empty: no report. A
  // relative path is relative to the config file's directory.
  std::filesystem::path dir;
  // The repository's web page ("https://github.com/ROCm/aiter", a GitHub Enterprise, Gitea or
  // internal host): the page links commits to WEB_URL/commit/SHA and pull requests to
  // WEB_URL/pull/N. Empty: links only when repository_url is on github.com.
  std::string web_url;
};

// The gate of `compare` (a pull request's check): levels per change kind and the waivers file.
struct GateConfig {
  std::map<ChangeKind, Level> levels;  // the config's `levels`: {"function_added": "allow", ...}
  // The config's `waivers`: a waivers file (waivers.hpp). Relative to the config's directory.
  std::filesystem::path waivers;
};

struct Config {
  std::string repository_url;
  std::string branch = "main";
  std::vector<MonitoredFunction> functions_to_monitor;
  int check_interval_seconds = 3600;
  std::string start_commit;
  std::string last_checked_commit;
  std::vector<std::string> commit_list;
  std::vector<std::string> compare_pair;  // empty, or exactly [old, new]
  std::filesystem::path state_dir = "./aiter-api-watcher-state";
  std::string extractor = "static";  // a name in the source registry (extract/source_registry.hpp)
  StaticConfig static_extraction;    // "static"
  LogConfig log;
  BuildConfig build;
  SandboxConfig sandbox;
  RuntimeConfig runtime;
  GitConfig git;
  GithubConfig github;
  NotifyConfig notify;
  ConsumerConfig consumer;
  // The file it was read from (absolute; empty when parsed from text): sandboxes hide it, as it may
  // hold a webhook URL.
  std::filesystem::path file;
  ReportConfig report;
  GateConfig gate;
};

struct LoadedConfig {
  Config config;
  std::vector<std::string> warnings;  // unknown keys, with a did-you-mean when one is close
};

// What the extension registries add to the config's vocabulary, so that neither the reader nor
// the Config struct changes when an extractor or a notification channel is added.
struct SectionSchema {
  std::string name;                       // the key under "notify"
  std::function<void(JsonReader&)> read;  // reads and validates it; throws JsonReadError
};
struct ConfigSchema {
  std::vector<std::string> extractors;         // the names `extractor` accepts
  std::vector<SectionSchema> notify_sections;  // the keys `notify` accepts
};

// Parses config text. `source` names it in messages ("config.json"). invalid_input with the JSON
// path of the bad field ("functions_to_monitor[2].function_path: expected a string"), or the
// parser's line and column for malformed JSON.
Result<LoadedConfig> parse_config(std::string_view text, std::string_view source, const ConfigSchema& schema);

// Reads and parses a config file; io when it cannot be read. Relative paths in it (state_dir,
// log.file, github.token_file, consumer.path, and repository_url when it is a path) are relative
// to the config file's directory, so a query run from anywhere finds the daemon's state.
Result<LoadedConfig> load_config(const std::filesystem::path& path, const ConfigSchema& schema);

// Makes the relative paths of `config` (as load_config lists them) relative to `base`.
void resolve_relative_paths(Config& config, const std::filesystem::path& base);

}  // namespace aaw
