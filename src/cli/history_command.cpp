#include "history_command.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "aaw/core/diff.hpp"
#include "aaw/core/state_dir.hpp"
#include "aaw/core/state_store.hpp"
#include "aaw/io/runtime.hpp"
#include "aaw/io/sqlite_state_store.hpp"
#include "command_context.hpp"

namespace aaw::cli {
namespace {

std::unique_ptr<StateStore> open_store(const Config& config) {
  auto store = open_state_store(StateDir(config.state_dir).database(), config.repository_url);
  if (!store) throw CommandError{store.error().message()};
  return std::move(*store);
}

std::string summary_of(const Json& state) {
  auto parsed = state_from_json(state);
  return parsed ? parsed->summary() : state.dump();
}

void print_change_text(const Json& c) {
  std::cout << c.value("commit_date", "") << " " << c.value("commit", "").substr(0, 12) << " "
            << c.value("function_path", "") << " (" << c.value("severity", "") << ") "
            << c.value("subject", "") << " [" << c.value("author", "") << "]\n";
  std::cout << "  old: " << summary_of(c["old"]) << "\n  new: " << summary_of(c["new"]) << "\n";
  for (const Json& change : c["changes"]) {
    auto parsed = change_from_json(change);
    std::cout << "  " << (parsed ? parsed->describe() : change.dump()) << "\n";
  }
}

void print_states_text(const std::string& commit, const std::vector<FunctionState>& states,
                       const std::string& note) {
  std::cout << "commit " << commit << " (" << note << ")\n";
  for (const FunctionState& s : states)
    std::cout << s.function.function_path << ": " << s.state.summary() << "\n";
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
  cmd->add_option("--format", options.format, "Output format")->check(CLI::IsMember({"text", "json"}));
  commands.on(cmd, shared, run_history);
}

void add_show_command(CLI::App& app, Commands& commands) {
  auto shared = std::make_shared<ShowOptions>();
  ShowOptions& options = *shared;
  CLI::App* cmd = app.add_subcommand("show", "The signatures at one commit (recorded, or extracted now)");
  cmd->add_option("COMMIT", options.commit, "Commit (SHA, short SHA, branch or tag)")->required();
  cmd->add_option("--format", options.format, "Output format")->check(CLI::IsMember({"text", "json"}));
  add_extractor_option(cmd, options.extractor);
  commands.on(cmd, shared, run_show);
}

int run_history(const HistoryOptions& options) {
  Config config = read_config_or_throw(options.config_path);
  auto store = open_store(config);
  std::optional<std::string> filter;
  if (!options.function_path.empty()) filter = options.function_path;
  auto changes = store->history(filter);
  if (!changes) throw CommandError{changes.error().message()};
  if (options.format == "json") {
    std::cout << Json({{"changes", *changes}}).dump(2) << "\n";
    return 0;
  }
  if (changes->empty())
    std::cout << "no changes recorded" << (filter ? " for " + *filter : std::string()) << "\n";
  for (const Json& c : *changes) print_change_text(c);
  return 0;
}

int run_show(const ShowOptions& options, Runtime& runtime) {
  Config config = read_config_or_throw(options.config_path);
  apply_extractor(config, options.extractor);
  auto mirror = open_mirror_or_throw(config);
  ObjectId commit = resolve_or_fetch(*mirror, options.commit);
  auto store = open_store(config);
  auto status = store->commit_status(commit);
  if (!status) throw CommandError{status.error().message()};
  bool recorded = status->has_value() && (*status)->outcome == CommitOutcome::processed;
  std::vector<FunctionState> states;
  if (recorded) {
    auto stored = store->states_at(commit);
    if (!stored) throw CommandError{stored.error().message()};
    states = std::move(*stored);
  } else {
    states = extract_now(config, *mirror, commit, runtime);
  }
  // Bisection records the commits it did not build with the states of the commits around them.
  bool bisected = recorded && (*status)->bisected;
  std::string note = bisected              ? "recorded; not built, unchanged by bisection"
                     : recorded            ? "recorded"
                     : status->has_value() ? "recorded as failed: " + (*status)->error + "; extracted now"
                                           : "not recorded; extracted now";
  if (options.format == "json") {
    std::cout << Json({{"commit", commit.hex},
                       {"recorded", recorded},
                       {"bisected", bisected},
                       {"note", note},
                       {"functions", states_json(states)}})
                     .dump(2)
              << "\n";
  } else {
    print_states_text(commit.hex, states, note);
  }
  return 0;
}

}  // namespace aaw::cli
