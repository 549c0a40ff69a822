// `extractor: both`: static and runtime extraction of every commit. The runtime states are the
// ones recorded (they are what callers get); the static ones serve as a cross-check, and a
// warning names every function whose two signatures disagree on parameter names, kinds or
// defaults. Annotations are not compared: the same annotation is spelled as written in one and as
// Python prints it in the other.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/ports/signature_source.hpp"
#include "core/report/log.hpp"

namespace aaw {

class BothSource final : public SignatureSource {
 public:
  BothSource(SignatureSource& static_source, SignatureSource& runtime_source, Logger& log)
      : m_static(static_source), m_runtime(runtime_source), m_log(log) {}
  // Owning both sources.
  BothSource(std::unique_ptr<SignatureSource> static_source, std::unique_ptr<SignatureSource> runtime_source,
             Logger& log)
      : BothSource(*static_source, *runtime_source, log) {
    m_owned_static = std::move(static_source);
    m_owned_runtime = std::move(runtime_source);
  }

  // The runtime source's states (or its Error). A static Error only costs the cross-check.
  Result<std::vector<SignatureState>> extract(const ObjectId& commit,
                                              const std::vector<MonitoredFunction>& functions) override;

  bool builds_each_commit() const override { return m_runtime.builds_each_commit(); }
  // The static source's summary, then how many states the two disagreed on.
  std::string work_summary() const override;
  std::string cost_summary() const override { return m_static.cost_summary(); }

  // How many functions disagreed, over every extract() so far.
  std::size_t disagreement_count() const { return m_disagreements; }

 private:
  SignatureSource& m_static;
  SignatureSource& m_runtime;
  Logger& m_log;
  std::size_t m_disagreements = 0;
  std::unique_ptr<SignatureSource> m_owned_static;
  std::unique_ptr<SignatureSource> m_owned_runtime;
};

// The "both" entry of the source registry: the "static" and "runtime" kinds' sources together.
struct SourceKind;
SourceKind both_source_kind();

}  // namespace aaw
