// A Python module's skeleton: its text with the bodies of its functions blanked. Signatures are
// all the static resolver reads of a def, and most of a module's text is in bodies, so parsing the
// skeleton costs a fraction of parsing the module (see aaw_summary.summary_of, which also checks
// that every blanked body parses, so a syntax error in a body is still found).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace aaw {

// The body of one def, as it was before it was blanked.
struct BlankedBody {
  int def_line = 0;    // of the `def` keyword (ast's lineno of the def), 1-based
  int first_line = 0;  // the body's lines: the one after the header's colon ...
  int last_line = 0;   // ... to the last line of its last statement
  bool is_async = false;
  std::string text;  // those lines as they were, line ends included
  // The def's header as it was, from `def` (or `async`) to its colon, when its parameters and
  // return annotation were blanked too (`def f(a, b) -> int:` reads `def f(           ):`, line ends
  // kept): most of what parsing a skeleton builds is in them, and only the functions a resolution
  // asks about need them (aaw_summary parses them from this text, checked once per distinct
  // header). Empty when they were kept: no brackets after the name, a header that is not ASCII,
  // or a backslash continuation right before the colon.
  std::string header;
};

struct PythonSkeleton {
  // False when the text is not split with confidence (unbalanced brackets, an unterminated string,
  // tabs or form feeds in indentation, a lone carriage return, a NUL byte, an f-string's own
  // quote inside one of its replacement fields, an import hook on sys.meta_path whose function
  // bodies the resolver reads): parse the whole text instead.
  bool complete = false;
  // The text line for line: each blanked body is one `pass` line then empty lines, so every kept
  // line keeps its number. Defs whose body is on the header's line, and a module-level
  // __getattr__ (whose body the resolver reads), are kept whole. A lexer cannot tell every
  // module-level def from a method (one nested in an if or try, a name NFKC folds to
  // __getattr__): aaw_summary sees such a body blanked and summarises the whole text instead.
  std::string text;
  std::vector<BlankedBody> bodies;  // in textual order
};

// Never fails: what it cannot split, it reports as incomplete.
PythonSkeleton skeleton_of(std::string_view source);

// What aaw_summary.summary_of takes from read_skeleton: {"complete": true, "text", "bodies":
// [{"def_line", "async", "text"[, "header"]}]}, or {"complete": false, "text": the whole text}
// when there is no skeleton to trust. `text` is moved from.
nlohmann::json skeleton_json(std::string& text);

}  // namespace aaw
