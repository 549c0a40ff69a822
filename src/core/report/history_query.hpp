// What `history` shows of the recorded changes: a time window on the commit date, a commit range,
// a least severity and a count, applied to the FUNCTION_CHANGE objects the state store returns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/diff.hpp"
#include "core/model/signature.hpp"
#include "core/ports/source_tree.hpp"
#include "util/result.hpp"
#include "util/time.hpp"

namespace aaw {

struct HistoryQuery {
  std::optional<std::int64_t> since;  // commit date at or after (seconds since the epoch)
  std::optional<std::int64_t> until;  // commit date at or before
  std::optional<Severity> min_severity;
  std::optional<std::size_t> limit;  // only the newest N (still listed oldest first)
  // Whether a commit is in the asked range (--range A..B); none: every commit.
  std::function<Result<bool>(const ObjectId&)> in_range;
};

// Whether `date` (seconds since the epoch; nullopt when unknown) is within --since and --until:
// always without them, never for an unknown date with them.
bool within_dates(std::optional<std::int64_t> date, const HistoryQuery& query);

// Whether `object`'s "severity" is at least --severity (always without it; never when it has none).
bool severe_enough(const Json& object, const HistoryQuery& query);

// The changes of `changes` (oldest first, as StateStore::history returns them) that `query` keeps,
// oldest first. An Error when in_range fails.
Result<std::vector<Json>> select_history(const std::vector<Json>& changes, const HistoryQuery& query);

// A --since/--until value: an ISO 8601 date or date-time ("2025-01-31", "2025-01-31T12:00+02:00")
// or "N minutes|hours|days|weeks ago" before `now`. `end_of_day`: a date alone means the end of
// that day (for --until, so that the day is included). invalid_input naming the value otherwise.
Result<std::int64_t> parse_history_date(std::string_view text, TimePoint now, bool end_of_day);

}  // namespace aaw
