// The start-up lookup of every mode and of check-config: each monitored function is looked up
// statically (nothing built) at the commits the command is about to read, and each one found at
// none of them is named with the closest names ("did you mean").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/config.hpp"
#include "core/ports/function_lookup.hpp"
#include "core/ports/git_mirror.hpp"
#include "core/ports/state_store.hpp"
#include "core/report/log.hpp"
#include "io/runtime.hpp"

namespace aaw::cli {

// The functions of `functions` found at none of `commits`, looked up with the static section
// `options`. When a commit cannot be read or the interpreter cannot start, says so on `log` (a
// warning) and returns none.
std::vector<UnfoundFunction> unfound_at(const std::vector<MonitoredFunction>& functions,
                                        const StaticConfig& options, GitMirror& mirror, Runtime& runtime,
                                        const std::vector<NamedCommit>& commits, Logger& log);

// `revision` resolved in `mirror` as a NamedCommit labelled `label`; nullopt when it does not resolve
// (the command reports that itself, in its own words).
std::optional<NamedCommit> named_commit(GitMirror& mirror, const std::string& label,
                                        const std::string& revision);

// Whether a function the static view does not find is surely not there for `extractor`: a
// runtime extraction also sees what compiled modules and import-time code define.
bool statically_definitive(const std::string& extractor);
inline constexpr const char* k_static_blind_spot =
    "not found statically; the runtime extractor may still find it in a compiled module";

// Watch and replay at start-up: names each of config's functions found neither at `commits` nor
// ever recorded in `store` (a function removed upstream long ago is no mistake), as an ERROR, or as
// a WARNING when the extractor is not static. Returns how many.
std::size_t log_unfound_functions(const Config& config, GitMirror& mirror, Runtime& runtime,
                                  StateStore& store, const std::vector<NamedCommit>& commits, Logger& log);

}  // namespace aaw::cli
