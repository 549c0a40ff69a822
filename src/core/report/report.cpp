#include "core/report/report.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "util/url.hpp"

namespace aaw {
namespace {

std::string text_field(const Json& json, const char* name) {
  auto found = json.find(name);
  return found != json.end() && found->is_string() ? found->get<std::string>() : std::string();
}

Result<std::vector<Change>> changes_from(const Json& record) {
  std::vector<Change> changes;
  auto list = record.find("changes");
  if (list == record.end() || list->is_null()) return changes;
  if (!list->is_array()) return Error(ErrorCode::invalid_input, "changes: expected an array");
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto change = change_from_json((*list)[i]);
    if (!change) return change.error().context("changes[" + std::to_string(i) + "]");
    changes.push_back(std::move(*change));
  }
  return changes;
}

// A FUNCTION_CHANGE (or an initial event, whose "old" is null) as a timeline entry.
Result<TimelineEntry> parse_entry(const Json& record) {
  TimelineEntry entry;
  entry.commit = text_field(record, "commit");
  entry.commit_date = text_field(record, "commit_date");
  entry.author = text_field(record, "author");
  entry.subject = text_field(record, "subject");
  if (std::string pr = text_field(record, "pull_request"); !pr.empty()) entry.pull_request = pr;
  auto old_state = record.find("old");
  if (old_state != record.end() && !old_state->is_null()) {
    auto before = state_from_json(*old_state);
    if (!before) return before.error().context("old");
    entry.before = std::move(*before);
  }
  auto new_state = record.find("new");
  if (new_state == record.end()) return Error(ErrorCode::invalid_input, "new: missing");
  auto after = state_from_json(*new_state);
  if (!after) return after.error().context("new");
  entry.after = std::move(*after);
  auto changes = changes_from(record);
  if (!changes) return changes.error();
  entry.changes = std::move(*changes);
  return entry;
}

MonitoredFunction function_of(const Json& record) {
  return {text_field(record, "import_statement"), text_field(record, "function_path")};
}

// The report's functions: functions_to_monitor first, in order; a function met later is appended.
class FunctionIndex {
 public:
  explicit FunctionIndex(const std::vector<MonitoredFunction>& monitored) {
    for (const MonitoredFunction& f : monitored) m_functions.push_back({f, true, {}, std::nullopt});
  }
  FunctionReport& at(const MonitoredFunction& function) {
    auto found = std::find_if(m_functions.begin(), m_functions.end(),
                              [&](const FunctionReport& r) { return r.function == function; });
    if (found != m_functions.end()) return *found;
    return m_functions.emplace_back(FunctionReport{function, false, {}, std::nullopt});
  }
  std::vector<FunctionReport> take() { return std::move(m_functions); }

 private:
  std::vector<FunctionReport> m_functions;
};

Result<void> add_records(FunctionIndex& index, const std::vector<Json>& records) {
  for (const Json& record : records) {
    MonitoredFunction function = function_of(record);
    auto entry = parse_entry(record);
    if (!entry) {
      return entry.error().context("recorded change of '" + function.function_path + "' at commit '" +
                                   text_field(record, "commit") + "'");
    }
    index.at(function).timeline.push_back(std::move(*entry));
  }
  return {};
}

Result<std::vector<Json>> initial_records(StateStore& store) {
  auto events = store.events_after(0);
  if (!events) return events.error();
  std::vector<Json> initials;
  for (const StoredEvent& e : *events)
    if (text_field(e.event, "type") == "initial") initials.push_back(e.event);
  return initials;
}

void add_details(std::vector<FunctionReport>& functions, const std::vector<ReportDetailSource*>& sources) {
  for (FunctionReport& f : functions) {
    for (TimelineEntry& entry : f.timeline) {
      if (entry.initial()) continue;
      for (ReportDetailSource* source : sources) {
        auto tables = source->details(f.function, entry);
        if (!tables) {
          entry.details.push_back({source->name(), {}, {}, "unavailable: " + tables.error().message()});
          continue;
        }
        for (DetailTable& table : *tables) entry.details.push_back(std::move(table));
      }
    }
  }
}

Result<void> add_latest(StateStore& store, FunctionIndex& index) {
  auto latest = store.baseline(std::nullopt);
  if (!latest) return latest.error();
  for (FunctionState& s : *latest) index.at(s.function).latest = std::move(s.state);
  return {};
}

Result<void> add_facts(StateStore& store, Report& report) {
  auto count = store.commit_count();
  if (!count) return count.error();
  report.commits_recorded = *count;
  auto failed = store.failed_commits();
  if (!failed) return failed.error();
  report.failed_commits = std::move(*failed);
  auto poll = read_poll_status(store);
  if (!poll) return poll.error();
  auto head = last_processed_commit(store, *poll);
  if (!head) return head.error();
  report.line_head = std::move(*head);
  report.poll = std::move(*poll);
  return {};
}

}  // namespace

Result<Report> build_report(StateStore& store, const ReportInput& input, TimePoint now) {
  Report report;
  report.repository_url = redact_url(input.repository_url);
  report.web_url = redact_url(input.web_url);
  while (!report.web_url.empty() && report.web_url.back() == '/') report.web_url.pop_back();
  report.branch = input.branch;
  report.generated_at = iso8601_utc(now);
  if (auto facts = add_facts(store, report); !facts) return facts.error();
  FunctionIndex index(input.functions);
  // Initial signatures first: a function's changes all come after it (they are diffed against it).
  auto initials = initial_records(store);
  if (!initials) return initials.error();
  if (auto added = add_records(index, *initials); !added) return added.error();
  auto history = store.history(std::nullopt);
  if (!history) return history.error();
  if (auto added = add_records(index, *history); !added) return added.error();
  if (auto latest = add_latest(store, index); !latest) return latest.error();
  report.functions = index.take();
  add_details(report.functions, input.detail_sources);
  return report;
}

}  // namespace aaw
