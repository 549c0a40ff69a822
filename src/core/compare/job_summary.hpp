// The compare document (gate.hpp) as a Markdown job summary, for $GITHUB_STEP_SUMMARY or a sticky
// PR comment: the verdict, one table row per change (status, level, severity, function, change,
// old and new signature, the consumer's call sites it breaks), then the accepted changes with their
// reasons, expired and unused waivers, and how to waive what fails.
#pragma once

#include <string>

#include "core/model/signature.hpp"  // Json

namespace aaw {

std::string render_job_summary(const Json& document);

// Text as a Markdown table cell in a code span: '|' escaped, line breaks as spaces.
std::string markdown_code_cell(const std::string& text);

}  // namespace aaw
