#include "aaw/extract/both_source.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "aaw/extract/runtime_source.hpp"
#include "aaw/extract/source_registry.hpp"
#include "aaw/extract/static_memo.hpp"

namespace aaw {
namespace {

std::string quoted(const std::optional<std::string>& text) { return text ? "'" + *text + "'" : "none"; }

}  // namespace

std::vector<std::string> signature_disagreements(const Signature& static_signature,
                                                 const Signature& runtime_signature) {
  const auto& a = static_signature.parameters;
  const auto& b = runtime_signature.parameters;
  std::vector<std::string> out;
  if (a.size() != b.size())
    out.push_back(std::to_string(a.size()) + " parameters static, " + std::to_string(b.size()) + " runtime");
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    const std::string where = "parameter " + std::to_string(i + 1) + ": ";
    if (a[i].name != b[i].name) {
      out.push_back(where + "'" + a[i].name + "' static, '" + b[i].name + "' runtime");
      continue;  // the rest of this pair compares two different parameters
    }
    if (a[i].kind != b[i].kind)
      out.push_back(where + "'" + a[i].name + "' is " + std::string(to_string(a[i].kind)) + " static, " +
                    std::string(to_string(b[i].kind)) + " runtime");
    if (a[i].default_value != b[i].default_value)
      out.push_back(where + "'" + a[i].name + "' defaults to " + quoted(a[i].default_value) + " static, " +
                    quoted(b[i].default_value) + " runtime");
  }
  return out;
}

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
