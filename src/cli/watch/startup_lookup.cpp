#include "cli/watch/startup_lookup.hpp"

#include <spdlog/spdlog.h>

#include <exception>

#include "cli/command_context.hpp"
#include "extract/static/static_function_finder.hpp"

namespace aaw::cli {
namespace {

// Whether the store has ever seen `function` present: a change recorded for it, or a latest state
// that is not "missing".
bool ever_recorded(StateStore& store, const std::vector<FunctionState>& latest,
                   const MonitoredFunction& function) {
  for (const FunctionState& s : latest)
    if (s.function == function && s.state.status != Status::missing) return true;
  auto history = store.history(function.function_path);
  return history && !history->empty();
}

}  // namespace

std::vector<UnfoundFunction> unfound_at(const std::vector<MonitoredFunction>& functions,
                                        const StaticConfig& options, GitMirror& mirror, Runtime& runtime,
                                        const std::vector<NamedCommit>& commits, Logger& log) {
  if (commits.empty() || functions.empty()) return {};
  // A check, not the job: a commit the mirror cannot read (a missing object) or an interpreter that
  // cannot start must not stop the command, which meets and reports those on its own terms.
  try {
    StaticFunctionFinder finder(mirror, runtime.python(), options);
    auto unfound = unfound_functions(finder, commits, functions);
    if (unfound) return std::move(*unfound);
    log.warn("Cannot look the monitored functions up: {}", unfound.error().message());
  } catch (const std::exception& e) {
    log.warn("Cannot look the monitored functions up: {}", e.what());
  }
  return {};
}

std::optional<NamedCommit> named_commit(GitMirror& mirror, const std::string& label,
                                        const std::string& revision) {
  auto commit = mirror.resolve(revision);
  if (!commit) return std::nullopt;
  return NamedCommit{label, *commit};
}

bool statically_definitive(const std::string& extractor) { return extractor == "static"; }

std::size_t log_unfound_functions(const Config& config, GitMirror& mirror, Runtime& runtime,
                                  StateStore& store, const std::vector<NamedCommit>& commits, Logger& log) {
  auto latest = store.baseline(std::nullopt);
  std::vector<MonitoredFunction> unknown;
  for (const MonitoredFunction& f : config.functions_to_monitor)
    if (!ever_recorded(store, latest ? *latest : std::vector<FunctionState>(), f)) unknown.push_back(f);
  auto unfound = unfound_at(unknown, config.static_extraction, mirror, runtime, commits, log);
  for (const UnfoundFunction& u : unfound) {
    if (statically_definitive(config.extractor))
      log.error("{}", u.describe());
    else
      log.warn("{} ({})", u.describe(), k_static_blind_spot);
  }
  return unfound.size();
}

}  // namespace aaw::cli
