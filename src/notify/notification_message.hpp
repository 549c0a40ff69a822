// What a notification says, made from a FUNCTION_CHANGE (docs/design.md, "The contract"), or from
// the notice of a function a force-push took back (type "history_rewritten": rewrite_notice in
// core/watch/history_rewrite.hpp), which names the abandoned and new heads instead of a commit: the
// GitHub issue's title and Markdown body with its hidden de-duplication marker, and the webhook's
// JSON document with a one-paragraph `text` summary. Pure functions: no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/model/signature.hpp"

namespace aaw {

// "aiter.fmoe at 0123456789ab": a change, named in a log line.
std::string change_label(const Json& change);

// "API Change Detected: <function_path>", as the original tool titled its issues.
std::string issue_title(const Json& change);

// "<!-- aiter-api-watcher:<sha>:<function_path>:<hash> -->" ("rewrite:<old head>" in place of
// <sha> for a rewrite's notice), <hash> being 8 hex digits of a
// stable hash (FNV-1a) of the import statement: the same (commit, function) under two import
// statements gets two issues. Looked up before an issue is created, so no crash or retry ever
// makes a second issue for the same change.
std::string issue_marker(const Json& change);

// The issue body (Markdown): function, import statement, commit (a link when the repository is on
// github.com, else the SHA), author, date, the commit message's subject, the pull request, the
// previous and current signatures in code blocks, and the classified changes with their severity;
// the marker last.
std::string issue_body(const Json& change, std::string_view repository_url);

// One paragraph for people, in plain text that Slack's mrkdwn renders as meant: *bold* severity,
// `code` names and signatures, and &, <, > escaped as Slack requires.
std::string webhook_text(const Json& change, std::string_view repository_url);

// What the webhook receives: the FUNCTION_CHANGE with a `text` field added (a Slack incoming
// webhook shows the text and ignores the rest).
Json webhook_payload(const Json& change, std::string_view repository_url);

}  // namespace aaw
