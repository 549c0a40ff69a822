// Whether the monitored functions are there at all: a misspelt function_path, an import_statement
// that binds another name or stray spaces would otherwise be "missing" at every commit, and a
// missing function at both ends of a range is no change, so the mistake would never show.
// check-config and the start-up of every mode look each function up at the commits they are about
// to read and name each one found at none of them, with the closest names ("did you mean").
#pragma once

#include <string>
#include <vector>

#include "core/model/signature.hpp"
#include "core/ports/source_tree.hpp"
#include "util/result.hpp"

namespace aaw {

struct FunctionLookup {
  enum class Verdict {
    found,      // resolves to a definition
    not_found,  // not there: `name` was looked for where `names` are bound
    unknown,    // the static view cannot tell (defined dynamically, a syntax error): detail says why
  };
  Verdict verdict = Verdict::found;
  std::string detail;              // why, for every verdict but found
  std::string name;                // the part of the path that was not found ("" when not known)
  std::vector<std::string> names;  // the names bound where it was looked for

  // The names closest to `name`, best first (at most 3).
  std::vector<std::string> suggestions() const;
};

// The port: looks functions up at a commit without building anything (extract/: the static
// resolver). One lookup per function, in order; an Error when the commit cannot be read.
class FunctionFinder {
 public:
  virtual ~FunctionFinder() = default;
  virtual Result<std::vector<FunctionLookup>> lookup(const ObjectId& commit,
                                                     const std::vector<MonitoredFunction>& functions) = 0;
};

// A commit to look at and how the user named it ("main", "start_commit 7ed90b33").
struct NamedCommit {
  std::string label;
  ObjectId commit;
};

// A monitored function found at none of the commits looked at.
struct UnfoundFunction {
  MonitoredFunction function;
  FunctionLookup lookup;  // at the last commit looked at
  std::string where;      // the commits looked at: "main (0123456789ab) nor at v1.0 (...)"

  // "function 'aiter.fmoee' ('import aiter'): not found at main (0123456789ab): 'fmoee' not found
  // in module 'aiter'; did you mean 'fmoe'?"
  std::string describe() const;
};

// The functions found at none of `commits` (checked in order, each function only until found).
// A function the static view cannot tell about counts as found: only a definite absence is
// reported. Empty when `commits` is empty.
Result<std::vector<UnfoundFunction>> unfound_functions(FunctionFinder& finder,
                                                       const std::vector<NamedCommit>& commits,
                                                       const std::vector<MonitoredFunction>& functions);

// "did you mean 'a', 'b' or 'c'?", or "" for no suggestion.
std::string did_you_mean(const std::vector<std::string>& suggestions);

}  // namespace aaw
