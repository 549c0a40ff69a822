// The consumer a config names (`consumer.path`), opened for a command that needs it: the scan of
// its call sites and a binder through the embedded interpreter, and the impact assessor made of
// both.
#pragma once

#include <memory>
#include <optional>

#include "aaw/core/config.hpp"
#include "aaw/core/consumer_impact.hpp"
#include "aaw/core/log.hpp"
#include "aaw/io/runtime.hpp"

namespace aaw::cli {

class ConsumerSession {
 public:
  // nullptr when the config names no consumer; an Error naming the consumer when it cannot be
  // scanned (no such directory, the interpreter does not start).
  static Result<std::unique_ptr<ConsumerSession>> open(const Config& config, Runtime& runtime, Logger& log);

  ImpactAssessor& assessor() { return *m_assessor; }
  const ConsumerScan& scan() const { return m_assessor->scan(); }
  CallBinder& binder() { return *m_binder; }

 private:
  ConsumerSession() = default;
  std::unique_ptr<CallBinder> m_binder;
  std::optional<ImpactAssessor> m_assessor;
};

}  // namespace aaw::cli
