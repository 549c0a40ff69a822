#include "core/report/history_rewrites.hpp"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "util/time.hpp"

namespace aaw {
namespace {

// What identifies a change among the recorded lines: its commit and function.
std::string change_key(const Json& change) {
  return change.value("commit", "") + '\n' + change.value("import_statement", "") + '\n' +
         change.value("function_path", "");
}

bool keeps_function(const Json& function, const std::optional<std::string>& function_path,
                    const HistoryQuery& query) {
  if (function_path && function.value("function_path", "") != *function_path) return false;
  return severe_enough(function, query);
}

Result<bool> keeps_rewrite(Json& event, const std::optional<std::string>& function_path,
                           const HistoryQuery& query) {
  if ((query.since || query.until) && !within_dates(parse_iso8601(event.value("time", "")), query))
    return false;
  if (query.in_range) {
    auto in = query.in_range(ObjectId{event.value("new_head", "")});
    if (!in || !*in) return in;
  }
  if (!function_path && !query.min_severity) return true;
  Json kept = Json::array();
  for (const Json& function : event.value("functions", Json::array()))
    if (keeps_function(function, function_path, query)) kept.push_back(function);
  event["functions"] = kept;
  return !kept.empty();
}

}  // namespace

Result<std::vector<StoredEvent>> select_rewrites(const std::vector<StoredEvent>& events,
                                                 const std::optional<std::string>& function_path,
                                                 const HistoryQuery& query) {
  std::vector<StoredEvent> kept;
  for (const StoredEvent& stored : events) {
    if (!is_history_rewrite(stored.event)) continue;
    StoredEvent rewrite = stored;
    rewrite.event["event_id"] = stored.id;
    auto keep = keeps_rewrite(rewrite.event, function_path, query);
    if (!keep) return keep.error();
    if (*keep) kept.push_back(std::move(rewrite));
  }
  return kept;
}

std::vector<HistoryEntry> in_recorded_order(const std::vector<Json>& changes,
                                            const std::vector<StoredEvent>& rewrites,
                                            const std::vector<StoredEvent>& events, bool limited) {
  std::map<std::string, std::int64_t> recorded;  // change key -> the id of its line
  for (const StoredEvent& stored : events)
    if (stored.event.is_object() && stored.event.value("type", "") == "change")
      recorded.emplace(change_key(stored.event), stored.id);
  // A change with no line of its own (an older store) keeps its place after the ones before it.
  std::int64_t last = 0;
  auto id_of = [&](const Json& change) {
    auto found = recorded.find(change_key(change));
    if (found != recorded.end()) last = found->second;
    return last;
  };
  std::vector<HistoryEntry> out;
  std::size_t next = 0;
  if (limited && !changes.empty()) {
    const std::int64_t first = id_of(changes.front());
    while (next < rewrites.size() && rewrites[next].id < first) ++next;
  }
  for (const Json& change : changes) {
    const std::int64_t id = id_of(change);
    for (; next < rewrites.size() && rewrites[next].id < id; ++next)
      out.push_back({nullptr, &rewrites[next]});
    out.push_back({&change, nullptr});
  }
  for (; next < rewrites.size(); ++next) out.push_back({nullptr, &rewrites[next]});
  return out;
}

namespace {

// Each commit a history_rewritten event of `events` lists among "abandoned", with the first such.
std::map<std::string, const StoredEvent*> abandoning_rewrites(const std::vector<StoredEvent>& events) {
  std::map<std::string, const StoredEvent*> first;
  for (const StoredEvent& e : events) {
    if (!is_history_rewrite(e.event)) continue;
    auto line = e.event.find("abandoned");
    if (line == e.event.end() || !line->is_array()) continue;
    for (const Json& commit : *line)
      if (commit.is_string()) first.emplace(commit.get<std::string>(), &e);
  }
  return first;
}

Json abandoned_by_in(const std::map<std::string, const StoredEvent*>& rewrites, const std::string& commit,
                     const RecordedAt& recorded_at) {
  auto found = rewrites.find(commit);
  if (found == rewrites.end()) return nullptr;
  const std::string seen = found->second->event.value("time", std::string());
  const std::optional<std::string> recorded = recorded_at(commit);
  if (recorded && *recorded > seen) return nullptr;  // processed again since: back on the branch
  return {{"event_id", found->second->id}, {"time", seen}};
}

}  // namespace

Json abandoned_by(const std::string& commit, const std::vector<StoredEvent>& events,
                  const RecordedAt& recorded_at) {
  return abandoned_by_in(abandoning_rewrites(events), commit, recorded_at);
}

void mark_abandoned(std::vector<Json>& changes, const std::vector<StoredEvent>& events,
                    const RecordedAt& recorded_at) {
  const auto rewrites = abandoning_rewrites(events);
  if (rewrites.empty()) return;
  for (Json& change : changes) {
    Json by = abandoned_by_in(rewrites, change.value("commit", std::string()), recorded_at);
    if (!by.is_null()) change["abandoned_by"] = std::move(by);
  }
}

}  // namespace aaw
