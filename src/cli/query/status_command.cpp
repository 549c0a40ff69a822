#include "cli/query/status_command.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/command_context.hpp"
#include "cli/sandbox_record.hpp"
#include "core/model/function_change.hpp"
#include "core/model/state_dir.hpp"
#include "core/ports/state_store.hpp"
#include "core/report/daemon_status.hpp"
#include "io/git/libgit2_mirror.hpp"
#include "util/files.hpp"
#include "util/url.hpp"

namespace aaw::cli {
namespace {

Json optional_json(const std::optional<std::string>& value) { return value ? Json(*value) : Json(nullptr); }

std::string text_of(const Json& payload, const char* name) {
  auto found = payload.find(name);
  return found != payload.end() && found->is_string() ? found->get<std::string>() : std::string();
}

constexpr const char* k_status_schema = "aiter-api-watcher/status/1";  // schemas/status-1.schema.json

// What state_dir holds on disk, and how much of it is the mirrors (what grows with the history).
struct DiskUse {
  std::uint64_t state_dir = 0;
  std::uint64_t mirrors = 0;
};

DiskUse disk_use(const StateDir& state) { return {disk_bytes(state.root()), disk_bytes(state.mirrors())}; }

std::string megabytes(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return text;
}

Json sandbox_json(const std::optional<SandboxRecord>& record) {
  if (!record) return nullptr;
  return {{"kind", record->kind}, {"confinement", record->confinement}, {"since", record->since}};
}

// "0", or "2 (their states are unknown; the last: SHA at TIME: error; `show SHA`)".
std::string describe(const FailedCommits& failed) {
  if (!failed.last) return std::to_string(failed.count);
  const std::string sha = failed.last->commit.hex.substr(0, 12);
  return std::to_string(failed.count) + " (their states are unknown; the last: " + sha + " at " +
         failed.last->recorded_at + ": " + failed.last->error + "; `show " + sha + "`)";
}

Json failed_commits_json(const FailedCommits& failed) {
  Json last = nullptr;
  if (failed.last)
    last = {{"commit", failed.last->commit.hex},
            {"error", failed.last->error},
            {"recorded_at", failed.last->recorded_at}};
  return {{"count", failed.count}, {"last", last}};
}

Json to_json(const Config& config, const DaemonStatus& s, const DiskUse& disk, int exit_code) {
  Json failed = Json::array();
  for (const OutboxItem& item : s.failed)
    failed.push_back({{"id", item.id},
                      {"target", item.target},
                      {"commit", text_of(item.payload, "commit")},
                      {"import_statement", text_of(item.payload, "import_statement")},
                      {"function_path", text_of(item.payload, "function_path")},
                      {"attempts", item.attempts},
                      {"last_error", item.last_error},
                      {"updated_at", item.updated_at}});
  return {{"schema", k_status_schema},
          {"repository_url", redact_url(config.repository_url)},
          {"branch", config.branch},
          {"state_dir", config.state_dir.string()},
          {"state_dir_exists", std::filesystem::is_directory(config.state_dir)},
          {"last_poll_time", optional_json(s.poll.last_poll_time)},
          {"last_poll_result", optional_json(s.poll.last_poll_result)},
          {"last_poll_success_time", optional_json(s.poll.last_poll_success_time)},
          {"last_replay_time", optional_json(s.poll.last_replay_time)},
          {"last_replay_result", optional_json(s.poll.last_replay_result)},
          {"remote_head", optional_json(s.poll.remote_head)},
          {"last_processed_commit", optional_json(s.line_head)},
          {"pending_commits", s.pending_commits ? Json(*s.pending_commits) : Json(nullptr)},
          {"failed_commits", failed_commits_json(s.failed_commits)},
          {"outbox",
           {{"pending", s.outbox.pending},
            {"delivered", s.outbox.delivered},
            {"failed", s.outbox.failed},
            {"failed_items", failed}}},
          {"last_error", optional_json(s.last_error)},
          {"sandbox", sandbox_json(read_sandbox_record(StateDir(config.state_dir)))},
          {"disk", {{"state_dir_bytes", disk.state_dir}, {"mirrors_bytes", disk.mirrors}}},
          {"healthy", s.healthy},
          {"health", s.health},
          {"exit_code", exit_code}};
}

void print_text(const Config& config, const DaemonStatus& s, const DiskUse& disk) {
  auto or_never = [](const std::optional<std::string>& v, const char* none) {
    return v ? *v : std::string(none);
  };
  std::cout << "repository: " << redact_url(config.repository_url) << " (branch " << config.branch << ")\n"
            << "state_dir: " << config.state_dir.string()
            << (std::filesystem::is_directory(config.state_dir)
                    ? ""
                    : " (does not exist: nothing has run with this config yet; watch or replay creates it)")
            << "\n"
            << "last poll: " << or_never(s.poll.last_poll_time, "never");
  if (s.poll.last_poll_result) std::cout << " (" << *s.poll.last_poll_result << ")";
  std::cout << "\nlast successful poll: " << or_never(s.poll.last_poll_success_time, "never") << "\n";
  if (s.poll.last_replay_time)
    std::cout << "last replay: " << *s.poll.last_replay_time << " ("
              << s.poll.last_replay_result.value_or("?") << ")\n";
  std::cout << "remote head: " << or_never(s.poll.remote_head, "unknown") << "\n"
            << "last processed commit: " << or_never(s.line_head, "none") << "\n"
            << "pending commits: " << (s.pending_commits ? std::to_string(*s.pending_commits) : "unknown")
            << "\n"
            << "failed commits: " << describe(s.failed_commits) << "\n"
            << "outbox: " << s.outbox.pending << " pending, " << s.outbox.delivered << " delivered, "
            << s.outbox.failed << " failed\n";
  for (const OutboxItem& item : s.failed)
    std::cout << "  failed: " << item.target << " " << text_of(item.payload, "function_path") << " at "
              << text_of(item.payload, "commit").substr(0, 12) << " after " << item.attempts
              << " attempts: " << item.last_error << "\n";
  std::cout << "last error: " << or_never(s.last_error, "none") << "\n"
            << "sandbox: " << describe_sandbox(config, read_sandbox_record(StateDir(config.state_dir)))
            << "\n"
            << "disk: state_dir " << megabytes(disk.state_dir) << " (mirrors " << megabytes(disk.mirrors)
            << ")\n"
            << "health: " << s.health << "\n";
}

}  // namespace

void add_status_command(CLI::App& app, Commands& commands) {
  auto shared = std::make_shared<StatusOptions>();
  StatusOptions& options = *shared;
  CLI::App* cmd = app.add_subcommand("status", "What the daemon last did, from state_dir (no network)");
  cmd->add_flag("--check", options.check,
                "Exit 1 when the last successful poll is older than 3 check intervals (a health check)");
  cmd->add_option("--format", options.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->footer(
      "Exit codes: 0 reported (with --check: healthy); 1 with --check: the last successful poll or replay is "
      "older than 3 check intervals, or there was none; 2 an error.");
  commands.on(cmd, shared, run_status);
}

int run_status(const StatusOptions& options) {
  Config config = read_config_or_throw(options.config_path);
  StateDir state(config.state_dir);
  std::unique_ptr<StateStore> store = open_recorded_store(state, config);  // none: nothing recorded yet
  // Status never clones: that would need the network and write.
  auto mirror = open_existing_mirror(config.repository_url, state.mirrors());
  DaemonStatus status = value_or_throw(read_daemon_status(
      store.get(), mirror.get(), config.check_interval_seconds, std::chrono::system_clock::now()));
  const int exit_code = options.check && !status.healthy ? 1 : 0;
  const DiskUse disk = disk_use(state);
  if (options.format == "json") {
    std::cout << to_json(config, status, disk, exit_code).dump(2) << "\n";
  } else {
    print_text(config, status, disk);
  }
  return exit_code;
}

}  // namespace aaw::cli
