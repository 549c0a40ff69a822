#include "core/consumer/consumer_report.hpp"

namespace aaw {

ConsumerDetailSource::ConsumerDetailSource(Result<ConsumerScan> scan, std::unique_ptr<CallBinder> binder)
    : m_binder(std::move(binder)), m_why_not(ErrorCode::internal, "no call binder") {
  if (!scan)
    m_why_not = scan.error();
  else if (m_binder)
    m_assessor.emplace(std::move(*scan), *m_binder);
}

Result<std::vector<DetailTable>> ConsumerDetailSource::details(const MonitoredFunction& function,
                                                               const TimelineEntry& entry) {
  if (!m_assessor) return m_why_not;
  auto impact = m_assessor->assess(function, entry.before ? &*entry.before : nullptr, entry.after);
  if (!impact) return impact.error();
  if (!*impact) return std::vector<DetailTable>{};
  DetailTable table{"Call sites this change breaks (and those that cannot be checked)",
                    {"verdict", "call site", "function path", "reason"},
                    {},
                    ""};
  for (const BrokenCallSite& b : (*impact)->listed())
    table.rows.push_back({std::string(to_string(b.binding.verdict)), location(b.site), b.site.function_path,
                          b.binding.reason});
  if ((*impact)->broken.empty()) table.note = (*impact)->summary() + " of this function";
  return std::vector<DetailTable>{table};
}

}  // namespace aaw
