// Renderings of a comparison for people and scripts: log lines in the original tool's wording,
// the contract's JSON, and Markdown (for an issue or a PR comment).
#pragma once

#include <string>
#include <vector>

#include "core/compare/compare.hpp"
#include "core/report/log.hpp"

namespace aaw {

// "No API change for F between OLD and NEW", or "API change detected for F between OLD and NEW"
// followed by the old and new signatures and one line per classified change; a warning for each
// function that could not be extracted.
void log_comparison(Logger& log, const Comparison& comparison);
// The same lines from the compare document (gate.hpp), as `compare --format text` prints them.
void log_comparison(Logger& log, const Json& document);

// A comparison back from its JSON (comparison_to_json's, or the compare document): invalid_input
// naming the bad field. Locations are not read back.
Result<Comparison> comparison_from_json(const Json& document);

// Under a change: "  breaks vllm/x.py:12 (f): got an unexpected keyword argument 'layout'" per
// call site the change breaks, or "  consumer: breaks none of the consumer's 5 call sites".
void log_consumer_impact(Logger& log, const ConsumerImpact& impact);
// The same as a Markdown paragraph and table.
std::string markdown_consumer_impact(const ConsumerImpact& impact);

// The comparison part of the compare document (gate.hpp builds the rest on it): {"old", "new",
// "functions": [{..., "old", "new", "changes" (each with its "description"), "consumer_impact"
// (with a consumer, for a changed function it calls), "old_location"/"new_location" (located)}]}.
Json comparison_to_json(const Comparison& comparison);

// The compare document (gate.hpp) as Markdown: a section per function with its old and new
// signature and its changes (an accepted one with its waiver's reason).
std::string render_markdown(const Json& document);
// render_markdown of the comparison's document without levels or waivers.
std::string render_markdown(const Comparison& comparison);

// A function whose state could not be established at a commit, by the name the log uses.
struct ExtractionFailure {
  std::string function_path;
  SignatureState state;
};

// "Could not extract F1, F2 at C: build_failed: ...": one warning per distinct failure of a commit.
// A failed build fails every function alike, and its log tail is worth reading once, not once per
// function.
void log_extraction_failures(Logger& log, const ObjectId& commit,
                             const std::vector<ExtractionFailure>& failures);

}  // namespace aaw
