// The report (core/report/report.hpp) as one static, self-contained HTML page: styles and the small
// severity filter script are inline and nothing is fetched, so the page opens from disk, from a
// mail attachment or behind any web server, and works without JavaScript (the filter aside).
//
// Per function: its latest signature, a strip of its timeline, then each entry with its severity,
// date, commit (a link on GitHub), pull request, author and subject, the old and new signatures
// side by side with the parameters a change touches marked, the classified changes, and the
// entry's detail tables.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "core/report/report.hpp"
#include "util/result.hpp"

namespace aaw {

// The page. All text from the store (signatures, subjects, authors, details) is escaped.
std::string render_html_report(const Report& report);

// The file name the page is written to inside the report directory.
inline constexpr std::string_view k_report_file = "index.html";

// Writes the page to DIR/index.html atomically (a reader never sees half a page), creating DIR
// when missing. The file's path, or io naming the directory and the cause.
Result<std::filesystem::path> write_html_report(const Report& report, const std::filesystem::path& dir);

// `text` with &, <, >, " and ' replaced by entities: safe in HTML text and quoted attributes.
std::string html_escape(std::string_view text);

}  // namespace aaw
