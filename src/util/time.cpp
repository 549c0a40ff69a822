#include "aaw/util/time.hpp"

#include <cstdio>
#include <ctime>

namespace aaw {

std::string iso8601(std::int64_t seconds, int offset_minutes) {
  std::time_t local = static_cast<std::time_t>(seconds + std::int64_t{offset_minutes} * 60);
  std::tm tm{};
  gmtime_r(&local, &tm);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
  int magnitude = offset_minutes < 0 ? -offset_minutes : offset_minutes;
  char zone[24];
  std::snprintf(zone, sizeof zone, "%c%02d:%02d", offset_minutes < 0 ? '-' : '+', magnitude / 60,
                magnitude % 60);
  return std::string(date) + zone;
}

std::string iso8601_utc(std::int64_t seconds) { return iso8601(seconds, 0).substr(0, 19) + "Z"; }

std::string iso8601_utc(TimePoint time) { return iso8601_utc(epoch_seconds(time)); }

std::int64_t epoch_seconds(TimePoint time) {
  return std::chrono::floor<std::chrono::seconds>(time.time_since_epoch()).count();
}

std::optional<std::int64_t> parse_iso8601_utc(std::string_view text) {
  std::tm tm{};
  char zulu = 0;
  std::string copy(text);
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &zulu) != 7 ||
      zulu != 'Z' || copy.size() != 20)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<std::int64_t>(timegm(&tm));
}

}  // namespace aaw
