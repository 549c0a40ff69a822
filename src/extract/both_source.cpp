#include "extract/both_source.hpp"

#include <spdlog/spdlog.h>

#include "core/model/cross_check.hpp"
#include "extract/runtime/runtime_source.hpp"
#include "extract/source_registry.hpp"
#include "extract/static/incremental_static_source.hpp"

namespace aaw {

Result<std::vector<SignatureState>> BothSource::extract(const ObjectId& commit,
                                                        const std::vector<MonitoredFunction>& functions) {
  auto static_states = m_static.extract(commit, functions);
  auto runtime_states = m_runtime.extract(commit, functions);
  if (!runtime_states) return runtime_states;
  if (!static_states) {
    m_log.warn("Static extraction at {} failed, so it cannot cross-check the runtime one: {}", commit.hex,
               static_states.error().message());
    return runtime_states;
  }
  for (std::size_t i = 0; i < functions.size(); ++i) {
    const SignatureState& s = (*static_states)[i];
    const SignatureState& r = (*runtime_states)[i];
    if (s.is_ok() != r.is_ok() && !is_machinery_failure(r.status) && !is_machinery_failure(s.status)) {
      ++m_disagreements;
      m_log.warn(
          "Static and runtime extraction disagree on {} at {}: static {}, runtime {}; recording runtime",
          functions[i].function_path, commit.hex, s.summary(), r.summary());
      continue;
    }
    if (!s.is_ok() || !r.is_ok()) continue;
    auto differences = signature_disagreements(s.signature, r.signature);
    if (differences.empty()) continue;
    ++m_disagreements;
    std::string joined;
    for (const std::string& d : differences) joined += (joined.empty() ? "" : "; ") + d;
    m_log.warn(
        "Static and runtime extraction disagree on {} at {}: {} (static {}, runtime {}); recording runtime",
        functions[i].function_path, commit.hex, joined, s.signature.text(), r.signature.text());
  }
  return runtime_states;
}

std::string BothSource::work_summary() const {
  std::string summary = m_static.work_summary();
  return summary + (summary.empty() ? "" : "; ") +
         fmt::format("static and runtime extraction disagreed on {} function state{} (runtime recorded)",
                     m_disagreements, m_disagreements == 1 ? "" : "s");
}

SourceKind both_source_kind() {
  return {"both",
          "record the runtime states, and warn where static extraction disagrees on names, kinds or defaults",
          [](const Config& config, SourceDeps& deps) -> Result<std::unique_ptr<SignatureSource>> {
            auto static_source = static_source_kind().make(config, deps);
            if (!static_source) return static_source.error();
            auto runtime_source = runtime_source_kind().make(config, deps);
            if (!runtime_source) return runtime_source.error();
            return std::unique_ptr<SignatureSource>(std::make_unique<BothSource>(
                std::move(*static_source), std::move(*runtime_source), deps.log));
          }};
}

}  // namespace aaw
