// A CallBinder for core tests: a missing function breaks (guarded behind any guard), a call
// passing more positional arguments than the signature has parameters, or a keyword none of them
// has, breaks; a call passing *args or **kwargs is unknown; the rest binds.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/consumer/consumer.hpp"

namespace aaw::test {

class FakeCallBinder final : public CallBinder {
 public:
  Result<std::vector<Binding>> bind(const std::vector<Request>& requests) override {
    ++calls;
    std::vector<Binding> out;
    for (const Request& r : requests) {
      if (!r.state->is_ok())
        out.push_back(
            {r.site->guards.empty() ? Verdict::breaks : Verdict::guarded, "no longer importable", ""});
      else if (static_cast<std::size_t>(r.site->positional) > r.state->signature.parameters.size())
        out.push_back({Verdict::breaks, "too many positional arguments", ""});
      else if (r.site->star_args || r.site->star_kwargs)
        out.push_back({Verdict::unknown, "the call forwards *args", "forwards"});
      else if (auto k = unknown_keyword(*r.site, r.state->signature))
        out.push_back({Verdict::breaks, "got an unexpected keyword argument '" + *k + "'", ""});
      else
        out.push_back({Verdict::binds, "", ""});
    }
    return out;
  }
  int calls = 0;

 private:
  static std::optional<std::string> unknown_keyword(const CallSite& site, const Signature& signature) {
    for (const std::string& k : site.keywords)
      if (signature.find(k) == nullptr) return k;
    return std::nullopt;
  }
};

// An ok state with parameters p0 .. p<n-1>.
inline SignatureState params(int n) {
  Signature s;
  for (int i = 0; i < n; ++i)
    s.parameters.push_back({"p" + std::to_string(i), ParameterKind::positional_or_keyword, {}, {}});
  return SignatureState::ok(s);
}

// A call site of `aiter.x` in `file` at `line`, from function f, with `positional` arguments.
inline CallSite site(const std::string& file, int line, int positional,
                     std::vector<std::string> guards = {}) {
  CallSite s;
  s.file = file;
  s.line = line;
  s.caller = "f";
  s.positional = positional;
  s.guards = std::move(guards);
  s.function_path = "aiter.x";
  s.import_statement = "import aiter";
  return s;
}

}  // namespace aaw::test
