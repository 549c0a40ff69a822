#include "extract/source_registry.hpp"

#include "extract/both_source.hpp"
#include "extract/import_confirmed_source.hpp"
#include "extract/runtime/runtime_source.hpp"
#include "extract/static/incremental_static_source.hpp"
#include "util/strings.hpp"

namespace aaw {

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
  registry.add(import_confirmed_source_kind());
  return registry;
}

}  // namespace aaw
