#include "cli/sandbox_record.hpp"

#include <chrono>
#include <nlohmann/json.hpp>

#include "util/files.hpp"
#include "util/time.hpp"

namespace aaw::cli {

void record_sandbox(const StateDir& state, const Sandbox& sandbox, Logger& log) {
  const nlohmann::json record = {{"kind", sandbox.kind()},
                                 {"confinement", sandbox.confinement()},
                                 {"since", iso8601_utc(std::chrono::system_clock::now())}};
  if (auto written = write_file_atomically(state.sandbox_mode(), record.dump(2) + "\n"); !written)
    log.warn("cannot record the sandbox in '{}': {}", state.sandbox_mode().string(),
             written.error().message());
}

std::optional<SandboxRecord> read_sandbox_record(const StateDir& state) {
  auto text = read_regular_file(state.sandbox_mode());
  if (!text) return std::nullopt;
  const nlohmann::json json = nlohmann::json::parse(*text, nullptr, false);
  if (!json.is_object()) return std::nullopt;
  SandboxRecord record;
  record.kind = json.value("kind", "");
  record.confinement = json.value("confinement", "");
  record.since = json.value("since", "");
  if (record.kind.empty()) return std::nullopt;
  return record;
}

std::string describe_sandbox(const Config& config, const std::optional<SandboxRecord>& record) {
  // A record first: `--extractor runtime` may have been given to a command of a static config.
  if (record) return record->kind + ": " + record->confinement + " (since " + record->since + ")";
  if (config.extractor == "static") return "none needed (static extraction runs nothing of the repository)";
  return "not chosen yet (runtime extraction has not started)";
}

}  // namespace aaw::cli
