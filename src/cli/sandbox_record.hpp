// Which sandbox confines the builds and imports of runtime extraction, as the daemon found it at
// start, kept in state_dir/sandbox.json so that `status` (another process) can say it.
#pragma once

#include <optional>
#include <string>

#include "core/model/config.hpp"
#include "core/model/state_dir.hpp"
#include "core/ports/sandbox.hpp"
#include "core/report/log.hpp"

namespace aaw::cli {

struct SandboxRecord {
  std::string kind;         // bwrap, landlock, process
  std::string confinement;  // Sandbox::confinement()
  std::string since;        // UTC, ISO 8601: when it was chosen
};

// Records `sandbox` (a warning on `log` when the file cannot be written: nothing else depends on it).
void record_sandbox(const StateDir& state, const Sandbox& sandbox, Logger& log);

// The recorded sandbox; nullopt when none was recorded or the record cannot be read.
std::optional<SandboxRecord> read_sandbox_record(const StateDir& state);

// What `status` says of the sandbox: the record (whatever the config's extractor: `--extractor` may
// have overridden it), or why there is none.
std::string describe_sandbox(const Config& config, const std::optional<SandboxRecord>& record);

}  // namespace aaw::cli
