#include "aaw/function_change.hpp"

#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

namespace aaw {

std::string iso8601(std::int64_t seconds, int offset_minutes) {
  std::time_t local = static_cast<std::time_t>(seconds + std::int64_t{offset_minutes} * 60);
  std::tm tm{};
  gmtime_r(&local, &tm);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
  int magnitude = offset_minutes < 0 ? -offset_minutes : offset_minutes;
  char zone[24];
  std::snprintf(zone, sizeof zone, "%c%02d:%02d", offset_minutes < 0 ? '-' : '+', magnitude / 60, magnitude % 60);
  return std::string(date) + zone;
}

std::string iso8601_utc(std::int64_t seconds) { return iso8601(seconds, 0).substr(0, 19) + "Z"; }

std::string author_of(const CommitInfo& commit) {
  if (commit.author_email.empty()) return commit.author_name;
  return commit.author_name + " <" + commit.author_email + ">";
}

Json to_json(const FunctionChange& c) {
  Json changes = Json::array();
  for (const Change& change : c.changes) changes.push_back(to_json(change));
  auto severity = highest(c.changes);
  return {{"commit", c.commit.id.hex},
          {"commit_date", iso8601(c.commit.author_time, c.commit.author_offset_minutes)},
          {"author", author_of(c.commit)},
          {"subject", c.commit.subject},
          {"pull_request", c.pull_request ? Json(*c.pull_request) : Json(nullptr)},
          {"import_statement", c.function.import_statement},
          {"function_path", c.function.function_path},
          {"old", to_json(c.before)},
          {"new", to_json(c.after)},
          {"changes", changes},
          {"severity", severity ? Json(to_string(*severity)) : Json(nullptr)}};
}

}  // namespace aaw
