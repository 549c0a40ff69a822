#include "core/model/cross_check.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

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

}  // namespace

bool defaults_agree(const std::optional<std::string>& written, const std::optional<std::string>& printed) {
  if (written == printed) return true;
  if (!written || !printed) return false;
  if (names_a_value(*written)) return true;
  auto a = number_of(*written), b = number_of(*printed);
  if (a && b) return *a == *b;
  auto s = string_of(*written), r = string_of(*printed);
  return s && r && *s == *r;
}

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

}  // namespace aaw
