// One commit, start to finish: extract every monitored function, diff each against its baseline,
// log the original tool's lines, record everything (with the notifications the changes call for)
// in one state-store transaction (or in a batch's), then append the commit's events to
// events.jsonl (once the batch is committed).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/consumer/consumer_impact.hpp"
#include "core/model/config.hpp"
#include "core/model/diff.hpp"
#include "core/model/function_change.hpp"
#include "core/ports/clock.hpp"
#include "core/ports/git_mirror.hpp"
#include "core/ports/signature_source.hpp"
#include "core/ports/state_store.hpp"
#include "core/report/log.hpp"
#include "core/watch/bisect.hpp"
#include "core/watch/change_tally.hpp"
#include "core/watch/event_log.hpp"
#include "core/watch/history_rewrite.hpp"

namespace aaw {

// A configured notification target and the least severity it is told about.
struct NotificationTarget {
  std::string name;  // a notification channel (notify/channel_registry.hpp)
  Severity min_severity = Severity::breaking;
  // Only changes that break a call site of the consumer (notify.<channel>.only_if_consumer_breaks).
  bool only_if_consumer_breaks = false;
  bool operator==(const NotificationTarget&) const = default;
};

class CommitProcessor {
 public:
  // Every change whose severity is at least a target's min_severity is queued for that target, in
  // the transaction that records it.
  CommitProcessor(std::vector<MonitoredFunction> functions, GitMirror& mirror, SignatureSource& source,
                  StateStore& store, EventLog& events, Logger& log, Clock& clock,
                  std::vector<NotificationTarget> targets = {})
      : m_functions(std::move(functions)),
        m_mirror(mirror),
        m_source(source),
        m_store(store),
        m_events(events),
        m_log(log),
        m_clock(clock),
        m_targets(std::move(targets)) {}

  // From now on each change carries what it breaks in the consumer `assessor` reads (nullptr: no
  // consumer). The assessor outlives the processor or is replaced before it goes.
  void use_consumer(ImpactAssessor* assessor) { m_consumer = assessor; }

  // Processes `commit`, diffing against the last good states recorded up to `against` (nullopt:
  // the states are initial). A commit that cannot be read is recorded as failed with its error,
  // and that is not an Error here: an Error means the state store or the event log failed.
  // `verb` starts the log line: "Checking commit X" or "Processing commit X".
  // `extracted`: the commit's states when already extracted (by a bisection), else extracted here.
  Result<void> process(const ObjectId& commit, const std::optional<ObjectId>& against, bool advances_line,
                       std::string_view verb, const CommitStates* extracted = nullptr);

  // Records a commit a bisection showed unchanged without building it: `states` are the last good
  // states before it. Nothing is diffed (nothing changed) and no event is written.
  Result<void> record_unchanged(const ObjectId& commit, const CommitStates& states, bool advances_line);

  // The states of every monitored function at `commit`, from the source; recorded nowhere.
  Result<CommitStates> extract(const ObjectId& commit) { return m_source.extract(commit, m_functions); }

  // The monitored functions that have no state recorded at `commit` (the line head: functions
  // added to the config since) get one, keeping the states already there. With a source that reads
  // commits in milliseconds (static) their history is back-filled: every commit processed so far
  // is read again for them alone, in processing order, and their initial signature and changes are
  // recorded at the commits where they happened, marked "backfilled" and never notified (old news).
  // With a source that builds each commit, they are extracted at `commit` only and recorded as
  // initial there (their history starts at it, as the log says). Nothing when all have a state, or
  // the commit is not recorded as processed.
  Result<void> record_new_functions(const ObjectId& commit);

  // An event that is no commit's own (history_rewritten), recorded first in the next commit's
  // transaction, whatever its outcome: it reaches events.jsonl with that commit's. Its "time" is
  // added here.
  void add_event(Json event);

  // A force-push seen (history_rewrite.hpp): its history_rewritten event (add_event), and for each
  // function it took back, a notification to each target whose filters it passes (severity; the
  // consumer's breakage, assessed as for a change), recorded with that event.
  void add_rewrite(const HistoryRewrite& rewrite, const std::vector<RewoundFunction>& functions);

  // Appends to events.jsonl every recorded event not yet there (after a crash, for instance).
  Result<void> flush_events();

  // Between the two, the commits processed are recorded in one state-store transaction
  // (StateStore::begin_batch), and their events reach events.jsonl when end_batch() committed
  // it: a line there is never one the store could still lose. An Error from end_batch() means
  // none of them was kept; the next process() extracts afresh.
  Result<void> begin_batch();
  Result<void> end_batch();

  const std::vector<MonitoredFunction>& functions() const { return m_functions; }
  // What this processor recorded since it was made (the watcher tells a range's part by difference).
  const ChangeTally& tally() const { return m_tally; }
  // Whether the source builds each commit (so that long ranges are worth bisecting).
  bool builds_each_commit() const { return m_source.builds_each_commit(); }
  // SignatureSource::expect: the commits process() will be asked for next, after `from`.
  void expect(const std::optional<ObjectId>& from, const std::vector<ObjectId>& commits) {
    m_source.expect(from, commits);
  }

 private:
  // The states this processor recorded last, at `commit`: exactly as the source gave them, and
  // with their functions as the store was given them.
  struct Recorded {
    ObjectId commit;
    CommitStates states;
    std::vector<FunctionState> recorded;
  };
  Result<void> process_advanced(const CommitInfo& info, bool advances_line, Recorded last);
  Result<void> backfill(const std::vector<MonitoredFunction>& added, const ObjectId& line_head);
  Result<void> backfill_commit(const ObjectId& commit, const std::vector<MonitoredFunction>& added,
                               const CommitStates& states, std::vector<std::optional<SignatureState>>& good,
                               bool advances_line);
  Result<void> finish(CommitRecord& record, CommitStates states);
  void judge(const CommitInfo& commit, const MonitoredFunction& function, const SignatureState& state,
             const SignatureState* base, CommitRecord& record);
  std::optional<SignatureState> compare_with_last_read(const ObjectId& commit,
                                                       const MonitoredFunction& function,
                                                       const SignatureState& base,
                                                       const SignatureState& state,
                                                       std::vector<Change>& changes);
  std::optional<std::pair<SignatureState, std::string>> last_read(const MonitoredFunction& function);
  Json event(const char* type, Json function_change) const;
  Result<void> record_failure(const ObjectId& commit, bool advances_line, const Error& error);
  Result<void> record(CommitRecord& record);
  void assess(FunctionChange& change, const SignatureState& base);
  bool notifies(const NotificationTarget& target, const FunctionChange& change) const;

  std::vector<MonitoredFunction> m_functions;
  GitMirror& m_mirror;
  SignatureSource& m_source;
  StateStore& m_store;
  EventLog& m_events;
  Logger& m_log;
  Clock& m_clock;
  std::vector<NotificationTarget> m_targets;
  ImpactAssessor* m_consumer = nullptr;
  std::optional<Recorded> m_last;  // the next commit diffed against it is only asked what changed
  bool m_batching = false;         // between begin_batch() and end_batch(): events wait for the end
  ChangeTally m_tally;
  // For each function the static view can no longer read (syntax_error, unresolved), the signature
  // it read last and the commit since which it could not: what it is compared with once readable
  // again. Known from the store's history after a restart.
  std::map<std::pair<std::string, std::string>, std::pair<SignatureState, std::string>> m_last_read;
  std::vector<Json> m_pending_events;                 // add_event(): for the next record
  std::vector<Notification> m_pending_notifications;  // add_rewrite(): for the next record
  bool m_backfilling = false;  // during backfill(): changes are marked, not notified nor logged as news
};

}  // namespace aaw
