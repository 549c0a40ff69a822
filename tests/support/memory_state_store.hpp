// InMemoryStateStore: the StateStore port held in memory, for tests of the core that need a store
// but not SQLite. It keeps the port's contract (tests/core/ports/state_store_test.cpp runs the same
// suite against it and against the SQLite store): a record is taken whole or not at all, a commit
// recorded again keeps its place, changes, events and notifications are not duplicated, and the
// baseline skips failures of the machinery. Batches are accepted and write at once.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/ports/state_store.hpp"

namespace aaw::test {

class InMemoryStateStore final : public StateStore {
 public:
  Result<void> record(const CommitRecord& record) override;
  Result<std::optional<CommitStatus>> commit_status(const ObjectId& commit) override;
  Result<std::vector<FunctionState>> states_at(const ObjectId& commit) override;
  Result<std::vector<FunctionState>> baseline(const std::optional<ObjectId>& up_to) override;
  Result<std::optional<ObjectId>> line_head() override;
  Result<std::vector<Json>> history(const std::optional<std::string>& function_path) override;
  Result<std::vector<StoredEvent>> events_after(std::int64_t after) override;
  Result<std::int64_t> commit_count() override;
  Result<FailedCommits> failed_commits() override;
  Result<std::vector<ObjectId>> processed_commits() override;
  Result<void> set_value(std::string_view key, std::string_view value) override;
  Result<std::optional<std::string>> value(std::string_view key) override;
  Result<std::vector<OutboxItem>> due_notifications(TimePoint now, std::size_t limit) override;
  Result<std::optional<TimePoint>> next_notification_due() override;
  Result<void> update_notification(const OutboxItem& item) override;
  Result<void> set_pull_request(const ObjectId& commit, std::string_view url) override;
  Result<OutboxCounts> outbox_counts() override;
  Result<std::vector<OutboxItem>> notifications(OutboxState state, std::size_t limit) override;

  // Makes the next `count` calls of record() fail with an io error, recording nothing.
  void fail_records(int count) { m_failing_records = count; }

 private:
  struct Commit {
    CommitStatus status;
    std::vector<FunctionState> states;
  };
  struct Change {
    std::int64_t sequence = 0;
    std::size_t function = 0;  // index in m_functions
    Json json;
  };
  struct Outboxed {
    OutboxItem item;
    std::int64_t sequence = 0;
    std::size_t function = 0;
  };

  Result<std::vector<MonitoredFunction>> check(const CommitRecord& record) const;
  std::int64_t write_commit(const CommitRecord& record);
  std::size_t function_index(const MonitoredFunction& function);
  void write_change(std::int64_t sequence, const MonitoredFunction& function, const Json& change);
  void write_notification(std::int64_t sequence, const MonitoredFunction& function,
                          const Notification& notification);

  std::map<std::string, Commit> m_commits;  // by sha
  std::vector<MonitoredFunction> m_functions;
  std::vector<Change> m_changes;
  std::vector<StoredEvent> m_events;
  std::map<std::string, std::int64_t> m_event_keys;
  std::vector<Outboxed> m_outbox;
  std::map<std::string, std::string, std::less<>> m_values;
  int m_failing_records = 0;
};

}  // namespace aaw::test
