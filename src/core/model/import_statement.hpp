// A monitored function's import statement, read the way Python reads it. The config is checked
// with it, so that a statement no commit could ever run (`import aiter,`, a relative import, two
// statements) or a function_path it does not bind is refused when the config is read, instead of
// being reported as a function missing at every commit.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace aaw {

struct ImportStatement {
  bool star = false;               // `from m import *`: binds whatever m exports
  std::vector<std::string> bound;  // the names it binds, in order: `import a.b` binds a
};

// One absolute `import ...` or `from ... import ...` statement, optionally followed by a comment.
// The error (invalid_input) says what is wrong, not which statement: the caller names it.
Result<ImportStatement> read_import_statement(std::string_view statement);

// "a.b.c" with every part an identifier (non-ASCII bytes count as letters: the resolver has the
// last word on them); keywords are not checked.
bool is_dotted_name(std::string_view name);

// Whether `name` is bound by the statement (any name is, after a star import).
bool binds(const ImportStatement& statement, std::string_view name);

}  // namespace aaw
