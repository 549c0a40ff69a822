// The ops registered at a commit, kept between runs: what a commit's tree registers never changes,
// and finding it means reading every module importing the package loads (about a second on aiter).
// A decorator of any OpRegistry over a ResultCache.
#pragma once

#include <string>

#include "core/ports/op_registry.hpp"
#include "core/ports/result_cache.hpp"

namespace aaw {

class CachedOpRegistry final : public OpRegistry {
 public:
  // `context`: whatever else the inner registry's answer depends on (the static section of the
  // config: its source roots and module aliases), as text.
  CachedOpRegistry(OpRegistry& inner, ResultCache& cache, std::string context)
      : m_inner(inner), m_cache(cache), m_context(std::move(context)) {}

  // The inner registry's answer, from the cache when it was asked the same before; errors are
  // passed on and not kept.
  Result<OpRegistrations> registered_ops(const ObjectId& commit, const std::string& package,
                                         const std::vector<std::string>& modules,
                                         const std::vector<std::string>& ops) override;

 private:
  OpRegistry& m_inner;
  ResultCache& m_cache;
  std::string m_context;
};

// OpRegistrations as JSON and back (what the cache keeps); nullopt when `json` is not one.
Json op_registrations_to_json(const OpRegistrations& registrations);
std::optional<OpRegistrations> op_registrations_from_json(const Json& json);

}  // namespace aaw
