// Answers kept between runs: what a computation gave for inputs its key names in full (a consumer
// file's scan by the file's content, the ops registered at a commit), so that a command run again
// on what did not change does not compute it again. Only for answers that are a function of the
// key and of this build's code: an implementation forgets everything when the code changes.
// Losing the cache loses nothing but time: a read that fails is a miss, a write that fails is
// dropped.
#pragma once

#include <optional>
#include <string>

#include "core/model/signature.hpp"  // Json

namespace aaw {

class ResultCache {
 public:
  virtual ~ResultCache() = default;
  // The answer stored under `key`, or nullopt (never stored, forgotten, or unreadable).
  virtual std::optional<Json> get(const std::string& key) = 0;
  // Stores `value` under `key`, replacing what was there.
  virtual void put(const std::string& key, const Json& value) = 0;
};

}  // namespace aaw
