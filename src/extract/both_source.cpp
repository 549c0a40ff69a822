#include "extract/both_source.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "extract/runtime/runtime_source.hpp"
#include "extract/source_registry.hpp"
#include "extract/static/incremental_static_source.hpp"

namespace aaw {
namespace {

std::string quoted(const std::optional<std::string>& text) { return text ? "'" + *text + "'" : "none"; }

// A default as source text that names a value (BLOCK_SIZE, torch.float16, sys.maxsize, object())
// rather than spelling it: what it stands for is what Python printed, and nothing here can tell.
bool names_a_value(const std::string& text) {
  if (text == "True" || text == "False" || text == "None" || text.empty()) return false;
  return std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_';
}

std::optional<double> number_of(const std::string& text) {
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return std::nullopt;
  return value;
}

// The unquoted content of a plain string literal ('x' or "x", no escapes), for comparing spellings.
std::optional<std::string> string_of(const std::string& text) {
  if (text.size() < 2 || (text[0] != '\'' && text[0] != '"') || text.back() != text[0]) return std::nullopt;
  std::string inner = text.substr(1, text.size() - 2);
  if (inner.find_first_of("\\'\"") != std::string::npos) return std::nullopt;
  return inner;
}

// Whether a default written statically and one Python printed can be the same value: the same
// text, the same number or string spelled differently, or a static name (its value unknown here).
bool defaults_agree(const std::optional<std::string>& written, const std::optional<std::string>& printed) {
  if (written == printed) return true;
  if (!written || !printed) return false;
  if (names_a_value(*written)) return true;
  auto a = number_of(*written), b = number_of(*printed);
  if (a && b) return *a == *b;
  auto s = string_of(*written), r = string_of(*printed);
  return s && r && *s == *r;
}

}  // namespace

std::vector<std::string> signature_disagreements(const Signature& static_signature,
                                                 const Signature& runtime_signature) {
  const auto& a = static_signature.parameters;
  const auto& b = runtime_signature.parameters;
  std::vector<std::string> out;
  if (a.size() != b.size())
    out.push_back(std::to_string(a.size()) + " parameters static, " + std::to_string(b.size()) + " runtime");
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    const std::string where = "parameter " + std::to_string(i + 1) + ": ";
    if (a[i].name != b[i].name) {
      out.push_back(where + "'" + a[i].name + "' static, '" + b[i].name + "' runtime");
      continue;  // the rest of this pair compares two different parameters
    }
    if (a[i].kind != b[i].kind)
      out.push_back(where + "'" + a[i].name + "' is " + std::string(to_string(a[i].kind)) + " static, " +
                    std::string(to_string(b[i].kind)) + " runtime");
    if (!defaults_agree(a[i].default_value, b[i].default_value))
      out.push_back(where + "'" + a[i].name + "' defaults to " + quoted(a[i].default_value) + " static, " +
                    quoted(b[i].default_value) + " runtime");
  }
  return out;
}

Result<std::vector<SignatureState>> BothSource::extract(const ObjectId& commit,
                                                        const std::vector<MonitoredFunction>& functions) {
  auto static_states = m_static.extract(commit, functions);
  auto runtime_states = m_runtime.extract(commit, functions);
  if (!runtime_states) return runtime_states;
  if (!static_states) {
    m_log.warn("Static extraction at {} failed, so it cannot cross-check the runtime one: {}", commit.hex,
               static_states.error().message());
    return runtime_states;
  }
  for (std::size_t i = 0; i < functions.size(); ++i) {
    const SignatureState& s = (*static_states)[i];
    const SignatureState& r = (*runtime_states)[i];
    if (s.is_ok() != r.is_ok() && !is_machinery_failure(r.status) && !is_machinery_failure(s.status)) {
      ++m_disagreements;
      m_log.warn(
          "Static and runtime extraction disagree on {} at {}: static {}, runtime {}; recording runtime",
          functions[i].function_path, commit.hex, s.summary(), r.summary());
      continue;
    }
    if (!s.is_ok() || !r.is_ok()) continue;
    auto differences = signature_disagreements(s.signature, r.signature);
    if (differences.empty()) continue;
    ++m_disagreements;
    std::string joined;
    for (const std::string& d : differences) joined += (joined.empty() ? "" : "; ") + d;
    m_log.warn(
        "Static and runtime extraction disagree on {} at {}: {} (static {}, runtime {}); recording runtime",
        functions[i].function_path, commit.hex, joined, s.signature.text(), r.signature.text());
  }
  return runtime_states;
}

std::string BothSource::work_summary() const {
  std::string summary = m_static.work_summary();
  return summary + (summary.empty() ? "" : "; ") +
         fmt::format("static and runtime extraction disagreed on {} function state{} (runtime recorded)",
                     m_disagreements, m_disagreements == 1 ? "" : "s");
}

SourceKind both_source_kind() {
  return {"both",
          "record the runtime states, and warn where static extraction disagrees on names, kinds or defaults",
          [](const Config& config, SourceDeps& deps) -> Result<std::unique_ptr<SignatureSource>> {
            auto static_source = static_source_kind().make(config, deps);
            if (!static_source) return static_source.error();
            auto runtime_source = runtime_source_kind().make(config, deps);
            if (!runtime_source) return runtime_source.error();
            return std::unique_ptr<SignatureSource>(std::make_unique<BothSource>(
                std::move(*static_source), std::move(*runtime_source), deps.log));
          }};
}

}  // namespace aaw
