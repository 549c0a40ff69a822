// The daemon's main job: continuous monitoring of the watched branch (poll the remote head, fetch
// when it moved, process every new first-parent commit oldest first) and commit-list replay. Each
// commit is extracted, diffed against its baseline (the last good state of every function at the
// commit it follows), recorded in one transaction (in a replay, with the next commits, in batches),
// logged in the original tool's words and appended to events.jsonl.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/model/config.hpp"
#include "core/ports/clock.hpp"
#include "core/ports/control.hpp"
#include "core/ports/git_mirror.hpp"
#include "core/ports/state_store.hpp"
#include "core/report/log.hpp"
#include "core/watch/commit_processor.hpp"
#include "core/watch/head_watch.hpp"
#include "core/watch/progress.hpp"

namespace aaw {

// What run(true) returns, and `replay --once`, when a stop request (SIGTERM, SIGINT) came before
// everything pending was processed: what was processed is kept, and a rerun resumes.
inline constexpr int k_exit_interrupted = 3;

// A batch of commits recorded in one transaction (Watcher::process_in_order) is closed after this
// many commits, or once it has been open this long.
constexpr std::size_t k_batch_commits = 128;
// A replay notes the last commit it processed every this many commits (and at its end).
constexpr std::size_t k_replay_note_commits = 64;
constexpr auto k_batch_time = std::chrono::milliseconds(250);

struct WatcherDeps {
  GitMirror& mirror;
  CommitProcessor& processor;
  StateStore& store;
  Logger& log;
  Clock& clock;
  Control& control;
  Progress& progress;
  std::function<void()> reopen_logs;      // on SIGHUP
  HeadWatch* heads = nullptr;             // where polls learn the head; nullptr: git ls-remote
  std::function<void()> after_poll = {};  // after each poll, failed or not, once it is recorded (report.dir)
  // Once per Watcher, when the mirror first holds the remote's commits (after the first fetch of a
  // poll or a replay; a first start clones there): the start-up function check.
  std::function<void()> mirror_ready = {};
};

class Watcher {
 public:
  Watcher(const Config& config, WatcherDeps deps) : m_config(config), m_deps(std::move(deps)) {}

  // Continuous mode. Polls every check_interval_seconds until stopped; an unreachable remote is
  // logged once per outage and retried with capped exponential backoff. With `once`: returns
  // after the first successful poll has processed everything pending. Returns the exit code:
  // 0, or 2 when `once` and the poll failed, or when the first poll shows a mistake in the
  // config (no such branch, an unknown start_commit) that no retry can mend, or
  // k_exit_interrupted when `once` and a stop request cut the pending commits short. Stopped by
  // request in continuous mode, a daemon returns 0.
  // First, functions of the config with no state at the line head are extracted there and
  // recorded as initial: a function added to the config is watched from the start-up on.
  // After replay(), a first start without start_commit goes on from the last replayed commit.
  int run(bool once);

  // One poll: ask the remote head (no fetch when it has not moved), fetch when it moved, process
  // the pending first-parent commits. An Error when the remote cannot be reached or read.
  Result<void> poll();

  // Replay: those commits in that order, each diffed against the previous one in the list; the
  // ones already recorded are skipped (so an interrupted replay resumes). Returns how many
  // revisions could not be resolved (each is logged with its reason; the others are processed),
  // plus one when commits could not be processed (each recorded with its error): 0 when all went.
  int replay(const std::vector<std::string>& revisions);

  // Whether a stop request cut a range of commits or a replay short (run(true) and replay()).
  bool interrupted() const { return m_interrupted; }

 private:
  // Runs deps.mirror_ready the first time only.
  void announce_mirror_ready();
  // Processes what is pending up to `head` on the watched line.
  Result<void> follow(const ObjectId& head);
  void maintain_mirror();
  Result<std::optional<ObjectId>> last_replayed();
  Result<void> start_line(const ObjectId& tip);
  Result<void> continue_line(const ObjectId& line_head, const ObjectId& tip);
  // After a force-push: records the history_rewritten event and returns what the new commits are
  // diffed against (the merge base when recorded, else the old line head).
  Result<ObjectId> rewind(const ObjectId& line_head, const ObjectId& tip);
  Result<void> continue_from_replay(const ObjectId& replayed, const ObjectId& tip);
  Result<void> add_new_functions();
  Result<void> process_range(const std::vector<ObjectId>& commits, std::optional<ObjectId> against);
  Result<void> process_in_order(const std::vector<ObjectId>& commits, std::optional<ObjectId> against);
  Result<void> process_bisected(const std::vector<ObjectId>& commits, const ObjectId& against);
  bool bisects(std::size_t pending) const;
  Result<void> ensure_fetched(const ObjectId& head);
  void check_reopen();
  int failed_exit_code(std::size_t failed_before) const;
  void warn_unless_descendant(const ObjectId& previous, const ObjectId& commit, const std::string& revision);
  void note_replay(const std::string& result);
  void wait_until(TimePoint deadline);
  Duration backoff(int failures) const;
  std::optional<ObjectId> configured_start() const;

  const Config& m_config;
  WatcherDeps m_deps;
  std::optional<ObjectId> m_replayed;  // the last commit replay() processed
  bool m_interrupted = false;
  bool m_mirror_ready = false;
};

}  // namespace aaw
