#include "util/time.hpp"

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

namespace {

// "+02:00", "-0530", "Z" or "" (UTC) -> seconds east of UTC; nullopt for anything else.
std::optional<int> zone_offset(std::string_view zone) {
  if (zone.empty() || zone == "Z" || zone == "z") return 0;
  int hours = 0, minutes = 0, consumed = 0;
  std::string text(zone.substr(1));
  if ((zone[0] != '+' && zone[0] != '-') ||
      (std::sscanf(text.c_str(), "%2d:%2d%n", &hours, &minutes, &consumed) != 2 &&
       std::sscanf(text.c_str(), "%2d%2d%n", &hours, &minutes, &consumed) != 2) ||
      static_cast<std::size_t>(consumed) != text.size() || hours > 14 || minutes > 59)
    return std::nullopt;
  return (zone[0] == '-' ? -1 : 1) * (hours * 3600 + minutes * 60);
}

// February 30th is no date: timegm would read it as March 2nd.
int days_in_month(int year, int month) {
  static constexpr int k_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : k_days[month - 1];
}

}  // namespace

std::optional<std::int64_t> parse_iso8601(std::string_view text) {
  std::tm tm{};
  int consumed = 0;
  std::string copy(text);
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &consumed) != 3 ||
      consumed != 10)
    return std::nullopt;
  std::string_view rest = text.substr(10);
  if (!rest.empty()) {
    if (rest[0] != 'T' && rest[0] != ' ') return std::nullopt;
    int time_consumed = 0;
    std::string clock(rest.substr(1));
    if (std::sscanf(clock.c_str(), "%2d:%2d:%2d%n", &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &time_consumed) !=
            3 &&
        std::sscanf(clock.c_str(), "%2d:%2d%n", &tm.tm_hour, &tm.tm_min, &time_consumed) != 2)
      return std::nullopt;
    rest = rest.substr(1 + static_cast<std::size_t>(time_consumed));
  }
  auto offset = zone_offset(rest);
  if (!offset || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 ||
      tm.tm_mday > days_in_month(tm.tm_year, tm.tm_mon) || tm.tm_hour > 23 || tm.tm_min > 59 ||
      tm.tm_sec > 60)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<std::int64_t>(timegm(&tm)) - *offset;
}

}  // namespace aaw
