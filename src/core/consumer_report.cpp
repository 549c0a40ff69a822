#include "aaw/core/consumer_report.hpp"

namespace aaw {
namespace {

bool not_binding(Verdict verdict) { return verdict == Verdict::breaks || verdict == Verdict::guarded; }

const ConsumerFunction* called(const ConsumerScan& scan, const MonitoredFunction& function) {
  for (const ConsumerFunction& f : scan.functions)
    if (f.function == function) return &f;
  return nullptr;
}

}  // namespace

Result<std::vector<DetailTable>> ConsumerDetailSource::details(const MonitoredFunction& function,
                                                               const TimelineEntry& entry) {
  if (!m_scan) return m_scan.error();
  if (!m_binder) return Error(ErrorCode::internal, "no call binder");
  const ConsumerFunction* consumer = called(*m_scan, function);
  if (consumer == nullptr || !entry.before) return std::vector<DetailTable>{};
  std::vector<CallBinder::Request> requests;
  for (const CallSite& site : consumer->call_sites) requests.push_back({&*entry.before, &site});
  for (const CallSite& site : consumer->call_sites) requests.push_back({&entry.after, &site});
  auto bound = m_binder->bind(requests);
  if (!bound) return bound.error();
  const std::size_t n = consumer->call_sites.size();
  DetailTable table{
      "Call sites this change breaks", {"verdict", "call site", "function path", "reason"}, {}, ""};
  for (std::size_t i = 0; i < n; ++i) {
    const Binding& before = (*bound)[i];
    const Binding& after = (*bound)[n + i];
    if (not_binding(before.verdict) || !not_binding(after.verdict)) continue;
    const CallSite& site = consumer->call_sites[i];
    table.rows.push_back({std::string(to_string(after.verdict)),
                          site.file + ":" + std::to_string(site.line) + " (" + site.caller + ")",
                          site.function_path, after.reason});
  }
  if (table.rows.empty())
    table.note = "breaks none of the consumer's " + std::to_string(n) + " call sites of this function";
  return std::vector<DetailTable>{table};
}

}  // namespace aaw
