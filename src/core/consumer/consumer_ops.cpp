#include "core/consumer/consumer_ops.hpp"

#include <set>

namespace aaw {
namespace {

// The modules the consumer imports, by the scan: where an op may be registered besides the
// modules importing the package loads.
std::vector<std::string> imported_modules(const ConsumerScan& scan) {
  std::set<std::string> out;
  for (const Json& m : scan.document.value("modules", Json::array()))
    if (m.is_object() && m.value("name", Json()).is_string()) out.insert(m["name"].get<std::string>());
  for (const ConsumerFunction& f : scan.functions) {
    auto dot = f.target.rfind('.');
    if (dot != std::string::npos) out.insert(f.target.substr(0, dot));
  }
  return {out.begin(), out.end()};
}

ConsumerFunction& function_for(ConsumerScan& scan, const RegisteredOp& op) {
  for (ConsumerFunction& f : scan.functions)
    if (f.target == op.target) return f;
  scan.functions.push_back({op.function, op.target, {}});
  return scan.functions.back();
}

}  // namespace

Result<ConsumerScan> with_registered_ops(const ConsumerScan& scan, OpRegistry& registry,
                                         const ObjectId& commit) {
  std::set<std::string> ops;
  for (const UncheckedSite& u : scan.unchecked)
    if (!u.op.empty() && u.call) ops.insert(u.op);
  if (ops.empty()) return scan;
  auto found =
      registry.registered_ops(commit, scan.package, imported_modules(scan), {ops.begin(), ops.end()});
  if (!found) return found.error().context("finding the torch.ops registrations at " + commit.short_hex());
  ConsumerScan out = scan;
  out.unchecked.clear();
  for (const UncheckedSite& u : scan.unchecked) {
    auto entry = found->ops.find(u.op);
    if (u.op.empty() || !u.call || entry == found->ops.end()) {
      out.unchecked.push_back(u);
      continue;
    }
    UncheckedSite left = u;
    left.call.reset();
    if (!entry->second) {
      left.what += found->unknown.empty()
                       ? ": no registration of '" + u.op + "' in the " +
                             std::to_string(found->modules_searched) + " modules importing " + scan.package +
                             " and the consumer's imports load"
                       : ": " + found->unknown;
      out.unchecked.push_back(std::move(left));
    } else if (entry->second->prepends_tensor) {
      left.what += ": the op's schema starts with a tensor " + entry->second->function.function_path +
                   " does not declare (" + entry->second->how + ")";
      out.unchecked.push_back(std::move(left));
    } else {
      CallSite site = *u.call;
      site.indirect =
          "through torch.ops." + scan.package + "." + u.op + ", registered by " + entry->second->how;
      site.import_statement = entry->second->function.import_statement;
      function_for(out, *entry->second).call_sites.push_back(std::move(site));
    }
  }
  return out;
}

}  // namespace aaw
