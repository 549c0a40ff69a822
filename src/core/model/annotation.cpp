#include "core/model/annotation.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>
#include <vector>

#include "util/strings.hpp"

namespace aaw {
namespace {

// typing's aliases of builtins (PEP 585): the same type under either name.
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> k_builtin_aliases{{
    {"List", "list"},
    {"Dict", "dict"},
    {"Set", "set"},
    {"FrozenSet", "frozenset"},
    {"Tuple", "tuple"},
    {"Type", "type"},
}};

// A recursive-descent reader of the type expressions annotations hold; each step returns the
// canonical text of what it read, or nullopt when the text is not one (then nothing is rewritten).
class Reader {
 public:
  explicit Reader(std::string_view text, int depth = 0) : m_text(text), m_depth(depth) {}

  std::optional<std::string> whole() {
    auto out = union_of();
    skip_spaces();
    if (!out || m_at != m_text.size()) return std::nullopt;
    return out;
  }

 private:
  // a | b | ...: members canonical, flattened, without repeats, sorted (order means nothing).
  std::optional<std::string> union_of() {
    std::vector<std::string> members;
    for (;;) {
      auto member = primary();
      if (!member) return std::nullopt;
      add_members(*member, members);
      skip_spaces();
      if (!take('|')) break;
    }
    return join_union(std::move(members));
  }

  std::optional<std::string> primary() {
    skip_spaces();
    if (m_at >= m_text.size()) return std::nullopt;
    const char c = m_text[m_at];
    if (c == '\'' || c == '"') return forward_reference();
    if (c == '[') {  // Callable's parameter list
      ++m_at;
      auto args = arguments(']', false);
      if (!args) return std::nullopt;
      return "[" + join(*args) + "]";
    }
    if (m_text.substr(m_at, 3) == "...") {
      m_at += 3;
      return std::string("...");
    }
    auto name = dotted_name();
    if (!name) return std::nullopt;
    skip_spaces();
    if (!take('[')) return *name;
    name = subscripted_form(*name);
    auto args = arguments(']', *name == "Literal");
    if (!args) return std::nullopt;
    if (*name == "Optional" || *name == "Union") {
      if (*name == "Optional") args->push_back("None");
      std::vector<std::string> members;
      for (const std::string& arg : *args) add_members(arg, members);
      return join_union(std::move(members));
    }
    return *name + "[" + join(*args) + "]";
  }

  // 'X' or "X": a forward reference, read as the expression it holds.
  std::optional<std::string> forward_reference() {
    auto literal = string_literal();
    if (!literal || m_depth > 8) return std::nullopt;
    return Reader(*literal, m_depth + 1).whole();
  }

  std::optional<std::string> string_literal() {
    const char quote = m_text[m_at++];
    const auto end = m_text.find(quote, m_at);
    if (end == std::string_view::npos || m_text.substr(m_at, end - m_at).find('\\') != std::string_view::npos)
      return std::nullopt;
    std::string out(m_text.substr(m_at, end - m_at));
    m_at = end + 1;
    return out;
  }

  // The canonical items of "a, b, c" up to `close`; inside Literal[...] strings and numbers are
  // values, kept as written.
  std::optional<std::vector<std::string>> arguments(char close, bool literal) {
    std::vector<std::string> args;
    for (;;) {
      skip_spaces();
      if (take(close)) break;
      std::optional<std::string> arg = literal ? literal_value() : union_of();
      if (!arg) return std::nullopt;
      args.push_back(*arg);
      skip_spaces();
      if (take(',')) continue;
      if (take(close)) break;
      return std::nullopt;
    }
    return args;
  }

  std::optional<std::string> literal_value() {
    skip_spaces();
    if (m_at < m_text.size() && (m_text[m_at] == '\'' || m_text[m_at] == '"')) {
      auto value = string_literal();
      if (!value) return std::nullopt;
      return "'" + *value + "'";
    }
    const std::size_t start = m_at;
    while (m_at < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_at])) ||
                                    m_text[m_at] == '.' || m_text[m_at] == '-' || m_text[m_at] == '_'))
      ++m_at;
    if (m_at == start) return std::nullopt;
    return std::string(m_text.substr(start, m_at - start));
  }

  std::optional<std::string> dotted_name() {
    const std::size_t start = m_at;
    while (m_at < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_at])) ||
                                    m_text[m_at] == '_' || m_text[m_at] == '.'))
      ++m_at;
    if (m_at == start || std::isdigit(static_cast<unsigned char>(m_text[start]))) return std::nullopt;
    std::string name(m_text.substr(start, m_at - start));
    if (name.rfind("typing.", 0) == 0) name = name.substr(7);
    for (const auto& [alias, builtin] : k_builtin_aliases)
      if (name == alias) name = builtin;
    return name;
  }

  // typing's generic forms under a module alias (`import typing as t`: `t.Optional[X]`,
  // `t.List[int]`) read as typing's: what the alias names is not known here, but a subscripted
  // Optional, Union, List, Dict, Set, FrozenSet, Tuple or Type of another module is not met in
  // real code, and `t.Optional[t.Any]` rewritten `t.Any | None` (click 8.2) is no change.
  static std::string subscripted_form(const std::string& name) {
    const auto dot = name.find('.');
    if (dot == std::string::npos || dot == 0 || name.find('.', dot + 1) != std::string::npos) return name;
    const std::string form = name.substr(dot + 1);
    if (form == "Optional" || form == "Union") return form;
    for (const auto& [alias, builtin] : k_builtin_aliases)
      if (form == alias) return std::string(builtin);
    return name;
  }

  // The members of an already canonical type: those of a union, else itself.
  static void add_members(const std::string& canonical, std::vector<std::string>& members) {
    for (const std::string& m : split_union(canonical))
      if (std::find(members.begin(), members.end(), m) == members.end()) members.push_back(m);
  }

  // "a | b[c | d] | e" -> {"a", "b[c | d]", "e"}: split at the '|' outside brackets.
  static std::vector<std::string> split_union(const std::string& text) {
    std::vector<std::string> out;
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '[') ++depth;
      if (text[i] == ']') --depth;
      if (text[i] == '|' && depth == 0) {
        out.push_back(trimmed(text.substr(start, i - start)));
        start = i + 1;
      }
    }
    out.push_back(trimmed(text.substr(start)));
    return out;
  }

  static std::string join_union(std::vector<std::string> members) {
    std::sort(members.begin(), members.end());
    return join(members, " | ");
  }

  static std::string trimmed(const std::string& s) {
    const auto first = s.find_first_not_of(' ');
    if (first == std::string::npos) return "";
    return s.substr(first, s.find_last_not_of(' ') - first + 1);
  }

  void skip_spaces() {
    while (m_at < m_text.size() && m_text[m_at] == ' ') ++m_at;
  }
  bool take(char c) {
    if (m_at < m_text.size() && m_text[m_at] == c) return ++m_at, true;
    return false;
  }

  std::string_view m_text;
  std::size_t m_at = 0;
  int m_depth;
};

}  // namespace

std::string canonical_annotation(std::string_view text) {
  auto canonical = Reader(text).whole();
  return canonical ? *canonical : std::string(text);
}

bool same_annotation(const std::optional<std::string>& a, const std::optional<std::string>& b) {
  if (!a || !b) return a.has_value() == b.has_value();
  return *a == *b || canonical_annotation(*a) == canonical_annotation(*b);
}

}  // namespace aaw
