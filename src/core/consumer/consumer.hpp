// A consumer of the watched package (vLLM for aiter): the functions it calls and every call site
// with its shape, as a scan of its sources found them (src/python/aaw_consumer.py), and the
// verdict of each call site against a signature (src/python/aaw_binder.py): the model, and the
// port through which the core has call shapes bound.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/signature.hpp"
#include "util/result.hpp"

namespace aaw {

// One call of a package function in the consumer's code, as written there.
struct CallSite {
  std::string file;  // relative to the consumer's root
  int line = 0;
  std::string caller;  // "Class.method", "function", or "<module>"
  int positional = 0;  // positional arguments written out (not counting *args)
  std::vector<std::string> keywords;
  bool star_args = false;    // passes *something
  bool star_kwargs = false;  // passes **something
  // What sits between the call and a failure: "import fallback", "hasattr probe", "signature
  // probe", "catches TypeError".
  std::vector<std::string> guards;
  std::optional<std::string> indirect;  // how the callee is reached indirectly ("reached through 'self.fn'")
  // Why the scan cannot tell which function the call reaches ("'self.fn' is also assigned ...").
  std::optional<std::string> ambiguous;
  std::string import_statement;      // how this site's file imports it
  std::optional<int> import_line;    // the line of that import
  bool import_module_level = false;  // whether it runs when the file is imported
  std::string function_path;         // what this site's file calls it
};

// One function the consumer calls: the functions_to_monitor entry (the first import form seen),
// the package's dotted name for it, and its call sites.
struct ConsumerFunction {
  MonitoredFunction function;
  std::string target;  // "aiter.ops.mha.flash_attn_func"
  std::vector<CallSite> call_sites;
};

// A place where the consumer reaches the package in a way the scan cannot check (a call through
// torch.ops.aiter, an import of a name computed at run time): listed in every report, never dropped.
struct UncheckedSite {
  std::string file;
  int line = 0;
  std::string caller;
  std::string what;  // "call of torch.ops.aiter.paged_attention_v1"
  // For a call of torch.ops.<package>.<op>: the op and the call's shape, which with_registered_ops
  // binds against the function registering the op.
  std::string op;
  std::optional<CallSite> call;
};

struct ConsumerScan {
  std::string package;
  std::vector<ConsumerFunction> functions;
  std::vector<UncheckedSite> unchecked;  // the scan's "dynamic" list
  Json document;  // the whole scan as aaw_consumer.discover returned it (classes, modules, ...)
  // Of the files naming the package, how many were parsed and how many taken from the cache of
  // answers (not in `document`: the scan is the same either way); nullopt without a cache.
  struct CacheUse {
    std::size_t parsed = 0, cached = 0;
  };
  std::optional<CacheUse> cache_use;
};

// Reads aaw_consumer.discover's result; invalid_input naming the field that does not fit.
Result<ConsumerScan> consumer_scan_from_json(const Json& json);
// One call site as aaw_consumer writes it; `where` names it in errors ("functions[2].call_sites[0]").
Result<CallSite> call_site_from_json(const Json& json, const std::string& where);
Json to_json(const CallSite& site);
// "vllm/_aiter_ops.py:3007 (rocm_aiter_ops.shuffle_weight)"
std::string location(const CallSite& site);
std::string location(const UncheckedSite& site);
Json to_json(const UncheckedSite& site);

// The functions_to_monitor entries of a scan, in its order.
std::vector<MonitoredFunction> monitored_functions(const ConsumerScan& scan);

enum class Verdict { breaks, guarded, unknown, binds };
std::string_view to_string(Verdict verdict);
// invalid_input for a name that is not a verdict.
Result<Verdict> verdict_named(const std::string& name);

struct Binding {
  Verdict verdict = Verdict::unknown;
  std::string reason;  // Python's message for breaks and guarded; why for unknown; "" for binds
  // For unknown, the kind of reason, to count them by: "forwards" (passes *args/**kwargs of its
  // own), "ambiguous", "unreadable" (no signature statically), "extraction" (extraction failed).
  std::string cause;

  // breaks or guarded: the call fails as written (a guarded one takes another path).
  bool fails() const { return verdict == Verdict::breaks || verdict == Verdict::guarded; }
};

// Binds call shapes against signature states, as Python would (inspect.Signature.bind).
class CallBinder {
 public:
  virtual ~CallBinder() = default;
  struct Request {
    const SignatureState* state;
    const CallSite* site;
  };
  // One Binding per request, in order; an Error only when the binder itself fails.
  virtual Result<std::vector<Binding>> bind(const std::vector<Request>& requests) = 0;
};

}  // namespace aaw
