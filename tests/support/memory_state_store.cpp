#include "support/memory_state_store.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

#include "util/time.hpp"

namespace aaw::test {
namespace {

constexpr std::string_view k_line_head = "line_head";

std::string utc_now() { return iso8601_utc(std::chrono::system_clock::now()); }

}  // namespace

// Everything that can make a record fail is checked before anything is written: a record is
// taken whole or not at all, as a transaction would.
Result<std::vector<MonitoredFunction>> InMemoryStateStore::check(const CommitRecord& record) const {
  std::vector<MonitoredFunction> functions;
  for (std::size_t i = 0; i < record.changes.size(); ++i) {
    auto function = function_of_change(record.changes[i], record.commit.id);
    if (!function) return function.error().context("change " + std::to_string(i));
    functions.push_back(std::move(*function));
  }
  for (std::size_t i = 0; i < record.events.size(); ++i) {
    if (!record.events[i].is_object())
      return Error(ErrorCode::invalid_input, "an event must be a JSON object")
          .context("event " + std::to_string(i));
  }
  for (std::size_t i = 0; i < record.notifications.size(); ++i) {
    auto function = function_of_change(record.notifications[i].payload, record.commit.id);
    if (!function) return function.error().context("notification " + std::to_string(i));
    functions.push_back(std::move(*function));
  }
  return functions;
}

Result<void> InMemoryStateStore::record(const CommitRecord& record) {
  const std::string what = "cannot record commit '" + record.commit.id.hex + "'";
  if (m_failing_records > 0) {
    --m_failing_records;
    return Error(ErrorCode::io, "disk I/O error (injected)").context(what);
  }
  auto functions = check(record);
  if (!functions) return functions.error().context(what);
  const std::int64_t sequence = write_commit(record);
  if (record.advances_line) m_values[std::string(k_line_head)] = record.commit.id.hex;
  for (const FunctionState& state : record.states) function_index(state.function);
  m_commits[record.commit.id.hex].states = record.states;
  std::size_t next = 0;
  for (const Json& change : record.changes) write_change(sequence, (*functions)[next++], change);
  for (const Json& event : record.events) {
    auto [known, added] = m_event_keys.try_emplace(event_identity(event), 0);
    if (!added) continue;  // an event recorded once stays as it was
    known->second = static_cast<std::int64_t>(m_events.size()) + 1;
    m_events.push_back(StoredEvent{known->second, event});
  }
  for (const Notification& notification : record.notifications)
    write_notification(sequence, (*functions)[next++], notification);
  return {};
}

// A new commit goes after every other; a known one keeps its sequence, and once it has advanced
// the line it keeps doing so. `bisected` is the latest record's.
std::int64_t InMemoryStateStore::write_commit(const CommitRecord& record) {
  auto [entry, added] = m_commits.try_emplace(record.commit.id.hex);
  CommitStatus& status = entry->second.status;
  if (added) status.sequence = static_cast<std::int64_t>(m_commits.size());
  status.commit = record.commit.id;
  status.outcome = record.outcome;
  status.error = record.error;
  status.recorded_at = utc_now();
  status.bisected = record.bisected;
  return status.sequence;
}

std::size_t InMemoryStateStore::function_index(const MonitoredFunction& function) {
  auto found = std::find(m_functions.begin(), m_functions.end(), function);
  if (found != m_functions.end()) return static_cast<std::size_t>(found - m_functions.begin());
  m_functions.push_back(function);
  return m_functions.size() - 1;
}

// A change recorded again for the same (commit, function) replaces the old one in its place.
void InMemoryStateStore::write_change(std::int64_t sequence, const MonitoredFunction& function,
                                      const Json& change) {
  const std::size_t index = function_index(function);
  for (Change& known : m_changes) {
    if (known.sequence == sequence && known.function == index) {
      known.json = change;
      return;
    }
  }
  m_changes.push_back(Change{sequence, index, change});
}

// One notification per (target, commit, function): the one already there keeps its payload and
// delivery state.
void InMemoryStateStore::write_notification(std::int64_t sequence, const MonitoredFunction& function,
                                            const Notification& notification) {
  const std::size_t index = function_index(function);
  // As the SQLite outbox (schema version 5): a rewrite's notice and a change are of two kinds.
  for (const Outboxed& known : m_outbox)
    if (known.sequence == sequence && known.function == index && known.item.target == notification.target &&
        is_history_rewrite(known.item.payload) == is_history_rewrite(notification.payload))
      return;
  OutboxItem item;
  item.id = static_cast<std::int64_t>(m_outbox.size()) + 1;
  item.target = notification.target;
  item.payload = notification.payload;
  item.created_at = item.updated_at = utc_now();
  m_outbox.push_back(Outboxed{std::move(item), sequence, index});
}

Result<std::optional<CommitStatus>> InMemoryStateStore::commit_status(const ObjectId& commit) {
  auto found = m_commits.find(commit.hex);
  if (found == m_commits.end()) return std::optional<CommitStatus>();
  return std::optional<CommitStatus>(found->second.status);
}

Result<std::vector<FunctionState>> InMemoryStateStore::states_at(const ObjectId& commit) {
  auto found = m_commits.find(commit.hex);
  if (found == m_commits.end()) return std::vector<FunctionState>{};
  return found->second.states;
}

Result<std::vector<FunctionState>> InMemoryStateStore::baseline(const std::optional<ObjectId>& up_to) {
  std::int64_t bound = std::numeric_limits<std::int64_t>::max();
  if (up_to) {
    auto found = m_commits.find(up_to->hex);
    if (found == m_commits.end())
      return Error(ErrorCode::not_found,
                   "commit '" + up_to->hex + "' is not recorded in the in-memory store");
    bound = found->second.status.sequence;
  }
  // Per function, in the order functions were first recorded: its state at the latest commit up to
  // the bound that holds one that is not a failure of the machinery.
  std::vector<std::pair<std::int64_t, const SignatureState*>> latest(m_functions.size(), {0, nullptr});
  for (const auto& [sha, commit] : m_commits) {
    if (commit.status.sequence > bound) continue;
    for (const FunctionState& state : commit.states) {
      if (is_machinery_failure(state.state.status)) continue;
      auto& [sequence, kept] = latest[function_index(state.function)];
      if (commit.status.sequence > sequence) {
        sequence = commit.status.sequence;
        kept = &state.state;
      }
    }
  }
  std::vector<FunctionState> states;
  for (std::size_t i = 0; i < latest.size(); ++i)
    if (latest[i].second != nullptr) states.push_back(FunctionState{m_functions[i], *latest[i].second});
  return states;
}

Result<std::optional<ObjectId>> InMemoryStateStore::line_head() {
  auto head = m_values.find(k_line_head);
  if (head == m_values.end()) return std::optional<ObjectId>();
  return std::optional<ObjectId>(ObjectId{head->second});
}

Result<std::vector<Json>> InMemoryStateStore::history(const std::optional<std::string>& function_path) {
  std::vector<const Change*> ordered;
  for (const Change& change : m_changes)
    if (!function_path || m_functions[change.function].function_path == *function_path)
      ordered.push_back(&change);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const Change* a, const Change* b) { return a->sequence < b->sequence; });
  std::vector<Json> out;
  for (const Change* change : ordered) out.push_back(change->json);
  return out;
}

Result<std::vector<StoredEvent>> InMemoryStateStore::events_after(std::int64_t after) {
  std::vector<StoredEvent> out;
  for (const StoredEvent& event : m_events)
    if (event.id > after) out.push_back(event);
  return out;
}

Result<std::int64_t> InMemoryStateStore::commit_count() {
  return static_cast<std::int64_t>(m_commits.size());
}

Result<FailedCommits> InMemoryStateStore::failed_commits() {
  FailedCommits out;
  for (const auto& [sha, commit] : m_commits) {
    if (commit.status.outcome != CommitOutcome::failed) continue;
    ++out.count;
    if (!out.last || commit.status.sequence > out.last->sequence) out.last = commit.status;
  }
  return out;
}

Result<std::vector<ObjectId>> InMemoryStateStore::processed_commits() {
  std::vector<std::pair<std::int64_t, ObjectId>> ordered;
  for (const auto& [sha, commit] : m_commits)
    if (commit.status.outcome == CommitOutcome::processed)
      ordered.emplace_back(commit.status.sequence, ObjectId{sha});
  std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<ObjectId> out;
  for (auto& [sequence, id] : ordered) out.push_back(std::move(id));
  return out;
}

Result<void> InMemoryStateStore::set_value(std::string_view key, std::string_view value) {
  m_values[std::string(key)] = std::string(value);
  return {};
}

Result<std::optional<std::string>> InMemoryStateStore::value(std::string_view key) {
  auto found = m_values.find(key);
  if (found == m_values.end()) return std::optional<std::string>();
  return std::optional<std::string>(found->second);
}

Result<std::vector<OutboxItem>> InMemoryStateStore::due_notifications(TimePoint now, std::size_t limit) {
  std::vector<OutboxItem> due;
  for (const Outboxed& entry : m_outbox)
    if (entry.item.state == OutboxState::pending && entry.item.next_attempt_at <= now)
      due.push_back(entry.item);
  std::stable_sort(due.begin(), due.end(), [](const OutboxItem& a, const OutboxItem& b) {
    return a.next_attempt_at < b.next_attempt_at;
  });
  if (due.size() > limit) due.resize(limit);
  return due;
}

Result<std::optional<TimePoint>> InMemoryStateStore::next_notification_due() {
  std::optional<TimePoint> next;
  for (const Outboxed& entry : m_outbox)
    if (entry.item.state == OutboxState::pending && (!next || entry.item.next_attempt_at < *next))
      next = entry.item.next_attempt_at;
  return next;
}

Result<void> InMemoryStateStore::update_notification(const OutboxItem& item) {
  for (Outboxed& entry : m_outbox) {
    if (entry.item.id != item.id) continue;
    OutboxItem& kept = entry.item;
    kept.state = item.state;
    kept.attempts = item.attempts;
    kept.client_errors = item.client_errors;
    kept.next_attempt_at = item.next_attempt_at;
    kept.last_error = item.last_error;
    kept.delivered_ref = item.delivered_ref;
    kept.updated_at = utc_now();
    return {};
  }
  return Error(ErrorCode::not_found,
               "no notification " + std::to_string(item.id) + " in the in-memory store");
}

Result<void> InMemoryStateStore::set_pull_request(const ObjectId& commit, std::string_view url) {
  auto found = m_commits.find(commit.hex);
  if (found == m_commits.end()) return {};
  const std::int64_t sequence = found->second.status.sequence;
  for (Change& change : m_changes)
    if (change.sequence == sequence) change.json["pull_request"] = std::string(url);
  for (Outboxed& entry : m_outbox)
    if (entry.sequence == sequence) entry.item.payload["pull_request"] = std::string(url);
  return {};
}

Result<OutboxCounts> InMemoryStateStore::outbox_counts() {
  OutboxCounts counts;
  for (const Outboxed& entry : m_outbox) {
    if (entry.item.state == OutboxState::pending) ++counts.pending;
    if (entry.item.state == OutboxState::delivered) ++counts.delivered;
    if (entry.item.state == OutboxState::failed) ++counts.failed;
  }
  return counts;
}

Result<std::vector<OutboxItem>> InMemoryStateStore::notifications(OutboxState state, std::size_t limit) {
  std::vector<OutboxItem> out;
  for (const Outboxed& entry : m_outbox)
    if (entry.item.state == state) out.push_back(entry.item);
  std::sort(out.begin(), out.end(), [](const OutboxItem& a, const OutboxItem& b) {
    return a.updated_at != b.updated_at ? a.updated_at > b.updated_at : a.id > b.id;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace aaw::test
