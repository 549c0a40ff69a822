#include "cli/query/history_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>

#include "cli/command_context.hpp"
#include "core/model/compiled_binding.hpp"
#include "core/model/diff.hpp"
#include "core/model/state_dir.hpp"
#include "core/ports/state_store.hpp"
#include "core/report/history_query.hpp"
#include "core/report/history_rewrites.hpp"
#include "io/git/libgit2_mirror.hpp"
#include "io/runtime.hpp"
#include "util/strings.hpp"
#include "util/url.hpp"

namespace aaw::cli {
namespace {

std::unique_ptr<StateStore> open_existing_store(const Config& config) {
  return open_recorded_store(existing_state_dir_or_throw(config), config);
}

// --range A..B: the commits B reaches and A does not (A.. : up to the branch head; ..B: all of B's).
std::function<Result<bool>(const ObjectId&)> range_predicate(GitMirror& mirror, const Config& config,
                                                             const std::string& range) {
  auto dots = range.find("..");
  if (dots == std::string::npos || range.find("...") != std::string::npos)
    throw CommandError{"--range '" + range + "': expected A..B (the commits B reaches and A does not)"};
  std::string from = range.substr(0, dots), to = range.substr(dots + 2);
  if (from.empty() && to.empty())
    throw CommandError{"--range '..': give A.., ..B or A..B (as it is, it leaves nothing out)"};
  auto resolve = [&](const std::string& revision) {
    auto commit = mirror.resolve(revision);
    if (!commit) throw CommandError{"--range '" + range + "': " + commit.error().message()};
    return *commit;
  };
  ObjectId tip = resolve(to.empty() ? config.branch : to);
  std::optional<ObjectId> base;
  if (!from.empty()) base = resolve(from);
  return [&mirror, tip, base](const ObjectId& commit) -> Result<bool> {
    auto reached = mirror.is_ancestor(commit, tip);
    if (!reached || !*reached || !base) return reached;
    auto excluded = mirror.is_ancestor(commit, *base);
    if (!excluded) return excluded.error();
    return !*excluded;
  };
}

HistoryQuery history_query(const HistoryOptions& options, GitMirror* mirror, const Config& config) {
  HistoryQuery query;
  auto now = std::chrono::system_clock::now();
  auto date = [&](const char* flag, const std::string& text, bool end_of_day) {
    auto parsed = parse_history_date(text, now, end_of_day);
    if (!parsed) throw CommandError{std::string(flag) + ": " + parsed.error().message()};
    return *parsed;
  };
  if (!options.since.empty()) query.since = date("--since", options.since, false);
  if (!options.until.empty()) query.until = date("--until", options.until, true);
  if (!options.severity.empty()) query.min_severity = parse_severity(options.severity);
  if (options.limit > 0) query.limit = static_cast<std::size_t>(options.limit);
  if (!options.range.empty()) {
    if (!mirror)
      throw CommandError{"--range: no mirror of '" + redact_url(config.repository_url) + "' in state_dir '" +
                         config.state_dir.string() + "' to read the range from (watch or replay makes it)"};
    query.in_range = range_predicate(*mirror, config, options.range);
  }
  return query;
}

std::string summary_of(const Json& state) {
  auto parsed = state_from_json(state);
  return parsed ? parsed->summary() : state.dump();
}

RecordedAt recorded_at_in(StateStore& store) {
  return [&store](const std::string& sha) -> std::optional<std::string> {
    auto status = store.commit_status(ObjectId{sha});
    return status && *status ? std::optional<std::string>((*status)->recorded_at) : std::nullopt;
  };
}

// Each CHANGE of `changes` described, a line each.
void print_changes(const Json& changes, std::string_view indent) {
  for (const Json& change : changes) {
    auto parsed = change_from_json(change);
    std::cout << indent << (parsed ? parsed->describe() : change.dump()) << "\n";
  }
}

void print_change_text(const Json& c) {
  std::cout << c.value("commit_date", "") << " " << c.value("commit", "").substr(0, 12) << " "
            << c.value("function_path", "") << " (" << c.value("severity", "") << ") "
            << c.value("subject", "") << " [" << c.value("author", "") << "]"
            << (c.value("backfilled", false) ? " (back-filled)" : "") << "\n";
  std::cout << "  old: " << summary_of(c["old"]) << "\n  new: " << summary_of(c["new"]) << "\n";
  for (const std::string& line : binding_sides(c)) std::cout << "  " << line << "\n";
  print_changes(c["changes"], "  ");
  if (auto abandoned = c.find("abandoned_by"); abandoned != c.end())
    std::cout << "  abandoned: a force-push seen " << abandoned->value("time", "")
              << " took this commit off the branch (the rewrite below lists what went back)\n";
}

// A force-push, as `history` lists it among the changes: the lines parted at the merge base, and
// each function that went back with what that undid.
void print_rewrite_text(const Json& r) {
  const std::size_t abandoned = r.value("abandoned_commits", std::size_t{0});
  std::cout << r.value("time", "") << " history rewritten: " << r.value("old_head", "").substr(0, 12)
            << " is no longer on the branch (head " << r.value("new_head", "").substr(0, 12) << "); "
            << counted(abandoned, "commit", "commits") << " after merge base "
            << r.value("merge_base", "").substr(0, 12) << " abandoned\n";
  const Json functions = r.value("functions", Json::array());
  if (functions.empty()) std::cout << "  no monitored function went back\n";
  for (const Json& f : functions) {
    std::cout << "  " << f.value("function_path", "") << " went back (" << f.value("severity", "") << ")\n";
    std::cout << "    old: " << summary_of(f["old"]) << "\n    new: " << summary_of(f["new"]) << "\n";
    print_changes(f.value("changes", Json::array()), "    ");
  }
}

void print_states_text(const std::string& commit, const std::vector<FunctionState>& states,
                       const std::string& note) {
  std::cout << "commit " << commit << " (" << note << ")\n";
  for (const FunctionState& s : states) {
    std::cout << s.function.function_path << ": " << s.state.summary() << "\n";
    if (s.state.is_ok() && s.state.binding)
      for (const std::string& line : describe_binding(s.state.signature, *s.state.binding))
        std::cout << "  " << line << "\n";
  }
  Doubts doubts;
  for (const FunctionState& s : states) doubts.add(s.state);
  if (doubts.unverified > 0 || doubts.unresolved > 0)
    std::cout << "(" << states.size() << " functions: " << doubts.unverified << " unverified, "
              << doubts.unresolved << " unresolved: the tool cannot vouch for what callers meet there)\n";
}

bool drifts(const FunctionState& s) {
  return s.state.is_ok() && s.state.binding && !binding_drift(s.state.signature, *s.state.binding).empty();
}

Json states_json(const std::vector<FunctionState>& states) {
  Json out = Json::array();
  for (const FunctionState& s : states)
    out.push_back({{"import_statement", s.function.import_statement},
                   {"function_path", s.function.function_path},
                   {"state", to_json(s.state)}});
  return out;
}

std::vector<FunctionState> extract_now(const Config& config, GitMirror& mirror, const ObjectId& commit,
                                       Runtime& runtime) {
  // On stderr: stdout carries the states. A runtime extraction logs its checkout and build there.
  auto log = open_log_or_throw(config, ConsoleStream::stderr_stream);
  auto source = make_source_or_throw(config, mirror, runtime, *log);
  auto states = source->extract(commit, config.functions_to_monitor);
  if (!states) throw CommandError{states.error().context("extracting at " + commit.hex).message()};
  std::vector<FunctionState> out;
  for (std::size_t i = 0; i < states->size(); ++i)
    out.push_back({config.functions_to_monitor[i], (*states)[i]});
  return out;
}

// The documents' versions, as compare's and check's name theirs (schemas/history-1.schema.json,
// schemas/show-1.schema.json).
constexpr const char* k_history_schema = "aiter-api-watcher/history/1";
constexpr const char* k_show_schema = "aiter-api-watcher/show/1";

ObjectId resolve_or_fetch(GitMirror& mirror, const std::string& revision) {
  if (auto commit = mirror.resolve(revision)) return *commit;
  if (auto fetched = mirror.fetch(); !fetched) throw CommandError{fetched.error().message()};
  auto commit = mirror.resolve(revision);
  if (!commit) throw CommandError{commit.error().context("commit '" + revision + "'").message()};
  return *commit;
}

}  // namespace

void add_history_command(CLI::App& app, Commands& commands) {
  auto shared = std::make_shared<HistoryOptions>();
  HistoryOptions& options = *shared;
  CLI::App* cmd = app.add_subcommand("history", "Every recorded signature change, oldest first");
  cmd->add_option("FUNCTION_PATH", options.function_path, "Only this function (as in functions_to_monitor)");
  // Given empty (an unset shell variable, say), a filter would silently filter nothing.
  const CLI::Validator given = CLI::Validator(
      [](std::string& value) {
        return value.empty() ? std::string("an empty value filters nothing") : std::string();
      },
      "NONEMPTY");
  cmd->add_option(
         "--since", options.since,
         "Only changes whose commit date is at or after DATE (YYYY-MM-DD, ISO 8601, or 'N days ago')")
      ->check(given);
  cmd->add_option("--until", options.until,
                  "Only changes whose commit date is at or before DATE (a day is included)")
      ->check(given);
  cmd->add_option("--range", options.range, "Only changes of commits in A..B (B reaches them, A does not)")
      ->check(given);
  cmd->add_option("--severity", options.severity, "Only changes of at least this severity")
      ->check(CLI::IsMember({"annotation", "compatible", "behavioural", "unknown", "breaking"}));
  cmd->add_option("--limit", options.limit, "Only the newest N changes (0: all)")
      ->check(CLI::Validator(
          [](std::string& value) {
            return value.find_first_not_of("0123456789") == std::string::npos && !value.empty()
                       ? std::string()
                       : "expected a count of 0 or more, got '" + value + "'";
          },
          "N"))
      ->capture_default_str();
  cmd->add_option("--format", options.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->footer("Exit codes: 0 listed (maybe nothing); 2 an error (no state_dir, a bad date or range).");
  commands.on(cmd, shared, run_history);
}

void add_show_command(CLI::App& app, Commands& commands) {
  auto shared = std::make_shared<ShowOptions>();
  ShowOptions& options = *shared;
  CLI::App* cmd = app.add_subcommand("show", "The signatures at one commit (recorded, or extracted now)");
  cmd->add_option("COMMIT", options.commit, "Commit: anything git rev-parse takes (SHA, branch, tag, main~5)")
      ->required();
  cmd->add_option("--format", options.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  add_extractor_option(cmd, options.extractor);
  cmd->add_flag("--drift", options.drift,
                "Only the compile_ops stubs whose compiled binding (pybind11 or ctypes) disagrees with them");
  cmd->footer("Exit codes: 0 shown; 2 an error (no state_dir, an unknown commit).");
  commands.on(cmd, shared, run_show);
}

// A FUNCTION_PATH that names no monitored function and none ever recorded is a slip, not a function
// that never changed: say so, with the closest name.
void check_function_path(const std::string& path, const Config& config, StateStore* store) {
  std::vector<std::string> known;
  for (const MonitoredFunction& f : config.functions_to_monitor) known.push_back(f.function_path);
  // A monitored function is the usual case: the recorded history is read once, for the answer.
  if (std::find(known.begin(), known.end(), path) != known.end()) return;
  if (store)
    for (const Json& c : value_or_throw(store->history(std::nullopt)))
      known.push_back(c.value("function_path", ""));
  if (std::find(known.begin(), known.end(), path) != known.end()) return;
  std::string suggestion = closest_match(path, known);
  throw CommandError{"function '" + path +
                     "' is neither in functions_to_monitor nor in the recorded history" +
                     (suggestion.empty() ? std::string(" (history with no FUNCTION_PATH lists them all)")
                                         : ", did you mean '" + suggestion + "'?")};
}

int run_history(const HistoryOptions& options) {
  Config config = read_config_or_throw(options.config_path);
  auto store = open_existing_store(config);
  // Only a range needs the mirror; a query never clones one.
  auto mirror = options.range.empty()
                    ? nullptr
                    : open_existing_mirror(config.repository_url, StateDir(config.state_dir).mirrors());
  HistoryQuery query = history_query(options, mirror.get(), config);
  std::optional<std::string> filter;
  if (!options.function_path.empty()) {
    check_function_path(options.function_path, config, store.get());
    filter = options.function_path;
  }
  std::vector<Json> changes;
  std::vector<StoredEvent> events, rewrites;
  if (store) {
    changes = value_or_throw(select_history(value_or_throw(store->history(filter)), query));
    events = value_or_throw(store->events_after(0));
    rewrites = value_or_throw(select_rewrites(events, filter, query));
    mark_abandoned(changes, events, recorded_at_in(*store));
  }
  const std::vector<HistoryEntry> entries =
      in_recorded_order(changes, rewrites, events, query.limit && changes.size() >= *query.limit);
  if (options.format == "json") {
    Json listed = Json::array();
    for (const HistoryEntry& e : entries)
      if (e.rewrite) listed.push_back(e.rewrite->event);
    // Exit code 0 always: an error exits 2 before any document is printed.
    std::cout
        << Json({{"schema", k_history_schema}, {"changes", changes}, {"rewrites", listed}, {"exit_code", 0}})
               .dump(2)
        << "\n";
    return 0;
  }
  bool filtered = query.since || query.until || query.min_severity || query.limit || query.in_range;
  if (entries.empty())
    std::cout << "no changes recorded" << (filter ? " for " + *filter : std::string())
              << (filtered ? " that match the filters" : "") << "\n";
  for (const HistoryEntry& e : entries)
    e.change ? print_change_text(*e.change) : print_rewrite_text(e.rewrite->event);
  return 0;
}

int run_show(const ShowOptions& options, Runtime& runtime) {
  Config config = read_config_or_throw(options.config_path);
  apply_extractor(config, options.extractor);
  // A query creates no state directory; in one that exists, a missing mirror is a cache to fill.
  auto store = open_existing_store(config);
  auto mirror = open_mirror_or_throw(config);
  ObjectId commit = resolve_or_fetch(*mirror, options.commit);
  auto status = store ? store->commit_status(commit) : Result<std::optional<CommitStatus>>(std::nullopt);
  if (!status) throw CommandError{status.error().message()};
  bool recorded = status->has_value() && (*status)->outcome == CommitOutcome::processed;
  std::vector<FunctionState> states;
  if (recorded && store) {
    auto stored = store->states_at(commit);
    if (!stored) throw CommandError{stored.error().message()};
    states = std::move(*stored);
  } else {
    states = extract_now(config, *mirror, commit, runtime);
  }
  if (options.drift) std::erase_if(states, [](const FunctionState& s) { return !drifts(s); });
  // Bisection records the commits it did not build with the states of the commits around them.
  bool bisected = recorded && (*status)->bisected;
  std::string note = bisected              ? "recorded; not built, unchanged by bisection"
                     : recorded            ? "recorded"
                     : status->has_value() ? "recorded as failed: " + (*status)->error + "; extracted now"
                                           : "not recorded; extracted now";
  Json abandoned = nullptr;
  if (status->has_value() && store) {
    abandoned = abandoned_by(commit.hex, value_or_throw(store->events_after(0)), recorded_at_in(*store));
    if (!abandoned.is_null())
      note += "; off the branch since the force-push seen " + abandoned["time"].get<std::string>();
  }
  if (options.format == "json") {
    Json document = {{"schema", k_show_schema}, {"commit", commit.hex}, {"recorded", recorded},
                     {"bisected", bisected},    {"note", note},         {"functions", states_json(states)},
                     {"exit_code", 0}};  // an error exits 2 before any document
    if (!abandoned.is_null()) document["abandoned_by"] = abandoned;
    std::cout << document.dump(2) << "\n";
  } else {
    print_states_text(commit.hex, states, note);
  }
  return 0;
}

}  // namespace aaw::cli
