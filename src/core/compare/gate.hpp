// The gate over a comparison: each change's level (levels.hpp) and waiver (waivers.hpp), the
// waivers nothing matched, and the exit code, in the one versioned document every format of
// `compare` renders from (schemas/compare-1.schema.json): JSON as it is, text, Markdown, SARIF,
// GitHub workflow commands and the job summary.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/compare/compare.hpp"
#include "core/compare/levels.hpp"
#include "core/compare/waivers.hpp"
#include "core/report/log.hpp"

namespace aaw {

inline constexpr std::string_view k_compare_schema = "aiter-api-watcher/compare/1";

// How the two commits were named: OLD and NEW, or with --merge-base, BASE and HEAD (old is then
// their merge base).
struct CompareRange {
  std::string old_revision;
  std::string new_revision;
  bool merge_base = false;
};

struct GateOptions {
  LevelPolicy levels;
  WaiverFile waivers;
  std::int64_t now = 0;  // seconds since the epoch: which waivers have expired
  bool strict_waivers = false;
  CompareRange range;
  // What made the run an error besides the comparison itself (a function found at neither commit,
  // a consumer that could not be read): each in the document's "errors", and exit code 2.
  std::vector<std::string> errors;
};

// The document: {"schema", "old", "new", "range", "functions": [{"import_statement",
// "function_path", "old", "new", "old_location"?, "new_location"?, "changes": [CHANGE +
// {"description", "fingerprint", "level", "accepted", "waiver"}], "consumer_impact"?}],
// "summary": {...}, "waivers": {"file", "unused", "expired"}, "errors": [text], "exit_code"}.
// exit_code: 2 when `options.errors` holds any (the process exits with it: no document says 0 of a
// run that failed), else 1 when a deny change is not accepted (or, with strict_waivers, a waiver is
// unused), else 2 when a function could not be extracted on one side, else 0.
Json compare_document(const Comparison& comparison, const GateOptions& options);

// Under the log lines of a comparison: one line per accepted change, a warning per expired and
// per unused waiver, and the gate's verdict.
void log_gate(Logger& log, const Json& document);

// {"waivers": [...]}: an entry to paste for every change of the document not accepted yet.
Json suggest_waivers(const Comparison& comparison, const Json& document);

}  // namespace aaw
