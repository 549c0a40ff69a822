// Waivers: changes a provider accepts on purpose, each with the change's fingerprint, a reason
// and who accepted it, and an optional last day. A waived change is shown as accepted and does not
// fail the gate. The file: {"waivers": [{"fingerprint", "reason", "accepted_by", "expires"?,
// "function"?, "kind"?, "parameter"?}]} (the last three are for the reader; matching is by
// fingerprint only).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/diff.hpp"
#include "util/result.hpp"

namespace aaw {

// The name of the waivers file looked for in a checkout and next to the config.
inline constexpr std::string_view k_waivers_file_name = ".aiter-api-watcher-waivers.json";

struct Waiver {
  std::string fingerprint;
  std::string reason;
  std::string accepted_by;
  std::optional<std::string> expires;         // "2026-12-31" as written: the last day it applies
  std::optional<std::int64_t> expires_after;  // the end of that day (UTC), seconds since the epoch
  std::string function;                       // informational
  std::string kind;                           // informational
  std::size_t index = 0;                      // its position in the file, for messages

  // Whether the waiver has run out at `now` (seconds since the epoch).
  bool expired_at(std::int64_t now) const { return expires_after && now > *expires_after; }
};

struct WaiverFile {
  std::filesystem::path path;  // empty: no file
  std::vector<Waiver> waivers;
};

// The stable fingerprint of one change of one function: 16 hex digits of FNV-1a over the change
// kind, the function path, the import statement and the parameter the change names (if any).
// The same change gets the same fingerprint on every run and in every format.
std::string change_fingerprint(const MonitoredFunction& function, const Change& change);

// Parses a waivers file's text; `source` names it in messages. invalid_input naming the file and
// the entry ("w.json: waivers[2].reason: must not be empty") for anything that does not fit,
// duplicate fingerprints included.
Result<WaiverFile> parse_waivers(std::string_view text, const std::filesystem::path& source);
// Reads and parses a file; io naming it when it cannot be read.
Result<WaiverFile> load_waivers(const std::filesystem::path& path);

// A waiver entry to paste for a change: fingerprint, function, kind and parameter filled in,
// reason and accepted_by left empty (a parse_waivers error until someone fills them).
Json suggested_waiver(const MonitoredFunction& function, const Change& change);

}  // namespace aaw
