// The daemon's only persistent state: a SQLite database (WAL) at state_dir/state.db holding the
// processed commits, the state of every monitored function at each of them (a distinct state is
// stored once and referenced), the FUNCTION_CHANGE records, the events still to be appended to
// events.jsonl, the outbox of notifications (GitHub issues, webhook posts) with their delivery
// state, and a few named values (the last seen remote head, the last poll).
//
// All results of one commit are written in one transaction (record()): after a crash at any
// instant a commit is either fully recorded or not at all. The schema is versioned
// (PRAGMA user_version) and migrated forward on open.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/signature.hpp"
#include "core/ports/clock.hpp"
#include "core/ports/git_mirror.hpp"
#include "util/result.hpp"

namespace aaw {

struct FunctionState {
  MonitoredFunction function;
  SignatureState state;
  bool operator==(const FunctionState&) const = default;
};

enum class CommitOutcome {
  processed,  // states extracted and recorded
  failed,     // the commit could not be read (missing object, unreadable tree): error says why
};

std::string_view to_string(CommitOutcome outcome);

// What record() puts into the outbox: one FUNCTION_CHANGE of the record's commit for one target.
struct Notification {
  std::string target;  // a notification channel's name (notify/channel_registry.hpp)
  Json payload;        // the FUNCTION_CHANGE
  bool operator==(const Notification&) const = default;
};

enum class OutboxState {
  pending,    // to be delivered at next_attempt_at or later
  delivered,  // done: delivered_ref says where (the issue URL), when there is such a place
  failed,     // given up on after repeated refusals; last_error says why
};

std::string_view to_string(OutboxState state);

// One outbox row: a notification and how its delivery went so far.
struct OutboxItem {
  std::int64_t id = 0;
  std::string target;
  Json payload;  // the FUNCTION_CHANGE, with its pull_request once known
  OutboxState state = OutboxState::pending;
  int attempts = 0;             // deliveries tried
  int client_errors = 0;        // consecutive refusals (4xx other than rate limits)
  TimePoint next_attempt_at{};  // not before; the epoch for a new row (due at once)
  std::string last_error;       // of the last failed attempt; empty after a success
  std::string delivered_ref;    // the issue URL, when delivered as an issue
  std::string created_at;       // UTC, ISO 8601
  std::string updated_at;       // UTC, ISO 8601
};

struct OutboxCounts {
  std::int64_t pending = 0;
  std::int64_t delivered = 0;
  std::int64_t failed = 0;
};

// Everything recorded for one commit, written in one transaction.
struct CommitRecord {
  CommitInfo commit;
  CommitOutcome outcome = CommitOutcome::processed;
  std::string error;                        // why, when failed
  std::vector<FunctionState> states;        // one per monitored function; empty when failed
  std::vector<Json> changes;                // FUNCTION_CHANGE objects found at this commit
  std::vector<Json> events;                 // lines for events.jsonl, in order
  std::vector<Notification> notifications;  // outbox rows, one per (target, change)
  bool advances_line = false;               // this commit becomes the last processed of the watched branch
  bool bisected = false;                    // not built: a bisection showed it unchanged (states inferred)
  // A hint that spares the store comparing every state with the last: `states` are those recorded
  // at `commit`, for the same functions in the same order, but at the `changed` positions
  // (increasing). A store may ignore it, and uses it only when `commit` is the one it recorded last.
  struct Since {
    ObjectId commit;
    std::vector<std::size_t> changed;
  };
  std::optional<Since> since;
};

struct CommitStatus {
  ObjectId commit;
  CommitOutcome outcome = CommitOutcome::processed;
  std::string error;
  std::int64_t sequence = 0;  // processing order, from 1
  std::string recorded_at;    // UTC, ISO 8601
  bool bisected = false;      // as last recorded: not built, states inferred by a bisection
};

struct StoredEvent {
  std::int64_t id = 0;  // increasing; events.jsonl is appended in this order
  Json event;
};

// What makes an event the same as one recorded before (record() keeps the first): its type, commit
// and function when it names a commit, else everything but its "time". Identity, not content: an
// event carries its time, and a re-run may word it differently.
std::string event_identity(const Json& event);

// Whether a JSON object (a recorded event, a notification's payload) is a force-push's
// history_rewritten (core/watch/history_rewrite.hpp) rather than a FUNCTION_CHANGE.
bool is_history_rewrite(const Json& json);

// The function a FUNCTION_CHANGE recorded at `commit` is about; invalid_input when it lacks the
// string fields "commit", "import_statement" and "function_path", or names another commit. A
// history_rewritten notice (a notification's payload) needs no "commit".
Result<MonitoredFunction> function_of_change(const Json& change, const ObjectId& commit);

// The commits recorded as failed (not processed: their states are unknown), and the latest.
struct FailedCommits {
  std::int64_t count = 0;
  std::optional<CommitStatus> last;
};

class StateStore {
 public:
  virtual ~StateStore() = default;

  // Writes the whole record in one transaction. Recording a commit again replaces its states and
  // status; a change or event already recorded for the same (commit, function, kind) is not
  // duplicated, nor a notification for the same (target, commit, import statement, function path):
  // the one already there keeps its payload and delivery state.
  virtual Result<void> record(const CommitRecord& record) = 0;

  // Until end_batch(), every write (record() and the others) goes into one transaction instead of
  // one each, for a replay that records a commit every millisecond or so. Each write still keeps
  // or loses all of itself; none is seen by another connection before end_batch(), and a crash
  // loses the batch (its commits are processed again on restart). end_batch() commits; an Error
  // there means nothing of the batch was kept. A store without transactions writes at once.
  virtual Result<void> begin_batch() { return {}; }
  virtual Result<void> end_batch() { return {}; }

  // nullopt when the commit has not been recorded.
  virtual Result<std::optional<CommitStatus>> commit_status(const ObjectId& commit) = 0;

  // The states recorded at `commit` (empty when not recorded or failed), in recording order.
  virtual Result<std::vector<FunctionState>> states_at(const ObjectId& commit) = 0;

  // For every function ever recorded: its latest state that is not a machinery failure, among the
  // commits recorded up to and including `up_to` in processing order (all commits when nullopt).
  // This is what the next commit is diffed against. not_found when `up_to` is not recorded.
  virtual Result<std::vector<FunctionState>> baseline(const std::optional<ObjectId>& up_to) = 0;

  // The last commit recorded with advances_line, i.e. where continuous monitoring resumes.
  virtual Result<std::optional<ObjectId>> line_head() = 0;

  // FUNCTION_CHANGE objects in processing order, oldest first; only those of `function_path`
  // (under any import statement) when given.
  virtual Result<std::vector<Json>> history(const std::optional<std::string>& function_path) = 0;

  // Events with id > `after`, oldest first.
  virtual Result<std::vector<StoredEvent>> events_after(std::int64_t after) = 0;

  virtual Result<std::int64_t> commit_count() = 0;
  virtual Result<FailedCommits> failed_commits() = 0;
  // The commits recorded as processed, in processing order (what a back-fill walks again).
  virtual Result<std::vector<ObjectId>> processed_commits() = 0;

  // Small named values ("remote_head", "last_poll_time", ...), each written in its own transaction.
  virtual Result<void> set_value(std::string_view key, std::string_view value) = 0;
  virtual Result<std::optional<std::string>> value(std::string_view key) = 0;

  // ---- the outbox ----

  // Pending notifications with next_attempt_at <= now, oldest first, at most `limit`.
  virtual Result<std::vector<OutboxItem>> due_notifications(TimePoint now, std::size_t limit) = 0;

  // The earliest next_attempt_at among pending notifications; nullopt when none is pending.
  virtual Result<std::optional<TimePoint>> next_notification_due() = 0;

  // Writes how a delivery went: state, attempts, client_errors, next_attempt_at, last_error and
  // delivered_ref of the row `item.id` (never its target or payload), and updated_at.
  // not_found when there is no such row.
  virtual Result<void> update_notification(const OutboxItem& item) = 0;

  // Sets "pull_request" to `url` in every FUNCTION_CHANGE recorded at `commit` and in the payload
  // of every notification of it, in one transaction (history and later deliveries show it).
  // Nothing happens for a commit not recorded.
  virtual Result<void> set_pull_request(const ObjectId& commit, std::string_view url) = 0;

  virtual Result<OutboxCounts> outbox_counts() = 0;

  // Notifications in `state`, the most recently updated first, at most `limit`.
  virtual Result<std::vector<OutboxItem>> notifications(OutboxState state, std::size_t limit) = 0;
};

}  // namespace aaw
