// Where a monitored function is defined at a commit: the file and line of its `def` (a class's
// own __init__, or the class, for a constructor). What SARIF results and workflow annotations
// point at. The port; the static resolver implements it (extract/static_definition_locator).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/signature.hpp"
#include "core/ports/source_tree.hpp"
#include "util/result.hpp"

namespace aaw {

struct SourceLocation {
  std::string file;  // relative to the repository's root, '/'-separated
  int line = 0;      // 1-based
  bool operator==(const SourceLocation&) const = default;
};

// {"file", "line"}
Json to_json(const SourceLocation& location);

class DefinitionLocator {
 public:
  virtual ~DefinitionLocator() = default;
  // One location per function, in order; nullopt for a function that resolves to no def there.
  // An Error when the commit cannot be read.
  virtual Result<std::vector<std::optional<SourceLocation>>> locate(
      const ObjectId& commit, const std::vector<MonitoredFunction>& functions) = 0;
};

}  // namespace aaw
