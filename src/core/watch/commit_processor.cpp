#include "core/watch/commit_processor.hpp"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/compare/render.hpp"
#include "core/model/compiled_binding.hpp"
#include "core/model/function_change.hpp"

namespace aaw {
namespace {

const SignatureState* find_state(const std::vector<FunctionState>& states, const MonitoredFunction& f) {
  for (const FunctionState& s : states)
    if (s.function == f) return &s.state;
  return nullptr;
}

// Each function's state in `states`, found in constant time (a commit judges every function).
// The baseline lists the functions in the order they were first recorded, which is nearly always
// the config's: the state at the same position is tried first, and the index by name is built only
// when a function is not there.
class StateIndex {
 public:
  explicit StateIndex(const std::vector<FunctionState>& states) : m_list(states) {}
  const SignatureState* find(const MonitoredFunction& f, std::size_t position) {
    if (position < m_list.size() && m_list[position].function == f) return &m_list[position].state;
    if (m_states.empty())
      for (const FunctionState& s : m_list) m_states.emplace(key(s.function), &s.state);
    auto it = m_states.find(key(f));
    return it == m_states.end() ? nullptr : it->second;
  }

 private:
  static std::string key(const MonitoredFunction& f) { return f.import_statement + '\n' + f.function_path; }
  const std::vector<FunctionState>& m_list;
  std::unordered_map<std::string, const SignatureState*> m_states;
};

void log_change(Logger& log, const FunctionChange& c) {
  log.info("API change detected for {} ({})", c.function.function_path, to_string(*highest(c.changes)));
  log.info("  old: {}", c.before.summary());
  log.info("  new: {}", c.after.summary());
  for (const std::string& line : binding_sides(c.before, c.after, c.changes)) log.info("  {}", line);
  for (const Change& change : c.changes) log.info("  {}", change.describe());
  if (c.impact) log_consumer_impact(log, *c.impact);
}

std::vector<ExtractionFailure> failures_of(const std::vector<FunctionState>& states) {
  std::vector<ExtractionFailure> out;
  for (const FunctionState& s : states)
    if (is_machinery_failure(s.state.status)) out.push_back({s.function.function_path, s.state});
  return out;
}

}  // namespace

Json CommitProcessor::event(const char* type, Json function_change) const {
  Json out = {{"type", type}, {"time", iso8601_utc(m_clock.now())}};
  out.update(function_change);
  return out;
}

void CommitProcessor::judge(const CommitInfo& commit, const MonitoredFunction& function,
                            const SignatureState& state, const SignatureState* base, CommitRecord& record) {
  const std::string& name = function.function_path;
  // Never diffed: the next good commit is compared with the last good state. Logged by the caller,
  // once per distinct failure of the commit.
  if (is_machinery_failure(state.status)) return;
  if (!base) {
    m_log.info("Initial signature for {}: {}", name, state.summary());
    Json initial = to_json(FunctionChange{commit, std::nullopt, function, SignatureState{}, state, {}});
    initial["old"] = nullptr;
    if (m_backfilling) initial["backfilled"] = true;
    record.events.push_back(event("initial", std::move(initial)));
    return;
  }
  auto changes = diff_states(*base, state);
  // A signature read again is assessed against the one read last: the unreadable base bound nothing.
  std::optional<SignatureState> read_before;
  if (!changes.empty()) read_before = compare_with_last_read(commit.id, function, *base, state, changes);
  if (changes.empty()) {  // most functions at most commits: nothing copied
    if (!m_backfilling) log_detail(m_log, "No API change for " + name);
    return;
  }
  FunctionChange change{commit, std::nullopt, function, *base, state, std::move(changes)};
  ++m_tally.changes;
  if (*highest(change.changes) == Severity::breaking) ++m_tally.breaking;
  assess(change, read_before ? *read_before : *base);
  log_change(m_log, change);
  Json json = to_json(change);
  if (m_backfilling) json["backfilled"] = true;
  for (const NotificationTarget& target : m_targets)
    if (!m_backfilling && notifies(target, change)) record.notifications.push_back({target.name, json});
  record.changes.push_back(json);
  record.events.push_back(event("change", std::move(json)));
}

namespace {

// What the static view says it cannot read: a stretch of these hides whatever changed meanwhile.
bool unreadable(Status status) { return status == Status::syntax_error || status == Status::unresolved; }

}  // namespace

// A function whose module stopped parsing (or that could no longer be resolved) and then reads
// again gets two changes of unknown severity, neither of which says what its signature did
// meanwhile: a parameter removed in that stretch would reach no notifier of breaking changes. So
// the signature read again is also compared with the one read last, and those changes carry the
// commit the stretch began at (Change::unreadable_since). Returns the signature read last when the
// function reads again (nullopt otherwise, or when it is not known).
std::optional<SignatureState> CommitProcessor::compare_with_last_read(const ObjectId& commit,
                                                                      const MonitoredFunction& function,
                                                                      const SignatureState& base,
                                                                      const SignatureState& state,
                                                                      std::vector<Change>& changes) {
  const auto key = std::make_pair(function.import_statement, function.function_path);
  if (base.is_ok() && unreadable(state.status)) {
    m_last_read[key] = {base, commit.hex};
    return std::nullopt;
  }
  if (!unreadable(base.status) || !state.is_ok()) return std::nullopt;
  auto last = last_read(function);
  m_last_read.erase(key);
  if (!last) return std::nullopt;
  for (Change& change : diff_states(last->first, state)) {
    change.unreadable_since = last->second;
    changes.push_back(std::move(change));
  }
  return std::move(last->first);
}

// The signature read last before the function became unreadable, and the commit it did: kept since
// then, or found in the store's history (the change that made it unreadable) after a restart.
std::optional<std::pair<SignatureState, std::string>> CommitProcessor::last_read(
    const MonitoredFunction& function) {
  auto known = m_last_read.find(std::make_pair(function.import_statement, function.function_path));
  if (known != m_last_read.end()) return known->second;
  auto history = m_store.history(function.function_path);
  if (!history) return std::nullopt;
  for (auto it = history->rbegin(); it != history->rend(); ++it) {
    const Json& change = *it;
    if (change.value("import_statement", "") != function.import_statement) continue;
    auto before = state_from_json(change.value("old", Json()));
    auto after = state_from_json(change.value("new", Json()));
    if (!before || !after || !unreadable(after->status)) return std::nullopt;  // read since: nothing hidden
    if (before->is_ok()) return std::make_pair(std::move(*before), change.value("commit", ""));
  }
  return std::nullopt;
}

// A consumer that cannot be bound leaves the change without impact (said in the log), never
// unrecorded.
void CommitProcessor::assess(FunctionChange& change, const SignatureState& base) {
  if (m_consumer == nullptr) return;
  auto impact = m_consumer->assess(change.function, &base, change.after);
  if (impact)
    change.impact = std::move(*impact);
  else
    m_log.warn("Cannot tell what the change of {} breaks in the consumer: {}", change.function.function_path,
               impact.error().message());
}

bool CommitProcessor::notifies(const NotificationTarget& target, const FunctionChange& change) const {
  if (*highest(change.changes) < target.min_severity) return false;
  return !target.only_if_consumer_breaks || (change.impact && change.impact->breaks_consumer());
}

Result<void> CommitProcessor::record_failure(const ObjectId& commit, bool advances_line, const Error& error) {
  m_last.reset();
  ++m_tally.failed;
  m_log.error("Cannot process commit {}: {}", commit.hex, error.message());
  CommitRecord record;
  record.commit.id = commit;
  record.outcome = CommitOutcome::failed;
  record.error = error.message();
  record.advances_line = advances_line;
  // A commit recorded well before (by a replay, say) keeps what it has: a passing failure to
  // read it again must not wipe its states.
  auto known = m_store.commit_status(commit);
  if (known && *known && (*known)->outcome == CommitOutcome::processed) {
    auto states = m_store.states_at(commit);
    if (!states) return states.error();
    record.outcome = CommitOutcome::processed;
    record.error.clear();
    record.states = std::move(*states);
  }
  return this->record(record);
}

Result<void> CommitProcessor::record(CommitRecord& record) {
  record.events.insert(record.events.begin(), m_pending_events.begin(), m_pending_events.end());
  record.notifications.insert(record.notifications.begin(), m_pending_notifications.begin(),
                              m_pending_notifications.end());
  auto recorded = m_store.record(record);
  if (recorded) {
    m_pending_events.clear();
    m_pending_notifications.clear();
  }
  return recorded;
}

void CommitProcessor::add_event(Json event) {
  event["time"] = iso8601_utc(m_clock.now());
  m_pending_events.push_back(std::move(event));
}

void CommitProcessor::add_rewrite(const HistoryRewrite& rewrite,
                                  const std::vector<RewoundFunction>& functions) {
  add_event(rewrite_event(rewrite, functions));
  for (const RewoundFunction& f : functions) {
    FunctionChange change{CommitInfo{}, std::nullopt, f.function, f.at_old_head, f.at_merge_base, f.changes};
    assess(change, f.at_old_head);
    Json notice = rewrite_notice(rewrite, f);
    if (change.impact) notice["consumer_impact"] = to_json(*change.impact);
    for (const NotificationTarget& target : m_targets)
      if (notifies(target, change)) m_pending_notifications.push_back({target.name, notice});
  }
}

Result<void> CommitProcessor::process(const ObjectId& commit, const std::optional<ObjectId>& against,
                                      bool advances_line, std::string_view verb,
                                      const CommitStates* extracted) {
  log_detail(m_log, std::string(verb) + " commit " + commit.hex);
  std::optional<Recorded> last = std::exchange(m_last, std::nullopt);
  auto info = m_mirror.commit_info(commit);
  if (!info) return record_failure(commit, advances_line, info.error());
  if (!extracted && against && last && last->commit == *against)
    return process_advanced(*info, advances_line, std::move(*last));
  auto states = extracted ? Result<CommitStates>(*extracted) : extract(commit);
  if (!states && states.error().code() == ErrorCode::cancelled) return states.error();  // redone on restart
  if (!states) return record_failure(commit, advances_line, states.error());
  std::vector<FunctionState> baseline;
  if (against) {
    auto loaded = m_store.baseline(*against);
    if (!loaded) return loaded.error().context("loading the states at " + against->hex);
    baseline = std::move(*loaded);
  }
  CommitRecord record;
  record.commit = *info;
  record.advances_line = advances_line;
  StateIndex base(baseline);
  LogBatch batch(m_log);  // a line per function, written once the commit is recorded
  record.states.reserve(m_functions.size());
  for (std::size_t i = 0; i < m_functions.size(); ++i) {
    judge(*info, m_functions[i], (*states)[i], base.find(m_functions[i], i), record);
    record.states.push_back({m_functions[i], (*states)[i]});
  }
  return finish(record, std::move(*states));
}

// The commit right after the one recorded last: the source says which states changed since, and
// only those are diffed (against the state recorded there, or the last usable one before it when
// that was a failure of the machinery); every other function logs its "No API change" line.
Result<void> CommitProcessor::process_advanced(const CommitInfo& info, bool advances_line, Recorded last) {
  auto updates = m_source.advance(last.commit, info.id, m_functions, last.states);
  if (!updates && updates.error().code() == ErrorCode::cancelled) return updates.error();
  if (!updates) return record_failure(info.id, advances_line, updates.error());
  std::optional<std::vector<FunctionState>> baseline;  // read only when a failure is diffed
  std::optional<StateIndex> base;
  CommitRecord record;
  record.commit = info;
  record.advances_line = advances_line;
  record.since = CommitRecord::Since{last.commit, {}};
  LogBatch batch(m_log);
  auto update = updates->begin();
  for (std::size_t i = 0; i < m_functions.size(); ++i) {
    SignatureState& state = last.states[i];
    if (update == updates->end() || update->position != i) {
      if (!is_machinery_failure(state.status))
        log_detail(m_log, "No API change for " + m_functions[i].function_path);
      continue;
    }
    const SignatureState* before = &state;
    if (is_machinery_failure(state.status)) {
      if (!base) {
        auto loaded = m_store.baseline(last.commit);
        if (!loaded) return loaded.error().context("loading the states at " + last.commit.hex);
        baseline = std::move(*loaded);
        base.emplace(*baseline);
      }
      before = base->find(m_functions[i], i);
    }
    judge(info, m_functions[i], update->state, before, record);
    last.recorded[i].state = update->state;
    state = std::move(update->state);
    record.since->changed.push_back(i);
    ++update;
  }
  record.states = std::move(last.recorded);
  return finish(record, std::move(last.states));
}

// Records a processed commit and keeps its states, as the source gave them and as recorded, for
// the next commit (process_advanced): a commit that changes nothing copies no state.
Result<void> CommitProcessor::finish(CommitRecord& record, CommitStates states) {
  log_extraction_failures(m_log, record.commit.id, failures_of(record.states));
  auto recorded = this->record(record);
  if (!recorded) return recorded.error().context("recording " + record.commit.id.hex);
  ++m_tally.commits;
  if (!record.changes.empty()) ++m_tally.commits_with_changes;
  Doubts doubts;
  for (const FunctionState& s : record.states) doubts.add(s.state);
  m_tally.unverified = doubts.unverified;
  m_tally.unresolved = doubts.unresolved;
  m_last = Recorded{record.commit.id, std::move(states), std::move(record.states)};
  return m_batching ? Result<void>() : flush_events();
}

Result<void> CommitProcessor::record_unchanged(const ObjectId& commit, const CommitStates& states,
                                               bool advances_line) {
  m_last.reset();
  auto info = m_mirror.commit_info(commit);
  if (!info) return record_failure(commit, advances_line, info.error());
  m_log.info("Commit {} not built: unchanged by bisection", commit.hex);
  CommitRecord record;
  record.commit = *info;
  record.advances_line = advances_line;
  record.bisected = true;
  for (std::size_t i = 0; i < m_functions.size() && i < states.size(); ++i)
    record.states.push_back({m_functions[i], states[i]});
  auto recorded = this->record(record);
  if (!recorded) return recorded.error().context("recording " + commit.hex);
  ++m_tally.commits;
  return {};
}

Result<void> CommitProcessor::record_new_functions(const ObjectId& commit) {
  m_last.reset();
  auto status = m_store.commit_status(commit);
  if (!status) return status.error();
  if (!*status || (*status)->outcome != CommitOutcome::processed) return {};
  auto recorded = m_store.states_at(commit);
  if (!recorded) return recorded.error();
  std::vector<MonitoredFunction> added;
  for (const MonitoredFunction& f : m_functions)
    if (!find_state(*recorded, f)) added.push_back(f);
  if (added.empty()) return {};
  if (!m_source.builds_each_commit()) return backfill(added, commit);
  auto info = m_mirror.commit_info(commit);
  if (!info) return info.error().context("reading " + commit.hex);
  m_log.info(
      "{} function(s) new in the config: extracting them at the last processed commit {} (their history "
      "starts there: back-filling the commits before it would mean building each of them)",
      added.size(), commit.hex);
  auto states = m_source.extract(commit, added);
  if (!states) return states.error().context("extracting the new functions at " + commit.hex);
  CommitRecord record;
  record.commit = *info;
  record.advances_line = true;
  record.bisected = (*status)->bisected;
  record.states = std::move(*recorded);
  std::vector<FunctionState> extracted;
  for (std::size_t i = 0; i < added.size(); ++i) {
    extracted.push_back({added[i], (*states)[i]});
    judge(*info, added[i], (*states)[i], nullptr, record);
  }
  log_extraction_failures(m_log, commit, failures_of(extracted));
  record.states.insert(record.states.end(), extracted.begin(), extracted.end());
  auto written = m_store.record(record);
  if (!written) return written.error().context("recording " + commit.hex);
  return m_batching ? Result<void>() : flush_events();
}

// Each processed commit in turn, for the new functions alone: the first read whole, each next one
// through advance(), so that the back-fill costs what changed, as a replay does (seconds for
// aiter's whole history). A commit that cannot be read now is left as it was, and the one after it
// is read whole.
Result<void> CommitProcessor::backfill(const std::vector<MonitoredFunction>& added,
                                       const ObjectId& line_head) {
  auto commits = m_store.processed_commits();
  if (!commits) return commits.error();
  m_log.info(
      "{} function(s) new in the config: back-filling their history over the {} commit(s) processed so far",
      added.size(), commits->size());
  const TimePoint started = m_clock.now();
  const ChangeTally before = m_tally;
  std::vector<std::optional<SignatureState>> good(added.size());  // the last usable state of each
  std::optional<ObjectId> previous;
  CommitStates states;
  std::size_t unreadable = 0;
  m_backfilling = true;
  if (auto begun = begin_batch(); !begun) return begun;
  Result<void> done;
  for (std::size_t n = 0; n < commits->size() && done; ++n) {
    const ObjectId& commit = (*commits)[n];
    if (previous) {
      auto updates = m_source.advance(*previous, commit, added, states);
      if (updates) {
        for (StateUpdate& update : *updates) states[update.position] = std::move(update.state);
      } else {
        previous.reset();
      }
    }
    if (!previous) {
      auto extracted = m_source.extract(commit, added);
      if (!extracted && extracted.error().code() == ErrorCode::cancelled) {
        done = extracted.error();  // what was back-filled is kept; the rest is redone on restart
        break;
      }
      if (!extracted) {
        ++unreadable;
        m_log.warn("Cannot back-fill commit {}: {}", commit.hex, extracted.error().message());
        continue;
      }
      states = std::move(*extracted);
    }
    previous = commit;
    done = backfill_commit(commit, added, states, good, commit == line_head);
    if (done && (n + 1) % 500 == 0) {  // a batch of a few hundred records: the write lock is never held long
      if (done = end_batch(); done) done = begin_batch();
    }
  }
  m_backfilling = false;
  m_last.reset();
  auto ended = end_batch();
  if (!done) return done;
  if (!ended) return ended;
  ChangeTally range = m_tally - before;
  m_log.info(
      "Back-filled {} function(s) over {} commit(s) in {:.1f} s: {}{}", added.size(), commits->size(),
      std::chrono::duration<double>(m_clock.now() - started).count(), describe(range),
      unreadable ? "; " + std::to_string(unreadable) + " commit(s) could not be read again" : std::string());
  return flush_events();
}

Result<void> CommitProcessor::backfill_commit(const ObjectId& commit,
                                              const std::vector<MonitoredFunction>& added,
                                              const CommitStates& states,
                                              std::vector<std::optional<SignatureState>>& good,
                                              bool advances_line) {
  auto info = m_mirror.commit_info(commit);
  if (!info) return info.error().context("reading " + commit.hex);
  auto status = m_store.commit_status(commit);
  if (!status) return status.error();
  auto recorded = m_store.states_at(commit);
  if (!recorded) return recorded.error();
  log_detail(m_log, "Back-filling commit " + commit.hex);
  CommitRecord record;
  record.commit = *info;
  record.advances_line = advances_line;
  record.bisected = *status && (*status)->bisected;
  record.states = std::move(*recorded);
  for (std::size_t i = 0; i < added.size(); ++i) {
    // Recorded there already (a function monitored before, dropped from the config and added
    // back): that state stands, and the next commits are diffed against it.
    if (const SignatureState* known = find_state(record.states, added[i])) {
      if (!is_machinery_failure(known->status)) good[i] = *known;
      continue;
    }
    judge(*info, added[i], states[i], good[i] ? &*good[i] : nullptr, record);
    if (!is_machinery_failure(states[i].status)) good[i] = states[i];
    record.states.push_back({added[i], states[i]});
  }
  if (!record.changes.empty()) ++m_tally.commits_with_changes;
  auto written = m_store.record(record);
  if (!written) return written.error().context("recording " + commit.hex);
  return {};
}

Result<void> CommitProcessor::flush_events() {
  auto pending = m_store.events_after(m_events.last_id());
  if (!pending) return pending.error();
  return m_events.append(*pending);
}

Result<void> CommitProcessor::begin_batch() {
  if (m_batching) return {};
  if (auto begun = m_store.begin_batch(); !begun) return begun;
  m_batching = true;
  return {};
}

Result<void> CommitProcessor::end_batch() {
  if (!m_batching) return {};
  m_batching = false;
  if (auto committed = m_store.end_batch(); !committed) {
    m_last.reset();  // its commit is not recorded any more
    return committed;
  }
  return flush_events();
}

}  // namespace aaw
