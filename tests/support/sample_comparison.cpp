#include "support/sample_comparison.hpp"

namespace aaw::testing {

Comparison sample_gate_comparison() {
  using K = ParameterKind;
  Signature before{{{"a", K::positional_or_keyword, std::nullopt, std::nullopt},
                    {"b", K::positional_or_keyword, std::nullopt, "int"},
                    {"c", K::keyword_only, "1", std::nullopt}},
                   std::nullopt};
  Signature after{{{"a", K::positional_or_keyword, std::nullopt, std::nullopt},
                   {"c", K::keyword_only, "2", std::nullopt}},
                  std::nullopt};
  Comparison c{ObjectId{std::string(40, 'a')}, ObjectId{std::string(40, 'b')}, {}};
  FunctionComparison f{{"import m", "m.f"}, SignatureState::ok(before), SignatureState::ok(after), {}};
  f.changes = diff_states(f.before, f.after);
  f.old_location = SourceLocation{"m/core.py", 10};
  f.new_location = SourceLocation{"m/core.py", 12};
  CallSite site;
  site.file = "consumer/use.py";
  site.line = 7;
  site.caller = "run";
  site.function_path = "m.f";
  site.import_statement = "import m";
  f.impact = ConsumerImpact{3, {{site, {Verdict::breaks, "got an unexpected keyword argument 'b'", ""}}}, {}};
  c.functions.push_back(std::move(f));
  c.functions.push_back({{"import m", "m.g"}, SignatureState::ok(before), SignatureState::ok(before), {}});
  return c;
}

Waiver waiver_of(const Comparison& c, std::size_t change, const std::string& reason) {
  Waiver w;
  w.fingerprint = change_fingerprint(c.functions[0].function, c.functions[0].changes[change]);
  w.reason = reason;
  w.accepted_by = "ann";
  return w;
}

}  // namespace aaw::testing
