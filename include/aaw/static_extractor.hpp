// Static extraction: the signatures of the monitored functions at one commit, found by reading
// the package's sources from the commit's tree and parsing them with Python's own `ast` in the
// embedded interpreter (src/python/aaw_static.py). Nothing is built, imported or executed.
// Resolution follows DESIGN.md: import forms, re-exports through star and relative imports,
// aliases, class methods, last binding wins, decorators ignored, cycles cut.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aaw/python_host.hpp"
#include "aaw/result.hpp"
#include "aaw/signature.hpp"
#include "aaw/source_tree.hpp"

namespace aaw {

// A path the resolution of one function looked at, and what it found there (nullopt: nothing).
// When none of these changed between two commits, neither did the function's state.
struct PathProbe {
  std::string path;
  std::optional<ObjectId> blob;    // for a file probe: the blob found there, nullopt if none
  std::optional<bool> directory;   // for a directory probe: whether a directory was there
  bool operator==(const PathProbe&) const = default;
};

struct Extraction {
  SignatureState state;
  std::vector<PathProbe> consulted;
};

class StaticExtractor {
 public:
  explicit StaticExtractor(PythonHost& python) : m_python(python) {}

  // One Extraction per function, in order. A function that cannot be resolved gets a state
  // (missing, unresolved, syntax_error, or extract_failed when the tree cannot be read), never an
  // error: an Error means the Python helper itself failed.
  Result<std::vector<Extraction>> extract(SourceTree& tree,
                                          const std::vector<MonitoredFunction>& functions);

 private:
  PythonHost& m_python;
};

}  // namespace aaw
