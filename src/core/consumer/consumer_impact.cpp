#include "core/consumer/consumer_impact.hpp"

namespace aaw {
namespace {

const ConsumerFunction* called(const ConsumerScan& scan, const MonitoredFunction& function) {
  for (const ConsumerFunction& f : scan.functions)
    if (f.function == function) return &f;
  return nullptr;
}

std::string plural_sites(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " call site" : " call sites");
}

}  // namespace

std::string BrokenCallSite::describe() const {
  return std::string(to_string(binding.verdict)) + " " + location(site) + ": " + binding.reason;
}

std::vector<BrokenCallSite> ConsumerImpact::listed() const {
  std::vector<BrokenCallSite> out = broken;
  out.insert(out.end(), unknown.begin(), unknown.end());
  return out;
}

bool ConsumerImpact::breaks_consumer() const {
  for (const BrokenCallSite& b : broken)
    if (b.binding.verdict == Verdict::breaks) return true;
  return false;
}

std::string ConsumerImpact::summary() const {
  std::size_t breaking = 0;
  for (const BrokenCallSite& b : broken) breaking += b.binding.verdict == Verdict::breaks ? 1 : 0;
  const std::size_t guarded = broken.size() - breaking;
  std::string out =
      breaking == 0 ? "breaks none of the consumer's " + plural_sites(call_sites)
                    : "breaks " + std::to_string(breaking) + " of the consumer's " + plural_sites(call_sites);
  if (guarded > 0) out += " (" + std::to_string(guarded) + " more fail behind a guard)";
  if (!unknown.empty()) out += "; " + std::to_string(unknown.size()) + " more cannot be checked";
  return out;
}

Json to_json(const ConsumerImpact& impact) {
  auto sites = [](const std::vector<BrokenCallSite>& list) {
    Json out = Json::array();
    for (const BrokenCallSite& b : list) {
      Json site = to_json(b.site);
      site["verdict"] = to_string(b.binding.verdict);
      site["reason"] = b.binding.reason;
      out.push_back(std::move(site));
    }
    return out;
  };
  return {{"call_sites", impact.call_sites},
          {"breaks_consumer", impact.breaks_consumer()},
          {"broken", sites(impact.broken)},
          {"unknown", sites(impact.unknown)}};
}

Result<ConsumerImpact> consumer_impact_from_json(const Json& json) {
  if (!json.is_object() || !json.contains("broken") || !json.at("broken").is_array())
    return Error(ErrorCode::invalid_input, "consumer impact: expected an object with 'broken'");
  ConsumerImpact impact;
  impact.call_sites = json.value("call_sites", std::size_t{0});
  // "unknown" is absent from records written before it existed.
  for (auto [key, into] : {std::pair{"broken", &impact.broken}, std::pair{"unknown", &impact.unknown}}) {
    if (!json.contains(key)) continue;
    const Json& list = json.at(key);
    if (!list.is_array())
      return Error(ErrorCode::invalid_input, std::string("consumer impact.") + key + ": expected a list");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Json& item = list[i];
      std::string where = std::string("consumer impact.") + key + "[" + std::to_string(i) + "]";
      auto site = call_site_from_json(item, where);
      if (!site) return site.error();
      auto verdict = verdict_named(item.value("verdict", ""));
      if (!verdict) return verdict.error().context(where);
      into->push_back({std::move(*site), {*verdict, item.value("reason", ""), ""}});
    }
  }
  return impact;
}

Result<std::optional<ConsumerImpact>> ImpactAssessor::assess(const MonitoredFunction& function,
                                                             const SignatureState* before,
                                                             const SignatureState& after) {
  const ConsumerFunction* consumer = called(m_scan, function);
  if (consumer == nullptr || before == nullptr) return std::optional<ConsumerImpact>();
  std::vector<CallBinder::Request> requests;
  for (const CallSite& site : consumer->call_sites) requests.push_back({before, &site});
  for (const CallSite& site : consumer->call_sites) requests.push_back({&after, &site});
  auto bound = m_binder.bind(requests);
  if (!bound) return bound.error();
  const std::size_t n = consumer->call_sites.size();
  ConsumerImpact impact;
  impact.call_sites = n;
  for (std::size_t i = 0; i < n; ++i) {
    const Binding& was = (*bound)[i];
    const Binding& now = (*bound)[n + i];
    if (!was.fails() && now.fails())
      impact.broken.push_back({consumer->call_sites[i], now});
    else if (now.verdict == Verdict::unknown)
      impact.unknown.push_back({consumer->call_sites[i], now});
  }
  return std::optional<ConsumerImpact>(std::move(impact));
}

}  // namespace aaw
