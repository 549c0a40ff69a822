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

// The header of a def whose body is on the header's line (kept), when its parameters were blanked.
struct BlankedHeader {
  int def_line = 0;
  std::string text;  // as BlankedBody::header
};

struct PythonSkeleton {
  // False when the text is not split with confidence (unbalanced brackets, an unterminated string,
  // tabs or form feeds in indentation, a lone carriage return, a NUL byte, an f-string's own
  // quote inside one of its replacement fields, an import hook on sys.meta_path whose function
  // bodies the resolver reads): parse the whole text instead.
  bool complete = false;
  // The text line for line: each blanked body is one `pass` line then empty lines, and each
  // blanked header keeps its line ends, so every kept line keeps its number. A body on its
  // header's line is kept (only the header is blanked), and a module-level __getattr__ (whose
  // body and parameters the resolver reads) is kept whole. A lexer cannot tell every module-level
  // def from a method (one nested in an if or try, a name NFKC folds to __getattr__): aaw_summary
  // sees such a def blanked and summarises the whole text instead.
  std::string text;
  std::vector<BlankedBody> bodies;  // in textual order
  // Headers blanked over a body kept on their line (`def f(a: int) -> int: ...`, as compiled
  // stubs are declared), in textual order.
  std::vector<BlankedHeader> headers;
};

// Never fails: what it cannot split, it reports as incomplete.
PythonSkeleton skeleton_of(std::string_view source);

// What aaw_summary.summary_of takes from read_skeleton: {"complete": true, "text", "bodies":
// [{"def_line", "async", "text"[, "header"]}], "headers": [{"def_line", "header"}]}, or
// {"complete": false, "text": the whole text} when there is no skeleton to trust. `text` is moved
// from.
nlohmann::json skeleton_json(std::string& text);

}  // namespace aaw
