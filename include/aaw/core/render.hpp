// Renderings of a comparison for people and scripts: log lines in the original tool's wording,
// the contract's JSON, and Markdown (for an issue or a PR comment).
#pragma once

#include <string>

#include "aaw/core/compare.hpp"
#include "aaw/core/log.hpp"

namespace aaw {

// "No API change for F between OLD and NEW", or "API change detected for F between OLD and NEW"
// followed by the old and new signatures and one line per classified change; a warning for each
// function that could not be extracted.
void log_comparison(Logger& log, const Comparison& comparison);

// The contract's compare JSON: {"old", "new", "functions": [{..., "old", "new", "changes"}]}.
Json comparison_to_json(const Comparison& comparison);

std::string render_markdown(const Comparison& comparison);

}  // namespace aaw
