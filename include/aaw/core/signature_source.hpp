// Where the states of the monitored functions at a commit come from: the seam every extractor
// plugs into (extract/: the static memo, the runtime source, both). The core asks a source and
// never knows which one it has.
#pragma once

#include <string>
#include <vector>

#include "aaw/core/git_mirror.hpp"
#include "aaw/core/signature.hpp"
#include "aaw/util/result.hpp"

namespace aaw {

class SignatureSource {
 public:
  virtual ~SignatureSource() = default;
  // One state per function, in order. An Error only when the commit cannot be read at all.
  virtual Result<std::vector<SignatureState>> extract(const ObjectId& commit,
                                                      const std::vector<MonitoredFunction>& functions) = 0;

  // True when a commit costs a build (seconds to an hour), not a tree read (milliseconds): the
  // watcher then bisects long pending ranges instead of extracting every commit.
  virtual bool builds_each_commit() const { return false; }

  // One line for the log at the end of a session on how much work was saved ("Static extraction:
  // 12 function states resolved in Python, 4,000 reused unchanged"); "" when there is nothing to say.
  virtual std::string work_summary() const { return ""; }
};

}  // namespace aaw
