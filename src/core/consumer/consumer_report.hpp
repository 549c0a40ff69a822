// Under each change of the report: the consumer's call sites the change breaks (they bound, or
// could not be read, against the signature before and break against the one after), or a note
// that it breaks none.
#pragma once

#include <memory>
#include <optional>

#include "core/consumer/consumer.hpp"
#include "core/consumer/consumer_impact.hpp"
#include "core/report/report.hpp"

namespace aaw {

class ConsumerDetailSource : public ReportDetailSource {
 public:
  // `scan` is the consumer's scan, or why there is none (shown under every change it concerns).
  ConsumerDetailSource(Result<ConsumerScan> scan, std::unique_ptr<CallBinder> binder);
  Result<std::vector<DetailTable>> details(const MonitoredFunction& function,
                                           const TimelineEntry& entry) override;
  std::string name() const override { return "Consumer call sites"; }

 private:
  std::unique_ptr<CallBinder> m_binder;
  std::optional<ImpactAssessor> m_assessor;  // set when there is a scan and a binder
  Error m_why_not;                           // why m_assessor is not set
};

}  // namespace aaw
