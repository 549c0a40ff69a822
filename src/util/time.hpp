// Time points and their ISO 8601 spelling, as the state store, events.jsonl and the log write them.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace aaw {

using TimePoint = std::chrono::system_clock::time_point;
using Duration = std::chrono::milliseconds;

// "2025-04-26T17:41:54+02:00": seconds since the epoch shown in a UTC offset (an author date).
std::string iso8601(std::int64_t seconds, int offset_minutes);

// "2026-11-21T06:07:23Z": a UTC time.
std::string iso8601_utc(std::int64_t seconds);
std::string iso8601_utc(TimePoint time);

// Seconds since the epoch of a time point (rounded down).
std::int64_t epoch_seconds(TimePoint time);

// "2026-11-21T06:07:23Z" -> seconds since the epoch; nullopt for anything else.
std::optional<std::int64_t> parse_iso8601_utc(std::string_view text);

// Any ISO 8601 date or date-time people and git write: "2026-11-21", "2026-11-21T06:07",
// "2026-11-21 06:07:23", with "Z", "+02:00" or "-0530" (none: UTC) -> seconds since the epoch;
// nullopt for anything else.
std::optional<std::int64_t> parse_iso8601(std::string_view text);

}  // namespace aaw
