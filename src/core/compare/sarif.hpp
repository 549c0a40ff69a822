// The compare document (gate.hpp) as SARIF 2.1.0, the format GitHub code scanning takes: one rule
// per change kind with its help text, one result per change at the function's def line in the new
// commit (the old commit's for a removal), its level from the change's level (deny: error, warn:
// warning, allow: note), partialFingerprints from the change's fingerprint (kind, function,
// import, parameter), a waived change as a result with an accepted suppression, and the consumer's
// call sites the change breaks as relatedLocations under the uriBaseId CONSUMER.
#pragma once

#include <string_view>

#include "core/model/signature.hpp"  // Json

namespace aaw {

// `tool_version`: the watcher's version, shown as the driver's.
Json render_sarif(const Json& document, std::string_view tool_version);

}  // namespace aaw
