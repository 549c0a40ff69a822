// The FunctionFinder port on the static resolver: reads a commit's tree from the mirror and asks
// src/python/aaw_lookup.py whether each function is there. Nothing is built or imported, so
// check-config and the start-up checks cost milliseconds even when the extractor is `runtime`.
// Also the DefinitionLocator port (where each def is, aaw_static.locate_all), never memoised: a def
// that moves keeps its module's digest; and the OpRegistry port (aaw_ops.find_ops).
#pragma once

#include <utility>

#include "core/ports/definition_locator.hpp"
#include "core/ports/function_lookup.hpp"
#include "core/ports/git_mirror.hpp"
#include "core/ports/op_registry.hpp"
#include "core/ports/python_host.hpp"
#include "extract/static/static_extractor.hpp"

namespace aaw {

class StaticFunctionFinder final : public FunctionFinder, public DefinitionLocator, public OpRegistry {
 public:
  // `options`: the config's static section, so a function is looked up where extraction looks.
  StaticFunctionFinder(GitMirror& mirror, PythonHost& python, StaticConfig options = {})
      : m_mirror(mirror), m_extractor(python, std::move(options)) {}

  // not_found when the commit or its tree is missing from the mirror.
  Result<std::vector<FunctionLookup>> lookup(const ObjectId& commit,
                                             const std::vector<MonitoredFunction>& functions) override;
  // not_found when the commit or its tree is missing from the mirror.
  Result<std::vector<std::optional<SourceLocation>>> locate(
      const ObjectId& commit, const std::vector<MonitoredFunction>& functions) override;
  // not_found when the commit or its tree is missing from the mirror.
  Result<OpRegistrations> registered_ops(const ObjectId& commit, const std::string& package,
                                         const std::vector<std::string>& modules,
                                         const std::vector<std::string>& ops) override;

 private:
  GitMirror& m_mirror;
  StaticExtractor m_extractor;
};

}  // namespace aaw
