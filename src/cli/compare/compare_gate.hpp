// What `compare` adds to a comparison to gate a pull request: the waivers file it uses, the
// compare document, and the formats written from it (stdout, --summary, --suggest-waivers).
#pragma once

#include <filesystem>
#include <string>

#include "core/compare/gate.hpp"
#include "core/model/config.hpp"
#include "core/ports/git_mirror.hpp"

namespace aaw::cli {

// The waivers that apply to a comparison, the first found of: `--waivers FILE`; the config's
// `waivers`; .aiter-api-watcher-waivers.json at the root of the new commit's tree (a pull request
// may carry its own waivers, reviewed with it); .aiter-api-watcher-waivers.json next to the config.
// None of them: no waivers. Throws CommandError naming the file and the entry when one is malformed.
WaiverFile find_waivers(const std::filesystem::path& flag, const Config& config,
                        const std::filesystem::path& config_path, GitMirror& mirror,
                        const ObjectId& new_commit);

// The document in `format` (text writes nothing: the log lines are the output).
std::string render_document(const Json& document, const std::string& format);

// Appends the job summary to `path` (as GitHub's $GITHUB_STEP_SUMMARY expects); throws CommandError
// naming the file when it cannot be written.
void append_job_summary(const std::filesystem::path& path, const Json& document);

// Writes `text` to `path` (replaced whole); throws CommandError naming `what` and the file.
void write_output(const std::filesystem::path& path, const std::string& text, const std::string& what);

}  // namespace aaw::cli
