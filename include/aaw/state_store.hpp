// The daemon's only persistent state: a SQLite database (WAL) at state_dir/state.db holding the
// processed commits, the state of every monitored function at each of them (a distinct state is
// stored once and referenced), the FUNCTION_CHANGE records, the events still to be appended to
// events.jsonl, and a few named values (the last seen remote head, the last poll).
//
// All results of one commit are written in one transaction (record()): after a crash at any
// instant a commit is either fully recorded or not at all. The schema is versioned
// (PRAGMA user_version) and migrated forward on open.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aaw/git_mirror.hpp"
#include "aaw/result.hpp"
#include "aaw/signature.hpp"

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

// Everything recorded for one commit, written in one transaction.
struct CommitRecord {
  CommitInfo commit;
  CommitOutcome outcome = CommitOutcome::processed;
  std::string error;                 // why, when failed
  std::vector<FunctionState> states; // one per monitored function; empty when failed
  std::vector<Json> changes;         // FUNCTION_CHANGE objects found at this commit
  std::vector<Json> events;          // lines for events.jsonl, in order
  bool advances_line = false;        // this commit becomes the last processed of the watched branch
  bool bisected = false;             // not built: a bisection showed it unchanged (states inferred)
};

struct CommitStatus {
  ObjectId commit;
  CommitOutcome outcome = CommitOutcome::processed;
  std::string error;
  std::int64_t sequence = 0;  // processing order, from 1
  std::string recorded_at;    // UTC, ISO 8601
};

struct StoredEvent {
  std::int64_t id = 0;  // increasing; events.jsonl is appended in this order
  Json event;
};

class StateStore {
 public:
  // Opens (creating and migrating as needed) the database at `path` for `repository_url`.
  // invalid_input when the database records another repository URL ("state store '<path>' belongs
  // to '<url>', not '<url>': use another state_dir"), or a schema newer than this binary knows;
  // io when the file cannot be opened or is not a database.
  static Result<std::unique_ptr<StateStore>> open(const std::filesystem::path& path,
                                                  std::string_view repository_url);
  virtual ~StateStore() = default;

  // Writes the whole record in one transaction. Recording a commit again replaces its states and
  // status; a change or event already recorded for the same (commit, function, kind) is not
  // duplicated.
  virtual Result<void> record(const CommitRecord& record) = 0;

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

  // Small named values ("remote_head", "last_poll_time", ...), each written in its own transaction.
  virtual Result<void> set_value(std::string_view key, std::string_view value) = 0;
  virtual Result<std::optional<std::string>> value(std::string_view key) = 0;
};

}  // namespace aaw
