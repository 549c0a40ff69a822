// What one change of a provider function does to a consumer's calls of it: the call sites that
// bound (or could not be read) against the signature before and no longer bind against the one
// after, each with Python's reason. Carried by every recorded change (log line, event,
// notification), by compare's outputs and by the report page.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/consumer/consumer.hpp"

namespace aaw {

struct BrokenCallSite {
  CallSite site;
  Binding binding;  // breaks or guarded, with Python's message

  // "breaks vllm/_aiter_ops.py:3007 (rocm_aiter_ops.shuffle_weight): got an unexpected keyword
  // argument 'layout'"
  std::string describe() const;
};

struct ConsumerImpact {
  std::size_t call_sites = 0;          // the consumer's call sites of the function
  std::vector<BrokenCallSite> broken;  // by file and line
  // The call sites that cannot be checked against the signature after the change (unknown, with
  // why): they may break too, and are listed beside the broken ones, never dropped.
  std::vector<BrokenCallSite> unknown;

  // broken, then unknown: what every rendering lists.
  std::vector<BrokenCallSite> listed() const;

  // Whether any call site now breaks (a guarded one takes another path: it does not count).
  bool breaks_consumer() const;
  // "breaks 2 of the consumer's 5 call sites" / "breaks none of the consumer's 5 call sites", then
  // "; 1 more cannot be checked" when some are unknown.
  std::string summary() const;
};

// {"call_sites": 5, "breaks_consumer": true, "broken": [{"file", "line", "caller", "function_path",
// "import_statement", "verdict", "reason"}], "unknown": [the same]}
Json to_json(const ConsumerImpact& impact);
Result<ConsumerImpact> consumer_impact_from_json(const Json& json);

// Assesses changes against one scan of the consumer with one binder.
class ImpactAssessor {
 public:
  ImpactAssessor(ConsumerScan scan, CallBinder& binder) : m_scan(std::move(scan)), m_binder(binder) {}

  // nullopt when the consumer does not call `function` or `before` is nullopt (an initial
  // signature breaks nothing).
  Result<std::optional<ConsumerImpact>> assess(const MonitoredFunction& function,
                                               const SignatureState* before, const SignatureState& after);

  const ConsumerScan& scan() const { return m_scan; }

 private:
  ConsumerScan m_scan;
  CallBinder& m_binder;
};

}  // namespace aaw
