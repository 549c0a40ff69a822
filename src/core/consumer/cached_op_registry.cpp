#include "core/consumer/cached_op_registry.hpp"

namespace aaw {
namespace {

// Module and op names hold no newline: the key is each input on a line of its own.
std::string key_of(const ObjectId& commit, const std::string& package,
                   const std::vector<std::string>& modules, const std::vector<std::string>& ops,
                   const std::string& context) {
  std::string key = "torch-ops-1\n" + commit.hex + "\n" + package + "\n" + context + "\n";
  for (const auto* names : {&modules, &ops}) {
    for (const std::string& name : *names) key += name + " ";
    key += "\n";
  }
  return key;
}

}  // namespace

Json op_registrations_to_json(const OpRegistrations& registrations) {
  Json ops = Json::object();
  for (const auto& [op, found] : registrations.ops) {
    if (!found) {
      ops[op] = nullptr;
      continue;
    }
    ops[op] = {{"import_statement", found->function.import_statement},
               {"function_path", found->function.function_path},
               {"target", found->target},
               {"how", found->how},
               {"prepends_tensor", found->prepends_tensor}};
  }
  return {{"ops", ops}, {"searched", registrations.modules_searched}, {"unknown", registrations.unknown}};
}

std::optional<OpRegistrations> op_registrations_from_json(const Json& json) {
  if (!json.is_object() || !json.value("ops", Json()).is_object() ||
      !json.value("searched", Json()).is_number_unsigned() || !json.value("unknown", Json()).is_string())
    return std::nullopt;
  OpRegistrations out;
  out.modules_searched = json["searched"].get<std::size_t>();
  out.unknown = json["unknown"].get<std::string>();
  for (const auto& [op, found] : json["ops"].items()) {
    if (found.is_null()) {
      out.ops[op] = std::nullopt;
      continue;
    }
    if (!found.is_object()) return std::nullopt;
    for (const char* field : {"import_statement", "function_path", "target", "how"})
      if (!found.value(field, Json()).is_string()) return std::nullopt;
    if (!found.value("prepends_tensor", Json()).is_boolean()) return std::nullopt;
    out.ops[op] = RegisteredOp{
        {found["import_statement"].get<std::string>(), found["function_path"].get<std::string>()},
        found["target"].get<std::string>(),
        found["how"].get<std::string>(),
        found["prepends_tensor"].get<bool>()};
  }
  return out;
}

Result<OpRegistrations> CachedOpRegistry::registered_ops(const ObjectId& commit, const std::string& package,
                                                         const std::vector<std::string>& modules,
                                                         const std::vector<std::string>& ops) {
  const std::string key = key_of(commit, package, modules, ops, m_context);
  if (auto kept = m_cache.get(key))
    if (auto registrations = op_registrations_from_json(*kept)) return std::move(*registrations);
  auto found = m_inner.registered_ops(commit, package, modules, ops);
  if (found) m_cache.put(key, op_registrations_to_json(*found));
  return found;
}

}  // namespace aaw
