#include "core/ports/definition_locator.hpp"

#include <nlohmann/json.hpp>

namespace aaw {

Json to_json(const SourceLocation& location) { return {{"file", location.file}, {"line", location.line}}; }

}  // namespace aaw
