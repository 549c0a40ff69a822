#include "core/report/history_query.hpp"

#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

namespace aaw {
namespace {

constexpr std::int64_t k_day = 24 * 3600;

std::optional<std::int64_t> commit_date_of(const Json& change) {
  auto date = change.find("commit_date");
  if (date == change.end() || !date->is_string()) return std::nullopt;
  return parse_iso8601(date->get<std::string>());
}

Result<bool> keeps(const Json& change, const HistoryQuery& query) {
  if ((query.since || query.until) && !within_dates(commit_date_of(change), query)) return false;
  if (!severe_enough(change, query)) return false;
  if (query.in_range) return query.in_range(ObjectId{change.value("commit", "")});
  return true;
}

// "3 days ago" -> seconds, nullopt for anything else.
std::optional<std::int64_t> ago(std::string_view text) {
  long count = 0;
  char unit[16] = {};
  int consumed = 0;
  std::string copy(text);
  if (std::sscanf(copy.c_str(), "%ld %15s ago%n", &count, unit, &consumed) != 2 ||
      static_cast<std::size_t>(consumed) != copy.size() || count < 0)
    return std::nullopt;
  std::string name(unit);
  if (!name.empty() && name.back() == 's') name.pop_back();
  static const std::pair<std::string_view, std::int64_t> k_units[] = {
      {"minute", 60}, {"hour", 3600}, {"day", k_day}, {"week", 7 * k_day}};
  for (const auto& [unit_name, seconds] : k_units)
    if (name == unit_name)  // further back than anything recorded: the start of time
      return count > std::numeric_limits<std::int64_t>::max() / seconds / 2
                 ? std::numeric_limits<std::int64_t>::max() / 2
                 : count * seconds;
  return std::nullopt;
}

}  // namespace

bool within_dates(std::optional<std::int64_t> date, const HistoryQuery& query) {
  if (!query.since && !query.until) return true;
  return date && !(query.since && *date < *query.since) && !(query.until && *date > *query.until);
}

bool severe_enough(const Json& object, const HistoryQuery& query) {
  if (!query.min_severity) return true;
  auto severity = parse_severity(object.value("severity", ""));
  return severity && *severity >= *query.min_severity;
}

Result<std::vector<Json>> select_history(const std::vector<Json>& changes, const HistoryQuery& query) {
  std::vector<Json> kept;
  for (const Json& change : changes) {
    auto keep = keeps(change, query);
    if (!keep) return keep.error();
    if (*keep) kept.push_back(change);
  }
  if (query.limit && kept.size() > *query.limit)
    kept.erase(kept.begin(), kept.end() - static_cast<std::ptrdiff_t>(*query.limit));
  return kept;
}

Result<std::int64_t> parse_history_date(std::string_view text, TimePoint now, bool end_of_day) {
  if (auto seconds = ago(text)) return epoch_seconds(now) - *seconds;
  auto date = parse_iso8601(text);
  if (!date)
    return Error(ErrorCode::invalid_input, "'" + std::string(text) +
                                               "' is not a date: expected YYYY-MM-DD, an ISO 8601 date-time "
                                               "or 'N days ago'");
  return end_of_day && text.size() == 10 ? *date + k_day - 1 : *date;
}

}  // namespace aaw
