#include "extract/static/static_function_finder.hpp"

namespace aaw {

Result<std::vector<FunctionLookup>> StaticFunctionFinder::lookup(
    const ObjectId& commit, const std::vector<MonitoredFunction>& functions) {
  auto tree = m_mirror.tree(commit);
  if (!tree) return tree.error();
  return m_extractor.lookup(**tree, functions);
}

Result<std::vector<std::optional<SourceLocation>>> StaticFunctionFinder::locate(
    const ObjectId& commit, const std::vector<MonitoredFunction>& functions) {
  auto tree = m_mirror.tree(commit);
  if (!tree) return tree.error();
  return m_extractor.locate(**tree, functions);
}

Result<OpRegistrations> StaticFunctionFinder::registered_ops(const ObjectId& commit,
                                                             const std::string& package,
                                                             const std::vector<std::string>& modules,
                                                             const std::vector<std::string>& ops) {
  auto tree = m_mirror.tree(commit);
  if (!tree) return tree.error();
  return m_extractor.registered_ops(**tree, package, modules, ops);
}

}  // namespace aaw
