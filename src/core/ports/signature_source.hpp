// Where the states of the monitored functions at a commit come from: the seam every extractor
// plugs into (extract/: the static memo, the runtime source, both). The core asks a source and
// never knows which one it has.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/model/signature.hpp"
#include "core/ports/git_mirror.hpp"
#include "util/result.hpp"

namespace aaw {

// One function whose state at a commit differs from its state at the commit before.
struct StateUpdate {
  std::size_t position;  // in the list of functions asked
  SignatureState state;
  bool operator==(const StateUpdate&) const = default;
};

class SignatureSource {
 public:
  virtual ~SignatureSource() = default;
  // One state per function, in order. An Error only when the commit cannot be read at all.
  virtual Result<std::vector<SignatureState>> extract(const ObjectId& commit,
                                                      const std::vector<MonitoredFunction>& functions) = 0;

  // The states of `functions` at `commit` that differ from `states`, their states at `from` as
  // this source gave them, in increasing position; every position left out keeps its state. The
  // same answer as extract() compared with `states`, which is what this default does; a source
  // that remembers what each function's extraction read (the static one) looks only at what
  // changed between the two commits, so that a replay costs what changed, not functions x commits.
  virtual Result<std::vector<StateUpdate>> advance(const ObjectId& from, const ObjectId& commit,
                                                   const std::vector<MonitoredFunction>& functions,
                                                   const std::vector<SignatureState>& states);

  // The positions of the last advance() whose inputs changed: a file their extraction read differs
  // at that commit, whether or not their state did (in increasing order). nullopt when the source
  // cannot tell (it keeps no record of what each function read), which is the default.
  virtual std::optional<std::vector<std::size_t>> inputs_changed() const { return std::nullopt; }

  // The commits the watcher will ask about next, in order, after `from` (the one it is at, when
  // any): a hint a source may use to work ahead (the static one parses ahead on another core).
  virtual void expect(const std::optional<ObjectId>& /*from*/, const std::vector<ObjectId>& /*commits*/) {}

  // True when a commit costs a build (seconds to an hour), not a tree read (milliseconds): the
  // watcher then bisects long pending ranges instead of extracting every commit.
  virtual bool builds_each_commit() const { return false; }

  // One line for the log at the end of a session on how much work was saved ("Static extraction:
  // 12 function states resolved in Python, 4,000 reused unchanged"); "" when there is nothing to say.
  virtual std::string work_summary() const { return ""; }
  // One line on the functions that cost the most ("Costliest functions: f (40 resolutions, 1.2 s),
  // ..."), so that a user sees where a slow replay's time went; "" when there is nothing to say.
  virtual std::string cost_summary() const { return ""; }
};

// What differs between `before` and `after` (states of the same functions), as advance() says it.
std::vector<StateUpdate> state_updates(const std::vector<SignatureState>& before,
                                       std::vector<SignatureState> after);

}  // namespace aaw
