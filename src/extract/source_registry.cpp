#include "aaw/extract/source_registry.hpp"

#include <algorithm>

#include "aaw/extract/both_source.hpp"
#include "aaw/extract/runtime_source.hpp"
#include "aaw/extract/static_memo.hpp"
#include "aaw/util/strings.hpp"

namespace aaw {

void SourceRegistry::add(SourceKind kind) {
  auto same =
      std::find_if(m_kinds.begin(), m_kinds.end(), [&](const SourceKind& k) { return k.name == kind.name; });
  if (same != m_kinds.end()) {
    *same = std::move(kind);
  } else {
    m_kinds.push_back(std::move(kind));
  }
}

const SourceKind* SourceRegistry::find(std::string_view name) const {
  for (const SourceKind& kind : m_kinds)
    if (kind.name == name) return &kind;
  return nullptr;
}

std::vector<std::string> SourceRegistry::names() const {
  std::vector<std::string> out;
  for (const SourceKind& kind : m_kinds) out.push_back(kind.name);
  return out;
}

Result<std::unique_ptr<SignatureSource>> SourceRegistry::make(const Config& config, SourceDeps& deps) const {
  const SourceKind* kind = find(config.extractor);
  if (!kind)
    return Error(ErrorCode::invalid_input,
                 "extractor: expected one of " + join(names()) + ", got '" + config.extractor + "'");
  return kind->make(config, deps);
}

SourceRegistry builtin_sources() {
  SourceRegistry registry;
  registry.add(static_source_kind());
  registry.add(runtime_source_kind());
  registry.add(both_source_kind());
  return registry;
}

}  // namespace aaw
