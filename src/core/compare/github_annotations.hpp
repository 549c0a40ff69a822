// The compare document (gate.hpp) as GitHub Actions workflow commands: one annotation per change
// ("::error file=aiter/x.py,line=12,title=...::message"): error for a deny change not waived,
// warning for warn, notice for allow and for an accepted change; a warning per unused or expired
// waiver. GitHub shows at most 10 errors and 10 warnings (and 10 notices) per step: past nine of a
// kind, one last annotation of that kind says how many more there are and where to read them.
#pragma once

#include <string>

#include "core/model/signature.hpp"  // Json

namespace aaw {

// How many annotations of one kind GitHub shows per step.
inline constexpr std::size_t k_github_annotation_limit = 10;

std::string render_github_annotations(const Json& document);

// Workflow command escaping: the message ('%', CR, LF) and a property value (also ':' and ',').
std::string escape_command_data(const std::string& text);
std::string escape_command_property(const std::string& text);

}  // namespace aaw
