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
};

}  // namespace aaw
