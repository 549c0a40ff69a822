// The skeleton of a Python module: one pass of a small lexer that knows only what decides where a
// logical line ends (strings, comments, brackets, backslash continuations) and where each logical
// line starts (its indentation and first words), then the bodies of defs blanked line for line.
#include "extract/static/python_skeleton.hpp"

#include <cstddef>
#include <optional>
#include <utility>

namespace aaw {
namespace {

// A logical line: its physical lines, the column of its first token, and what a def header needs.
struct LogicalLine {
  int first_line = 0;
  int last_line = 0;
  std::size_t indent = 0;
  bool is_def = false;
  bool is_async = false;
  bool inline_body = false;  // a def whose body follows the header's colon on the same line
  std::string_view name;     // a def's name
  // Offsets in the text of a def header's first word (`def` or `async`), of the `(` that opens
  // its parameters (npos when something else follows its name), and of the colon that ends it.
  std::size_t start = 0;
  std::size_t parameters = std::string_view::npos;
  std::size_t colon = std::string_view::npos;
};

bool is_word_char(char c) {
  auto u = static_cast<unsigned char>(c);
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || u >= 0x80;
}

bool is_formatted(std::string_view prefix) {
  return prefix.find('f') != std::string_view::npos || prefix.find('F') != std::string_view::npos;
}

bool is_string_prefix(std::string_view word) {
  if (word.empty() || word.size() > 2) return false;
  for (char c : word) {
    switch (c) {
      case 'r':
      case 'R':
      case 'b':
      case 'B':
      case 'u':
      case 'U':
      case 'f':
      case 'F':
        break;
      default:
        return false;
    }
  }
  return true;
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : m_text(text) {}

  // The logical lines, or nullopt when the text is not lexed with confidence.
  std::optional<std::vector<LogicalLine>> lines() {
    std::vector<LogicalLine> out;
    m_line_starts.push_back(0);
    while (m_pos < m_text.size()) {
      auto indent = indentation();
      if (!indent) return std::nullopt;
      if (m_pos >= m_text.size()) break;
      char c = m_text[m_pos];
      if (c == '#') skip_comment();
      if (m_pos >= m_text.size()) break;
      if (m_text[m_pos] == '\n' || m_text[m_pos] == '\r') {  // a blank or comment-only line
        if (!newline()) return std::nullopt;
        continue;
      }
      LogicalLine line;
      line.first_line = line.last_line = m_line;
      line.indent = *indent;
      line.start = m_pos;
      header(line);
      if (!logical_line(line)) return std::nullopt;
      out.push_back(line);
    }
    return out;
  }

  const std::vector<std::size_t>& line_starts() const { return m_line_starts; }

 private:
  // Spaces at the start of a physical line; nullopt for a tab or a form feed (their columns are
  // not worth getting right here).
  std::optional<std::size_t> indentation() {
    std::size_t start = m_pos;
    while (m_pos < m_text.size() && m_text[m_pos] == ' ') ++m_pos;
    if (m_pos < m_text.size() && (m_text[m_pos] == '\t' || m_text[m_pos] == '\f')) return std::nullopt;
    return m_pos - start;
  }

  std::string_view word_at(std::size_t pos) const {
    std::size_t end = pos;
    while (end < m_text.size() && is_word_char(m_text[end])) ++end;
    return m_text.substr(pos, end - pos);
  }

  std::size_t skip_spaces(std::size_t pos) const {
    while (pos < m_text.size() && (m_text[pos] == ' ' || m_text[pos] == '\t')) ++pos;
    return pos;
  }

  // Is this logical line a def header (`def name` or `async def name`)?
  void header(LogicalLine& line) const {
    std::string_view first = word_at(m_pos);
    std::size_t next = skip_spaces(m_pos + first.size());
    if (first == "async") {
      line.is_async = true;
      first = word_at(next);
      next = skip_spaces(next + first.size());
    }
    if (first != "def") return;
    line.is_def = true;
    line.name = word_at(next);
    std::size_t open = skip_spaces(next + line.name.size());
    if (open < m_text.size() && m_text[open] == '(') line.parameters = open;
  }

  // Consumes one line end at m_pos ("\n" or "\r\n"); false at a lone "\r".
  bool newline() {
    if (m_text[m_pos] == '\r') {
      if (m_pos + 1 >= m_text.size() || m_text[m_pos + 1] != '\n') return false;
      ++m_pos;
    }
    ++m_pos;
    ++m_line;
    m_line_starts.push_back(m_pos);
    return true;
  }

  void skip_comment() {
    while (m_pos < m_text.size() && m_text[m_pos] != '\n' && m_text[m_pos] != '\r') ++m_pos;
  }

  // From the first token to the end of the logical line (its newline consumed).
  bool logical_line(LogicalLine& line) {
    int depth = 0;
    bool header_open = line.is_def;
    while (m_pos < m_text.size()) {
      char c = m_text[m_pos];
      if (c == '\n' || c == '\r') {
        line.last_line = m_line;
        if (!newline()) return false;
        if (depth == 0) return true;
      } else if (c == '#') {
        skip_comment();
      } else if (c == '\\') {
        ++m_pos;  // a continuation when a line end follows
        if (m_pos < m_text.size() && (m_text[m_pos] == '\n' || m_text[m_pos] == '\r') && !newline())
          return false;
      } else if (c == '"' || c == '\'') {
        if (!string(c, false)) return false;
      } else if (is_word_char(c)) {
        std::string_view word = word_at(m_pos);
        m_pos += word.size();
        if (m_pos < m_text.size() && (m_text[m_pos] == '"' || m_text[m_pos] == '\'') &&
            is_string_prefix(word) && !string(m_text[m_pos], is_formatted(word)))
          return false;
      } else {
        if (c == '(' || c == '[' || c == '{') ++depth;
        if (c == ')' || c == ']' || c == '}') {
          if (--depth < 0) return false;
        }
        if (c == '\0') return false;
        ++m_pos;
        if (c == ':' && depth == 0 && header_open) {
          header_open = false;
          line.colon = m_pos - 1;
          std::size_t after = skip_spaces(m_pos);
          line.inline_body =
              after < m_text.size() && m_text[after] != '#' && m_text[after] != '\n' && m_text[after] != '\r';
        }
      }
    }
    line.last_line = m_line;  // the last line has no line end
    return depth == 0;
  }

  // Whether the quote at m_pos is the first of three: a triple-quoted string opens or closes.
  bool three_quotes(char quote) const {
    return m_pos + 2 < m_text.size() && m_text[m_pos + 1] == quote && m_text[m_pos + 2] == quote;
  }

  // A string literal whose opening quote is at m_pos; false when it does not end, or when an
  // f-string's replacement field holds the string's own quote (Python 3.12 allows
  // f"{d["key"]}", which Python 3.11's rules read as two strings; in a triple-quoted f-string,
  // when it is three of them).
  bool string(char quote, bool formatted) {
    bool triple = three_quotes(quote);
    m_pos += triple ? 3 : 1;
    int field = 0;  // brackets open in an f-string's replacement field
    while (m_pos < m_text.size()) {
      char c = m_text[m_pos];
      if (field > 0 && c == quote && (!triple || three_quotes(quote))) return false;
      if (field > 0 && (c == '"' || c == '\'')) {  // a string nested in the field
        if (!string(c, false)) return false;
        continue;
      }
      if (formatted && (c == '{' || (field > 0 && (c == '(' || c == '[')))) {
        if (field == 0 && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '{') {
          m_pos += 2;  // an escaped brace
          continue;
        }
        ++field;
        ++m_pos;
        continue;
      }
      if (field > 0 && (c == '}' || c == ')' || c == ']')) {
        --field;
        ++m_pos;
        continue;
      }
      if (c == '\\') {
        ++m_pos;
        if (m_pos >= m_text.size()) return false;
        if (m_text[m_pos] == '\n' || m_text[m_pos] == '\r') {
          if (!newline()) return false;
        } else {
          ++m_pos;
        }
      } else if (c == '\n' || c == '\r') {
        if (!triple || !newline()) return false;
      } else if (c == quote) {
        if (!triple) {
          ++m_pos;
          return true;
        }
        if (three_quotes(quote)) {
          m_pos += 3;
          return true;
        }
        ++m_pos;
      } else if (c == '\0') {
        return false;
      } else {
        ++m_pos;
      }
    }
    return false;
  }

  std::string_view m_text;
  std::size_t m_pos = 0;
  int m_line = 1;
  std::vector<std::size_t> m_line_starts;  // offset of each physical line, by number - 1
};

// A def the skeleton blanks something of: its logical line, the last line of its body (itself for a
// body on the header's line), and whether that body is blanked.
struct DefToBlank {
  std::size_t def = 0;
  std::size_t last = 0;
  bool body = false;
};

// The defs to blank, in textual order: each def's body (not one on its header's line, not a
// module-level __getattr__'s, which the resolver reads whole) with every statement nested in it,
// and the header of each def whose body is on its line; nullopt when a def has no body (a syntax
// error).
std::optional<std::vector<DefToBlank>> defs_to_blank(const std::vector<LogicalLine>& lines) {
  std::vector<DefToBlank> out;
  for (std::size_t i = 0; i < lines.size();) {
    const LogicalLine& def = lines[i];
    bool getattr = def.indent == 0 && def.name == "__getattr__";
    if (!def.is_def || def.inline_body) {
      if (def.is_def && !getattr) out.push_back({i, i, false});
      ++i;
      continue;
    }
    std::size_t end = i + 1;
    while (end < lines.size() && lines[end].indent > def.indent) ++end;
    if (end == i + 1) return std::nullopt;
    if (!getattr) out.push_back({i, end - 1, true});
    i = end;
  }
  return out;
}

// A def's header as it was, from its first word to its colon, when its parameters and return
// annotation can be blanked too: it has parameters in brackets, is ASCII (so the parser's columns
// are ours), and no line ends right before its colon (a backslash continuation).
std::optional<std::string_view> blankable_header(std::string_view source, const LogicalLine& def) {
  if (def.parameters == std::string_view::npos || def.colon == std::string_view::npos ||
      def.colon < def.parameters + 2)
    return std::nullopt;
  if (source[def.colon - 1] == '\n' || source[def.colon - 1] == '\r') return std::nullopt;
  std::string_view header = source.substr(def.start, def.colon + 1 - def.start);
  for (char c : header)
    if (static_cast<unsigned char>(c) >= 0x80) return std::nullopt;
  return header;
}

// Appends the text up to the def's colon with its parameters and return annotation blanked
// (`def f(a, b) -> int:` becomes `def f(           ):`, line ends kept); `copied` moves to the colon.
void append_blanked_header(std::string& out, std::string_view source, const LogicalLine& def,
                           std::size_t& copied) {
  out.append(source.substr(copied, def.parameters + 1 - copied));
  for (std::size_t i = def.parameters + 1; i + 1 < def.colon; ++i)
    out.push_back(source[i] == '\n' || source[i] == '\r' ? source[i] : ' ');
  out.push_back(')');
  copied = def.colon;
}

}  // namespace

PythonSkeleton skeleton_of(std::string_view source) {
  PythonSkeleton skeleton;
  if (source.find("meta_path") != std::string_view::npos) return skeleton;
  Lexer lexer(source);
  auto lines = lexer.lines();
  if (!lines) return skeleton;
  auto defs = defs_to_blank(*lines);
  if (!defs) return skeleton;
  const std::vector<std::size_t>& starts = lexer.line_starts();
  auto start_of = [&](int line) {
    return static_cast<std::size_t>(line - 1) < starts.size() ? starts[line - 1] : source.size();
  };
  std::size_t copied = 0;
  for (const DefToBlank& blank : *defs) {
    const LogicalLine& def = (*lines)[blank.def];
    auto header = blankable_header(source, def);
    if (header) append_blanked_header(skeleton.text, source, def, copied);
    if (!blank.body) {
      if (header) skeleton.headers.push_back({def.first_line, std::string(*header)});
      continue;
    }
    BlankedBody body;
    body.def_line = def.first_line;
    body.is_async = def.is_async;
    body.first_line = def.last_line + 1;
    body.last_line = (*lines)[blank.last].last_line;
    if (header) body.header.assign(*header);
    std::size_t begin = start_of(body.first_line), end = start_of(body.last_line + 1);
    body.text.assign(source.substr(begin, end - begin));
    skeleton.text.append(source.substr(copied, begin - copied));
    skeleton.text.append(def.indent + 4, ' ');
    skeleton.text.append("pass\n");
    skeleton.text.append(static_cast<std::size_t>(body.last_line - body.first_line), '\n');
    copied = end;
    skeleton.bodies.push_back(std::move(body));
  }
  skeleton.text.append(source.substr(copied));
  skeleton.complete = true;
  return skeleton;
}

nlohmann::json skeleton_json(std::string& text) {
  PythonSkeleton skeleton = skeleton_of(text);
  if (!skeleton.complete) return nlohmann::json{{"complete", false}, {"text", std::move(text)}};
  nlohmann::json bodies = nlohmann::json::array();
  for (BlankedBody& body : skeleton.bodies) {
    nlohmann::json entry{
        {"def_line", body.def_line}, {"async", body.is_async}, {"text", std::move(body.text)}};
    if (!body.header.empty()) entry["header"] = std::move(body.header);
    bodies.push_back(std::move(entry));
  }
  nlohmann::json headers = nlohmann::json::array();
  for (BlankedHeader& header : skeleton.headers)
    headers.push_back({{"def_line", header.def_line}, {"header", std::move(header.text)}});
  return nlohmann::json{{"complete", true},
                        {"text", std::move(skeleton.text)},
                        {"bodies", std::move(bodies)},
                        {"headers", std::move(headers)}};
}

}  // namespace aaw
