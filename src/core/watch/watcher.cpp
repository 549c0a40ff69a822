#include "core/watch/watcher.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/model/function_change.hpp"
#include "core/watch/history_rewrite.hpp"
#include "core/watch/poll_status.hpp"
#include "util/strings.hpp"

namespace aaw {

int Watcher::run(bool once) {
  Logger& log = m_deps.log;
  log.info("Starting aiter API watcher");
  log.info("Monitoring {} functions", m_deps.processor.functions().size());
  log.info("Check interval: {} seconds", m_config.check_interval_seconds);
  if (auto flushed = m_deps.processor.flush_events(); !flushed) log.error("{}", flushed.error().message());
  if (auto added = add_new_functions(); !added) log.error("{}", added.error().message());
  int failures = 0;
  bool outage = false;  // whether the last failed poll could not reach the remote
  bool polled_once = false;
  const std::size_t failed_before = m_deps.processor.tally().failed;
  while (!m_deps.control.stop_requested()) {
    auto polled = poll();
    if (!polled && polled.error().code() == ErrorCode::cancelled) {
      m_interrupted = true;
      break;
    }
    TimePoint now = m_deps.clock.now();
    auto recorded = record_poll(m_deps.store, now,
                                polled ? std::nullopt : std::optional<std::string>(polled.error().message()));
    if (!recorded) log.warn("Cannot record the poll in the state store: {}", recorded.error().message());
    if (m_deps.after_poll) m_deps.after_poll();
    if (!polled) {
      // A misspelt branch or start commit: no retry will mend it. Once polls worked, the same error
      // (the branch deleted upstream) is waited out like an outage: the daemon stays up.
      bool config_mistake = polled.error().code() == ErrorCode::invalid_input && !polled_once;
      if (once || config_mistake) {
        log.error("{}", polled.error().message());
        return 2;
      }
      outage = polled.error().code() == ErrorCode::network || polled.error().code() == ErrorCode::timeout;
      if (failures++ == 0)
        log.warn("{}; retrying with backoff, logged once until it recovers", polled.error().message());
      wait_until(now + backoff(failures));
      continue;
    }
    if (failures > 0 && outage)
      log.info("Remote {} reachable again after {} failed polls", m_deps.mirror.display_url(), failures);
    else if (failures > 0)  // a full disk, a store that could not be written: not the remote's doing
      log.info("Polls succeed again after {} failed ones", failures);
    failures = 0;
    polled_once = true;
    if (once) return m_interrupted ? k_exit_interrupted : failed_exit_code(failed_before);
    wait_until(now + std::chrono::seconds(m_config.check_interval_seconds));
  }
  log.info("Stopping on request");
  // --once promised to process everything pending: stopped before that, it says so.
  return once && (m_interrupted || !polled_once) ? k_exit_interrupted : 0;
}

// A commit that could not be processed is recorded with its error and the rest goes on; a run
// that was to process everything pending then says it did not, in its exit code too.
int Watcher::failed_exit_code(std::size_t failed_before) const {
  const std::size_t failed = m_deps.processor.tally().failed - failed_before;
  if (failed == 0) return 0;
  m_deps.log.error(
      "{} could not be processed (recorded with the error, the next commit is diffed against the "
      "last one read: `show COMMIT` says why)",
      counted(failed, "commit", "commits"));
  return 2;
}

void Watcher::announce_mirror_ready() {
  if (m_mirror_ready) return;
  m_mirror_ready = true;
  if (m_deps.mirror_ready) m_deps.mirror_ready();
}

Duration Watcher::backoff(int failures) const {
  // 5 s, 10 s, 20 s, ... capped at the poll interval: an outage never makes us poll more often
  // than the interval allows once the remote answers again, nor hammer it while it does not.
  Duration interval = std::chrono::seconds(m_config.check_interval_seconds);
  Duration delay = std::min<Duration>(interval, std::chrono::seconds(5));
  for (int i = 1; i < failures && delay < interval; ++i) delay *= 2;
  return std::min(delay, interval);
}

void Watcher::wait_until(TimePoint deadline) {
  while (!m_deps.control.stop_requested() && m_deps.clock.now() < deadline) {
    m_deps.clock.sleep_until(deadline);
    check_reopen();
  }
}

void Watcher::check_reopen() {
  if (m_deps.control.take_reopen_request() && m_deps.reopen_logs) {
    m_deps.reopen_logs();
    m_deps.log.info("Reopened log files");
  }
}

Result<void> Watcher::ensure_fetched(const ObjectId& head) {
  if (m_deps.mirror.commit_info(head)) return {};  // already here: the head did not move
  m_deps.log.info("Fetching {}", m_deps.mirror.display_url());
  return m_deps.mirror.fetch();
}

// Only once the poll's commits are processed: a repack drops what no ref reaches, and until then
// the old line head of a force-push is still needed (its merge base, its states' diff). Never
// fatal: a mirror that could not be repacked still holds every object.
void Watcher::maintain_mirror() {
  auto maintained = m_deps.mirror.maintain();
  if (!maintained)
    m_deps.log.warn("Cannot repack the mirror: {}", maintained.error().message());
  else if (*maintained)
    m_deps.log.info("{}", **maintained);
}

Result<void> Watcher::poll() {
  m_deps.log.info("Checking for API changes...");
  auto head = m_deps.heads ? m_deps.heads->head(m_config.branch) : m_deps.mirror.remote_head(m_config.branch);
  // not_found: the remote answered and has no such branch, which is the config's mistake.
  if (!head && head.error().code() == ErrorCode::not_found)
    return Error(ErrorCode::invalid_input, head.error().message());
  if (!head) return head.error();
  if (auto recorded = record_remote_head(m_deps.store, *head); !recorded)
    m_deps.log.warn("Cannot record the remote head in the state store: {}", recorded.error().message());
  if (auto fetched = ensure_fetched(*head); !fetched) return fetched.error();
  announce_mirror_ready();
  auto done = follow(*head);
  if (done && !m_deps.control.stop_requested()) maintain_mirror();
  return done;
}

Result<void> Watcher::follow(const ObjectId& head) {
  auto line = m_deps.store.line_head();
  if (!line) return line.error();
  if (!*line) return start_line(head);
  if (**line == head) return {};
  return continue_line(**line, head);
}

std::optional<ObjectId> Watcher::configured_start() const {
  if (!m_config.start_commit.empty()) return ObjectId{m_config.start_commit};
  if (!m_config.last_checked_commit.empty()) return ObjectId{m_config.last_checked_commit};
  return std::nullopt;
}

// The last commit a replay processed: this run's, or a replay's before it with this state_dir (a
// `replay --once` then a `watch`), so that monitoring goes on from it either way.
Result<std::optional<ObjectId>> Watcher::last_replayed() {
  if (m_replayed) return m_replayed;
  auto status = read_poll_status(m_deps.store);
  if (!status) return status.error();
  if (!status->last_replayed_commit) return std::optional<ObjectId>();
  return std::optional<ObjectId>(ObjectId{*status->last_replayed_commit});
}

Result<void> Watcher::start_line(const ObjectId& tip) {
  auto configured = configured_start();
  if (!configured) {
    auto replayed = last_replayed();
    if (!replayed) return replayed.error();
    if (*replayed) return continue_from_replay(**replayed, tip);
    return m_deps.processor.process(tip, std::nullopt, true, "Checking");
  }
  const char* key = m_config.start_commit.empty() ? "last_checked_commit" : "start_commit";
  auto start = m_deps.mirror.resolve(configured->hex);
  if (!start && start.error().code() != ErrorCode::network && start.error().code() != ErrorCode::git)
    return Error(ErrorCode::invalid_input,
                 std::string(key) + " '" + configured->hex + "': " + start.error().message());
  if (!start) return start.error().context(std::string(key) + " '" + configured->hex + "'");
  if (auto done = m_deps.processor.process(*start, std::nullopt, true, "Checking"); !done) return done;
  return continue_line(*start, tip);
}

// Monitoring after a replay goes on from the last replayed commit, so that nothing between it and
// the head goes unrecorded: along the branch when it is on it, else straight to the head.
Result<void> Watcher::continue_from_replay(const ObjectId& replayed, const ObjectId& tip) {
  auto ancestor = m_deps.mirror.is_ancestor(replayed, tip);
  if (!ancestor) return ancestor.error();
  if (*ancestor && replayed != tip) return continue_line(replayed, tip);
  return m_deps.processor.process(tip, replayed, true, "Checking");
}

Result<void> Watcher::add_new_functions() {
  auto line = m_deps.store.line_head();
  if (!line) return line.error();
  if (!*line) return {};
  return m_deps.processor.record_new_functions(**line);
}

// After a force-push (the line head no longer an ancestor of the tip) the new commits are diffed
// against the merge base when it was recorded, and what the abandoned commits had changed is one
// history_rewritten event (history_rewrite.hpp): no new commit is blamed for it. When the merge
// base was never recorded (the histories are unrelated, or it precedes the first processed
// commit), the first new commit is diffed against the old line head, as the only states there are.
Result<void> Watcher::continue_line(const ObjectId& line_head, const ObjectId& tip) {
  auto ancestor = m_deps.mirror.is_ancestor(line_head, tip);
  if (!ancestor) return ancestor.error();
  ObjectId against = line_head;
  if (!*ancestor) {
    auto rewound = rewind(line_head, tip);
    if (!rewound) return rewound.error();
    against = *rewound;
  }
  auto range = m_deps.mirror.first_parent_range(against, tip);
  if (!range) return range.error();
  // The branch moved back to a commit the line had passed (a force-push to an older commit): no
  // commit of its own to process, yet the tip is the line's head from now on; without a record
  // of it every poll would find the same rewrite again.
  if (range->empty() && tip != line_head) return m_deps.processor.process(tip, against, true, "Checking");
  return process_range(*range, against);
}

Result<ObjectId> Watcher::rewind(const ObjectId& line_head, const ObjectId& tip) {
  auto base = m_deps.mirror.merge_base(line_head, tip);
  if (!base) return base.error();
  std::optional<CommitStatus> recorded;
  if (*base) {
    auto status = m_deps.store.commit_status(**base);
    if (!status) return status.error();
    if (*status && (*status)->outcome == CommitOutcome::processed) recorded = **status;
  }
  if (!recorded) {
    m_deps.log.warn(
        "Upstream history was rewritten: {} is no longer an ancestor of {}, and their merge base {} was "
        "never "
        "processed; the new commits are diffed against {} (the last reported)",
        line_head.hex, tip.hex, *base ? (*base)->hex : std::string("(none: unrelated histories)"),
        line_head.hex);
    return line_head;
  }
  auto abandoned = m_deps.mirror.first_parent_range(**base, line_head);
  if (!abandoned) return abandoned.error();
  HistoryRewrite rewrite{line_head, tip, **base, abandoned->size(), *abandoned};
  auto functions = rewound_functions(m_deps.store, rewrite, m_deps.processor.functions());
  if (!functions) return functions.error();
  m_deps.log.warn(
      "Upstream history was rewritten: {} is no longer an ancestor of {}; the {} commit(s) after merge base "
      "{} "
      "were abandoned, {} function(s) went back to their state there, and the new commits are diffed against "
      "it",
      line_head.hex, tip.hex, rewrite.abandoned, rewrite.merge_base.hex, functions->size());
  for (const RewoundFunction& f : *functions)
    m_deps.log.warn("History rewritten: {} went back from {} to {}", f.function.function_path,
                    f.at_old_head.summary(), f.at_merge_base.summary());
  m_deps.processor.add_rewrite(rewrite, *functions);
  return rewrite.merge_base;
}

Result<void> Watcher::process_range(const std::vector<ObjectId>& commits, std::optional<ObjectId> against) {
  if (commits.empty()) return {};
  m_deps.log.info("Found {} new commits since {}", commits.size(),
                  against ? against->hex : std::string("the start"));
  m_deps.progress.start(commits.size());
  const ChangeTally before = m_deps.processor.tally();
  auto done = against && bisects(commits.size()) ? process_bisected(commits, *against)
                                                 : process_in_order(commits, against);
  if (m_deps.control.stop_requested() && m_deps.progress.done() < commits.size()) {
    m_interrupted = true;
    m_deps.progress.interrupt(m_deps.processor.tally() - before);
  } else {
    m_deps.progress.finish(m_deps.processor.tally() - before);
  }
  return done;
}

bool Watcher::bisects(std::size_t pending) const {
  // A static extraction costs milliseconds and is exact per commit: bisecting would only blur it.
  // A source that builds each commit costs seconds to an hour a commit.
  return m_deps.processor.builds_each_commit() && m_config.runtime.bisect && pending > 2;
}

Result<void> Watcher::process_in_order(const std::vector<ObjectId>& commits,
                                       std::optional<ObjectId> against) {
  m_deps.processor.expect(against, commits);
  // A source that reads each commit in milliseconds records them in batches (one transaction
  // instead of one each: committing each was a tenth of a replay, docs/performance.md "The state
  // store"), closed after k_batch_commits commits or k_batch_time, so that the write lock is never
  // held long and a crash costs little to redo. A source that builds each commit
  // records each at once.
  const bool batched = !m_deps.processor.builds_each_commit() && commits.size() > 1;
  std::size_t in_batch = 0;
  TimePoint began{};
  Result<void> done;
  for (const ObjectId& commit : commits) {
    if (m_deps.control.stop_requested()) break;
    check_reopen();
    if (batched && in_batch == 0) {
      if (done = m_deps.processor.begin_batch(); !done) break;
      began = m_deps.clock.now();
    }
    if (done = m_deps.processor.process(commit, against, true, "Checking"); !done) break;
    against = commit;
    m_deps.progress.step();
    if (batched && (++in_batch == k_batch_commits || m_deps.clock.now() - began >= k_batch_time)) {
      in_batch = 0;
      if (done = m_deps.processor.end_batch(); !done) break;
    }
  }
  // What the batch holds is kept even when a commit failed: each record is whole on its own.
  auto ended = m_deps.processor.end_batch();
  return done ? ended : done;
}

Result<void> Watcher::process_bisected(const std::vector<ObjectId>& commits, const ObjectId& against) {
  auto baseline = m_deps.store.baseline(against);
  if (!baseline) return baseline.error().context("loading the states at " + against.hex);
  std::vector<std::optional<SignatureState>> before;
  for (const MonitoredFunction& function : m_deps.processor.functions()) {
    auto found = std::find_if(baseline->begin(), baseline->end(),
                              [&](const FunctionState& s) { return s.function == function; });
    before.push_back(found == baseline->end() ? std::nullopt : std::optional(found->state));
  }
  m_deps.log.info("Bisecting {} commits: building the newest first", commits.size());
  auto settled = bisect_range(commits, before, [&](const ObjectId& commit) -> Result<CommitStates> {
    if (m_deps.control.stop_requested()) return Error(ErrorCode::cancelled, "stop requested");
    return m_deps.processor.extract(commit);
  });
  if (!settled) return settled.error();  // cancelled: nothing recorded, redone on restart
  m_deps.log.info("Bisection built {} of {} commits", settled->builds, commits.size());
  std::optional<ObjectId> previous = against;
  for (std::size_t i = 0; i < commits.size(); ++i) {
    if (m_deps.control.stop_requested()) break;
    check_reopen();
    const auto& extracted = settled->extracted[i];
    // A commit whose extraction failed is processed again on its own: recorded as failed if it
    // still fails.
    auto done = !extracted   ? m_deps.processor.record_unchanged(commits[i], settled->states[i], true)
                : *extracted ? m_deps.processor.process(commits[i], previous, true, "Checking", &**extracted)
                             : m_deps.processor.process(commits[i], previous, true, "Checking");
    if (!done) return done;
    previous = commits[i];
    m_deps.progress.step();
  }
  return {};
}

int Watcher::replay(const std::vector<std::string>& revisions) {
  const std::size_t failed_before = m_deps.processor.tally().failed;
  m_deps.log.info("Replaying {} commits", revisions.size());
  if (auto fetched = m_deps.mirror.fetch(); !fetched)
    m_deps.log.warn("{}; replaying from the mirror as it is", fetched.error().message());
  announce_mirror_ready();
  if (auto flushed = m_deps.processor.flush_events(); !flushed)
    m_deps.log.error("{}", flushed.error().message());
  std::optional<ObjectId> previous;
  int unresolved = 0;
  m_deps.progress.start(revisions.size());
  const ChangeTally before = m_deps.processor.tally();
  std::size_t handled = 0;
  std::size_t since_noted = 0;
  for (const std::string& revision : revisions) {
    if (m_deps.control.stop_requested()) break;
    ++handled;
    check_reopen();
    auto commit = m_deps.mirror.resolve(revision);
    if (!commit) {
      m_deps.log.error("Cannot replay commit '{}': {}", revision, commit.error().message());
      ++unresolved;
      continue;
    }
    if (previous) warn_unless_descendant(*previous, *commit, revision);
    auto status = m_deps.store.commit_status(*commit);
    if (status && *status && (*status)->outcome == CommitOutcome::processed) {
      log_detail(m_deps.log, "Commit " + commit->hex + " already recorded");
    } else if (auto done = m_deps.processor.process(*commit, previous, false, "Processing"); !done) {
      if (done.error().code() == ErrorCode::cancelled) {
        --handled;
        break;
      }
      m_deps.log.error("{}", done.error().message());
      note_replay("failed: " + done.error().message());
      return unresolved + 1;
    }
    previous = *commit;
    m_replayed = *commit;
    // Now and then, not at each commit: a later watch that starts a little before the last one
    // replayed records those commits again, as they were.
    if (++since_noted == k_replay_note_commits) {
      since_noted = 0;
      if (auto noted = record_replayed_commit(m_deps.store, *commit); !noted)
        m_deps.log.warn("Cannot record the replay in the state store: {}", noted.error().message());
    }
    m_deps.progress.step();
  }
  std::string result = "ok";
  if (handled < revisions.size()) {
    m_interrupted = true;
    m_deps.progress.interrupt(m_deps.processor.tally() - before);
    result = "interrupted after " + std::to_string(handled) + " of " + std::to_string(revisions.size()) +
             " commits";
  } else {
    m_deps.progress.finish(m_deps.processor.tally() - before);
    if (unresolved > 0)
      result = std::to_string(unresolved) + " of " + std::to_string(revisions.size()) +
               " commits could not be resolved";
    if (std::size_t failed = m_deps.processor.tally().failed - failed_before; failed > 0)
      result = (result == "ok" ? "" : result + "; ") + counted(failed, "commit", "commits") +
               " could not be processed";
  }
  note_replay(result);
  return unresolved + (failed_exit_code(failed_before) != 0 ? 1 : 0);
}

// A replay diffs each commit against the one listed before it, as the original script did; listed
// out of order (a newer commit first), a change is then blamed on a commit that undid nothing.
void Watcher::warn_unless_descendant(const ObjectId& previous, const ObjectId& commit,
                                     const std::string& revision) {
  if (auto info = m_deps.mirror.commit_info(commit);
      info && !info->parents.empty() && info->parents.front() == previous)
    return;  // the usual list, the branch's commits in order: no walk of the graph
  auto descends = m_deps.mirror.is_ancestor(previous, commit);
  if (!descends || *descends || previous == commit) return;  // an unreadable graph is not the list's fault
  m_deps.log.warn(
      "Replaying '{}' ({}): it does not descend from {}, the commit replayed before it; its changes are "
      "diffed against that one all the same (list the commits oldest first)",
      revision, commit.hex.substr(0, 12), previous.hex.substr(0, 12));
}

// What status and the report say of a store a replay wrote: when it ended, how, and where.
void Watcher::note_replay(const std::string& result) {
  if (auto noted = record_replay(m_deps.store, m_deps.clock.now(), result, m_replayed); !noted)
    m_deps.log.warn("Cannot record the replay in the state store: {}", noted.error().message());
}

}  // namespace aaw
