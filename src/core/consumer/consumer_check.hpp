// `check`: every call site of a consumer bound against the signatures at one commit of the
// provider, and, for each call that no longer binds, the first first-parent commit from which it
// stopped binding (found by bisection over the states at those commits). Renderings for the
// console, JSON and Markdown.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/consumer/consumer.hpp"
#include "core/ports/git_mirror.hpp"
#include "core/ports/signature_source.hpp"

namespace aaw {

struct SiteVerdict {
  const ConsumerFunction* function = nullptr;  // points into the scan
  const CallSite* site = nullptr;              // points into the scan
  Binding binding;
  bool not_importable = false;  // the function itself is missing at the commit
  std::optional<ObjectId> broken_since;
  // When the call did not bind before a stretch of history either: where that stretch began (it
  // bound from bound_from until broken_since).
  std::optional<ObjectId> bound_from;
  SignatureState state;  // the function's at the commit checked
};

struct ConsumerCheck {
  ObjectId commit;
  // Every call site: functions no longer importable first, then breaks, guarded, unknown,
  // binds; by file and line within each.
  std::vector<SiteVerdict> sites;
  // Where the consumer reaches the package in ways that cannot be checked (the scan's): every
  // report lists and counts them.
  std::vector<UncheckedSite> unchecked;
  std::size_t count(Verdict verdict) const;
  // The sites whose function's signature is ok but unverified (SignatureState::unverified):
  // their verdicts stand on a reading the tool cannot vouch for.
  std::size_t unverified_sites() const;
  // The unknown sites counted by Binding::cause, causes in a fixed order, none with no site.
  std::vector<std::pair<std::string, std::size_t>> unknown_causes() const;
};

// "165 call sites at e4048607a535: 2 break, 0 guarded, 9 unknown (7 forward *args/**kwargs of
// their own, 2 signature not readable statically), 154 bind; 2 more places reach the package in
// ways that cannot be checked (listed as 'not checked')": what every report ends with.
std::string summary_line(const ConsumerCheck& check);
// {"breaks", "guarded", "unknown", "binds", "unknown_by_cause": {cause: n}, "not_checked": n,
// "unverified": n}
Json summary_json(const ConsumerCheck& check);
// "not checked vllm/x.py:12 (f): call of torch.ops.aiter.op", one line per unchecked place.
std::string describe(const UncheckedSite& site);
Json unchecked_json(const ConsumerCheck& check);

// Binds every call site of `scan` against the states `source` gives at `commit`.
Result<ConsumerCheck> check_consumer(const ConsumerScan& scan, SignatureSource& source, CallBinder& binder,
                                     const ObjectId& commit);

// Sets broken_since on each site of `check` that breaks or is guarded: the first commit of the
// last stretch of `history` (first-parent, oldest first, ending at check.commit) where it does not
// bind, i.e. the commit after the last one where it bound. The states of its function are followed
// through every commit (SignatureSource::advance: what changed, not commits x functions), so a call
// that bound only for a while, before and after which it failed, is blamed on the commit that ended
// that while, and bound_from names where it began. A call that binds nowhere in `history` keeps no
// broken_since. A call that passes a keyword the function took before broken_since and no longer
// takes there gets a reason people act on: "passes `softcap=`, which unified_attention no longer
// accepts (renamed to `logits_soft_cap` in 1a2b3c4d5e6f)". Returns how many commits were followed.
Result<std::size_t> blame_consumer(ConsumerCheck& check, SignatureSource& source, CallBinder& binder,
                                   const std::vector<ObjectId>& history);

// Exit code of `check`: 1 when any call breaks, else 0.
int consumer_exit_code(const ConsumerCheck& check);

// One site as check's JSON lists it.
Json to_json(const SiteVerdict& site);
// "breaks vllm/_aiter_ops.py:3007 (rocm_aiter_ops.shuffle_weight) aiter.shuffle_weight: got an
// unexpected keyword argument 'layout' (broken since 1a2b3c4d5e6f)"
std::string describe(const SiteVerdict& site);

// "breaks vllm/_aiter_ops.py:3007 (rocm_aiter_ops.shuffle_weight) aiter.shuffle_weight: got an
// unexpected keyword argument 'layout' (broken since 1a2b3c4d5e6f)" per site, the places not
// checked, then summary_line. `problems_only` (check --quiet): only the sites that break or
// cannot be checked, the places not checked and the summary, which still counts every site.
std::string render_consumer_text(const ConsumerCheck& check, bool problems_only = false);
// {"schema": "aiter-api-watcher/check/1", "commit", "summary": summary_json, "call_sites": [{"function_path",
// "import_statement", "file", "line", "caller", "verdict", "reason", "cause", "broken_since",
// "unverified"}],
// "not_checked": [{"file", "line", "caller", "what"}], "exit_code"}
Json consumer_check_to_json(const ConsumerCheck& check);
std::string render_consumer_markdown(const ConsumerCheck& check);

}  // namespace aaw
