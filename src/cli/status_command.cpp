#include "status_command.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>

#include "aaw/core/function_change.hpp"
#include "aaw/core/state_store.hpp"
#include "aaw/io/libgit2_mirror.hpp"
#include "aaw/io/sqlite_state_store.hpp"
#include "aaw/util/url.hpp"
#include "command_context.hpp"

namespace aaw::cli {
namespace {

// How many failed notifications `status` lists (the counts cover them all).
constexpr std::size_t k_failed_shown = 20;

struct Status {
  std::optional<std::string> last_poll_time;
  std::optional<std::string> last_poll_result;
  std::optional<std::string> last_poll_success_time;
  std::optional<std::string> remote_head;
  std::optional<std::string> line_head;
  std::optional<std::int64_t> pending_commits;  // unknown without a mirror holding both ends
  OutboxCounts outbox;
  std::vector<OutboxItem> failed;
  std::optional<std::string> last_error;
  bool healthy = false;
  std::string health;  // why, in words
};

// "2026-11-21T06:07:23Z" (as the watcher writes times) -> seconds since the epoch.
std::optional<std::int64_t> parse_utc(const std::string& text) {
  std::tm tm{};
  char zulu = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &zulu) != 7 ||
      zulu != 'Z')
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<std::int64_t>(timegm(&tm));
}

std::optional<std::string> value_of(StateStore& store, std::string_view key) {
  auto value = store.value(key);
  if (!value) throw CommandError{value.error().message()};
  return *value;
}

// The mirror when it exists; status never clones (that would need the network and write).
std::unique_ptr<GitMirror> existing_mirror(const Config& config) {
  auto dir = config.state_dir / "mirrors";
  const std::string& url = config.repository_url;
  bool exists = std::filesystem::exists(dir / mirror_directory_name(url));
  if (!exists && url.find("://") == std::string::npos) {
    // A local path is named after its absolute form, as open_mirror does.
    std::string path = std::filesystem::absolute(url).lexically_normal().string();
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    exists = std::filesystem::exists(dir / mirror_directory_name(path));
  }
  if (!exists) return nullptr;
  auto mirror = open_mirror(url, dir, {});
  return mirror ? std::move(*mirror) : nullptr;
}

std::optional<std::int64_t> pending_commits(const Config& config, const Status& s) {
  if (!s.remote_head || !s.line_head) return std::nullopt;
  if (*s.remote_head == *s.line_head) return 0;
  auto mirror = existing_mirror(config);
  if (!mirror) return std::nullopt;
  auto range = mirror->first_parent_range(ObjectId{*s.line_head}, ObjectId{*s.remote_head});
  if (!range) return std::nullopt;  // the head moved past what the mirror holds: not fetched yet
  return static_cast<std::int64_t>(range->size());
}

void judge_health(const Config& config, Status& s) {
  std::int64_t limit = 3LL * config.check_interval_seconds;
  auto success = s.last_poll_success_time ? parse_utc(*s.last_poll_success_time) : std::nullopt;
  if (!success) {
    s.health = "stale: no successful poll recorded";
    return;
  }
  std::int64_t age = std::time(nullptr) - *success;
  s.healthy = age <= limit;
  s.health = (s.healthy ? "ok: " : "stale: ") + std::string("last successful poll ") + std::to_string(age) +
             " s ago (limit 3 x " + std::to_string(config.check_interval_seconds) + " s)";
}

Status gather(const Config& config) {
  Status s;
  auto db_path = config.state_dir / "state.db";
  if (!std::filesystem::exists(db_path)) {
    judge_health(config, s);
    return s;
  }
  auto opened = open_state_store(db_path, config.repository_url);
  if (!opened) throw CommandError{opened.error().message()};
  StateStore& store = **opened;
  s.last_poll_time = value_of(store, "last_poll_time");
  s.last_poll_result = value_of(store, "last_poll_result");
  s.last_poll_success_time = value_of(store, "last_poll_success_time");
  s.remote_head = value_of(store, "remote_head");
  auto line = store.line_head();
  if (!line) throw CommandError{line.error().message()};
  if (*line) s.line_head = (*line)->hex;
  s.pending_commits = pending_commits(config, s);
  auto counts = store.outbox_counts();
  if (!counts) throw CommandError{counts.error().message()};
  s.outbox = *counts;
  auto failed = store.notifications(OutboxState::failed, k_failed_shown);
  if (!failed) throw CommandError{failed.error().message()};
  s.failed = std::move(*failed);
  if (s.last_poll_result && *s.last_poll_result != "ok") {
    s.last_error = *s.last_poll_result;
  } else {
    // A delivery being retried is the freshest trouble worth showing.
    auto pending = store.notifications(OutboxState::pending, 1000);
    if (!pending) throw CommandError{pending.error().message()};
    for (const OutboxItem& item : *pending) {
      if (item.last_error.empty()) continue;
      s.last_error = item.last_error;
      break;
    }
  }
  judge_health(config, s);
  return s;
}

Json optional_json(const std::optional<std::string>& value) { return value ? Json(*value) : Json(nullptr); }

std::string text_of(const Json& payload, const char* name) {
  auto found = payload.find(name);
  return found != payload.end() && found->is_string() ? found->get<std::string>() : std::string();
}

Json to_json(const Config& config, const Status& s) {
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
  return {{"repository_url", redact_url(config.repository_url)},
          {"branch", config.branch},
          {"last_poll_time", optional_json(s.last_poll_time)},
          {"last_poll_result", optional_json(s.last_poll_result)},
          {"last_poll_success_time", optional_json(s.last_poll_success_time)},
          {"remote_head", optional_json(s.remote_head)},
          {"last_processed_commit", optional_json(s.line_head)},
          {"pending_commits", s.pending_commits ? Json(*s.pending_commits) : Json(nullptr)},
          {"outbox",
           {{"pending", s.outbox.pending},
            {"delivered", s.outbox.delivered},
            {"failed", s.outbox.failed},
            {"failed_items", failed}}},
          {"last_error", optional_json(s.last_error)},
          {"healthy", s.healthy},
          {"health", s.health}};
}

void print_text(const Config& config, const Status& s) {
  auto or_never = [](const std::optional<std::string>& v, const char* none) {
    return v ? *v : std::string(none);
  };
  std::cout << "repository: " << redact_url(config.repository_url) << " (branch " << config.branch << ")\n"
            << "last poll: " << or_never(s.last_poll_time, "never");
  if (s.last_poll_result) std::cout << " (" << *s.last_poll_result << ")";
  std::cout << "\nlast successful poll: " << or_never(s.last_poll_success_time, "never") << "\n"
            << "remote head: " << or_never(s.remote_head, "unknown") << "\n"
            << "last processed commit: " << or_never(s.line_head, "none") << "\n"
            << "pending commits: " << (s.pending_commits ? std::to_string(*s.pending_commits) : "unknown")
            << "\n"
            << "outbox: " << s.outbox.pending << " pending, " << s.outbox.delivered << " delivered, "
            << s.outbox.failed << " failed\n";
  for (const OutboxItem& item : s.failed)
    std::cout << "  failed: " << item.target << " " << text_of(item.payload, "function_path") << " at "
              << text_of(item.payload, "commit").substr(0, 12) << " after " << item.attempts
              << " attempts: " << item.last_error << "\n";
  std::cout << "last error: " << or_never(s.last_error, "none") << "\n"
            << "health: " << s.health << "\n";
}

}  // namespace

void add_status_command(CLI::App& app, StatusOptions& options) {
  CLI::App* cmd = app.add_subcommand("status", "What the daemon last did, from state_dir (no network)");
  cmd->add_flag("--check", options.check,
                "Exit 1 when the last successful poll is older than 3 check intervals (a health check)");
  cmd->add_option("--format", options.format, "Output format")->check(CLI::IsMember({"text", "json"}));
}

int run_status(const StatusOptions& options) {
  Config config = read_config_or_throw(options.config_path);
  Status status = gather(config);
  if (options.format == "json") {
    std::cout << to_json(config, status).dump(2) << "\n";
  } else {
    print_text(config, status);
  }
  return options.check && !status.healthy ? 1 : 0;
}

}  // namespace aaw::cli
