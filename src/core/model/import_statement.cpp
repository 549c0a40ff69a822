#include "core/model/import_statement.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "util/strings.hpp"

namespace aaw {
namespace {

constexpr std::array<std::string_view, 35> k_python_keywords = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

bool identifier_byte(char c, bool first) {
  auto byte = static_cast<unsigned char>(c);
  // Non-ASCII bytes: Python identifiers may be any Unicode letter; the resolver has the last word.
  return std::isalpha(byte) || c == '_' || byte >= 0x80 || (!first && std::isdigit(byte));
}

// The statement as tokens: names, and the punctuation an import statement may hold. Newlines
// and backslash continuations count only where Python would let them join lines.
class StatementTokens {
 public:
  explicit StatementTokens(std::string_view text) : m_text(text) {}

  // The next token ("" at the end), without taking it.
  std::string_view peek() {
    skip_blanks();
    if (m_at >= m_text.size()) return {};
    if (!identifier_byte(m_text[m_at], true)) return m_text.substr(m_at, 1);
    std::size_t end = m_at + 1;
    while (end < m_text.size() && identifier_byte(m_text[end], false)) ++end;
    return m_text.substr(m_at, end - m_at);
  }
  std::string_view take() {
    std::string_view token = peek();
    m_at += token.size();
    return token;
  }
  bool take_if(std::string_view token) {
    if (peek() != token) return false;
    take();
    return true;
  }
  void open() { ++m_parens; }
  void close() { --m_parens; }

 private:
  void skip_blanks() {
    while (m_at < m_text.size()) {
      char c = m_text[m_at];
      if (c == ' ' || c == '\t' || c == '\f' || (m_parens > 0 && (c == '\n' || c == '\r'))) {
        ++m_at;
      } else if (c == '\\' && m_text.substr(m_at + 1, 1) == "\n") {
        m_at += 2;
      } else if (c == '#') {
        while (m_at < m_text.size() && m_text[m_at] != '\n') ++m_at;
      } else if ((c == '\n' || c == '\r') &&
                 m_text.find_first_not_of(" \t\f\r\n", m_at) == std::string_view::npos) {
        m_at = m_text.size();
      } else {
        return;
      }
    }
  }

  std::string_view m_text;
  std::size_t m_at = 0;
  int m_parens = 0;
};

Error invalid_statement(const std::string& why) { return Error{ErrorCode::invalid_input, why}; }

std::string shown_token(std::string_view token) {
  if (token.empty()) return "the end";
  if (token == "\n" || token == "\r") return "a line break";
  return "'" + std::string(token) + "'";
}

Result<std::string> read_name(StatementTokens& in, std::string_view after) {
  std::string_view token = in.peek();
  if (token.empty() || !identifier_byte(token.front(), true))
    return invalid_statement("a name was expected after " + std::string(after) + ", not " +
                             shown_token(token));
  if (std::find(k_python_keywords.begin(), k_python_keywords.end(), token) != k_python_keywords.end())
    return invalid_statement("'" + std::string(token) + "' is a Python keyword, not a name");
  return std::string(in.take());
}

Result<std::string> read_dotted_name(StatementTokens& in, std::string_view after) {
  auto first = read_name(in, after);
  if (!first) return first;
  std::string out = *first;
  while (in.take_if(".")) {
    auto next = read_name(in, "'.'");
    if (!next) return next;
    out += "." + *next;
  }
  return out;
}

// `NAME [as NAME]`, the name bound added to `bound`.
Result<std::string> read_alias(StatementTokens& in, bool dotted, std::string_view after,
                               std::vector<std::string>& bound) {
  auto target = dotted ? read_dotted_name(in, after) : read_name(in, after);
  if (!target) return target;
  if (in.take_if("as")) {
    auto as = read_name(in, "'as'");
    if (!as) return as;
    bound.push_back(*as);
  } else {
    bound.push_back(target->substr(0, target->find('.')));
  }
  return target;
}

Result<ImportStatement> read_plain_import(StatementTokens& in) {
  ImportStatement out;
  std::string_view after = "'import'";
  do {
    auto target = read_alias(in, true, after, out.bound);
    if (!target) return target.error();
    after = "','";
  } while (in.take_if(","));
  return out;
}

Result<ImportStatement> read_from_import(StatementTokens& in) {
  if (in.peek() == ".")
    return invalid_statement(
        "a relative import has no package to resolve against: name the module from its "
        "top-level package");
  auto module = read_dotted_name(in, "'from'");
  if (!module) return module.error();
  if (!in.take_if("import"))
    return invalid_statement("'import' was expected after the module name, not " + shown_token(in.peek()));
  ImportStatement out;
  if (in.take_if("*")) {
    out.star = true;
    return out;
  }
  bool bracketed = in.take_if("(");
  if (bracketed) in.open();
  std::string_view after = bracketed ? "'('" : "'import'";
  do {
    if (bracketed && !out.bound.empty() && in.peek() == ")") break;  // a trailing comma
    auto target = read_alias(in, false, after, out.bound);
    if (!target) return target.error();
    after = "','";
  } while (in.take_if(","));
  if (bracketed) {
    if (!in.take_if(")")) return invalid_statement("')' was expected, not " + shown_token(in.peek()));
    in.close();
  }
  return out;
}

}  // namespace

Result<ImportStatement> read_import_statement(std::string_view statement) {
  const std::string text = trim(statement);  // as the resolver reads it
  StatementTokens in(text);
  std::string_view keyword = in.take();
  Result<ImportStatement> read =
      keyword == "import" ? read_plain_import(in)
      : keyword == "from"
          ? read_from_import(in)
          : invalid_statement("it must start with 'import' or 'from', not " + shown_token(keyword));
  if (!read) return read;
  std::string_view rest = in.peek();
  if (rest == ";" || rest == "\n" || rest == "\r")
    return invalid_statement(
        "it holds more than one statement: watch one import per function (only brackets may span "
        "lines)");
  if (!rest.empty()) return invalid_statement("unexpected " + shown_token(rest) + " after the statement");
  return read;
}

bool is_dotted_name(std::string_view name) {
  std::size_t start = 0;
  for (std::size_t dot = 0; dot != std::string_view::npos; start = dot + 1) {
    dot = name.find('.', start);
    std::string_view part = name.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (part.empty() || !identifier_byte(part.front(), true) ||
        !std::all_of(part.begin(), part.end(), [](char c) { return identifier_byte(c, false); }))
      return false;
  }
  return true;
}

bool binds(const ImportStatement& statement, std::string_view name) {
  return statement.star ||
         std::find(statement.bound.begin(), statement.bound.end(), name) != statement.bound.end();
}

}  // namespace aaw
