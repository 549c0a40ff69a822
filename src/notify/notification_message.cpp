#include "notify/notification_message.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/consumer/consumer_impact.hpp"
#include "core/model/diff.hpp"
#include "core/ports/github_client.hpp"
#include "core/ports/state_store.hpp"
#include "util/hash.hpp"
#include "util/url.hpp"

namespace aaw {
namespace {

// A string field of the FUNCTION_CHANGE; empty when absent or not a string (a stored change from
// an older version may lack one: the message says less rather than failing).
std::string field(const Json& change, const char* name) {
  auto found = change.find(name);
  return found != change.end() && found->is_string() ? found->get<std::string>() : std::string();
}

// The summary of the change's "old" or "new" STATE; "none" when absent (an initial signature).
std::string side_summary(const Json& change, const char* side) {
  auto found = change.find(side);
  return found == change.end() || found->is_null() ? "none" : state_summary(*found);
}

// "breaking: parameter 'b' removed" per CHANGE object.
std::vector<std::string> change_lines(const Json& change) {
  std::vector<std::string> lines;
  auto found = change.find("changes");
  if (found == change.end() || !found->is_array()) return lines;
  for (const Json& item : *found) {
    auto parsed = change_from_json(item);
    lines.push_back(parsed ? parsed->describe() : item.dump());
  }
  return lines;
}

// What the change breaks in the consumer, when the change carries it: the summary, then one
// "breaks file:line (caller): reason" per call site.
std::optional<ConsumerImpact> impact_of(const Json& change) {
  auto found = change.find("consumer_impact");
  if (found == change.end() || found->is_null()) return std::nullopt;
  auto impact = consumer_impact_from_json(*found);
  return impact ? std::optional<ConsumerImpact>(std::move(*impact)) : std::nullopt;
}

std::size_t longest_run(std::string_view text, char c) {
  std::size_t longest = 0, run = 0;
  for (char x : text) {
    run = x == c ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

// Inline code that survives backticks in the text (CommonMark: a longer fence, padded).
std::string inline_code(const std::string& text) {
  std::size_t run = longest_run(text, '`');
  if (run == 0) return "`" + text + "`";
  std::string fence(run + 1, '`');
  return fence + " " + text + " " + fence;
}

std::string code_block(const std::string& text, std::string_view language) {
  std::string fence(std::max<std::size_t>(3, longest_run(text, '`') + 1), '`');
  return fence + std::string(language) + "\n" + text + "\n" + fence + "\n";
}

// A commit as a Markdown link when it has a web page, else its SHA.
std::string sha_reference(const std::string& sha, std::string_view repository_url) {
  auto url = commit_url(repository_url, sha);
  return url ? "[" + sha.substr(0, 12) + "](" + *url + ")" : inline_code(sha);
}

std::string commit_reference(const Json& change, std::string_view repository_url) {
  return sha_reference(field(change, "commit"), repository_url);
}

std::string slack_escaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

// A sentence ends with one period, whatever the subject ends with.
std::string sentence(std::string text) {
  while (!text.empty() && (text.back() == '.' || text.back() == ' ')) text.pop_back();
  return text + ".";
}

std::string abandoned_commits(const Json& notice) {
  auto found = notice.find("abandoned_commits");
  if (found == notice.end() || !found->is_number_integer() || found->get<std::int64_t>() < 0) return "the";
  return std::to_string(found->get<std::int64_t>());
}

// "### Changes" and its list: one "- **severity**: what" per change.
std::string changes_section(const Json& change) {
  std::string out = "### Changes\n\n";
  for (const std::string& line : change_lines(change)) {
    auto colon = line.find(": ");
    out += colon == std::string::npos
               ? "- " + line + "\n"
               : "- **" + line.substr(0, colon) + "**: " + line.substr(colon + 2) + "\n";
  }
  return out;
}

std::string impact_section(const Json& change, const std::string& what) {
  auto impact = impact_of(change);
  if (!impact) return {};
  std::string out = "\n### Consumer call sites\n\n" + what + " " + impact->summary() + ".\n";
  if (!impact->listed().empty()) out += "\n";
  for (const BrokenCallSite& b : impact->listed())
    out += "- **" + std::string(to_string(b.binding.verdict)) + "** " + inline_code(location(b.site)) + ": " +
           b.binding.reason + "\n";
  return out;
}

// A force-push took a function back (history_rewrite.hpp): what it was on the abandoned line, what
// it is again at the merge base, and why no commit is named as its cause.
std::string rewrite_body(const Json& notice, std::string_view repository_url) {
  std::string function = field(notice, "function_path");
  std::string severity = field(notice, "severity");
  std::string out = "Upstream history was rewritten (a force-push), and " + inline_code(function) +
                    " went back to an earlier signature" +
                    (severity.empty() ? std::string() : " (**" + severity + "**)") + ".\n\n";
  out += "- **Function:** " + inline_code(function) + "\n";
  out += "- **Import:** " + inline_code(field(notice, "import_statement")) + "\n";
  out += "- **Abandoned head:** " + sha_reference(field(notice, "old_head"), repository_url) +
         " (no longer on the branch)\n";
  out += "- **New head:** " + sha_reference(field(notice, "new_head"), repository_url) + "\n";
  out += "- **Merge base:** " + sha_reference(field(notice, "merge_base"), repository_url) + " (" +
         abandoned_commits(notice) + " commits after it abandoned)\n\n";
  out +=
      "No commit of the branch made this change: the commits that had made the earlier one are gone. "
      "Each new commit is reported on its own, against the merge base.\n\n";
  out += "### Signature on the abandoned line\n\n" + code_block(side_summary(notice, "old"), "python") + "\n";
  out +=
      "### Signature now (at the merge base)\n\n" + code_block(side_summary(notice, "new"), "python") + "\n";
  out += changes_section(notice);
  out += impact_section(notice, "Going back");
  out += "\nReported by aiter-api-watcher.\n\n" + issue_marker(notice) + "\n";
  return out;
}

std::string rewrite_text(const Json& notice, std::string_view repository_url) {
  auto url = commit_url(repository_url, field(notice, "new_head"));
  std::string text =
      "*History rewritten (" + field(notice, "severity") + ")*: `" + field(notice, "function_path") + "` (`" +
      field(notice, "import_statement") + "`) went back to its signature at merge base " +
      field(notice, "merge_base").substr(0, 12) + " when a force-push abandoned " +
      abandoned_commits(notice) + " commits (old head " + field(notice, "old_head").substr(0, 12) +
      ", new head " + (url ? *url : field(notice, "new_head").substr(0, 12)) + ").";
  text += " Was: `" + side_summary(notice, "old") + "`; now: `" + side_summary(notice, "new") + "`.";
  for (const std::string& line : change_lines(notice)) text += " " + sentence(line);
  if (auto impact = impact_of(notice)) text += " Consumer: " + impact->summary() + ".";
  return slack_escaped(text);
}

}  // namespace

std::string change_label(const Json& change) {
  if (is_history_rewrite(change))
    return field(change, "function_path") + " taken back by the rewrite of " +
           field(change, "old_head").substr(0, 12);
  return field(change, "function_path") + " at " + field(change, "commit").substr(0, 12);
}

std::string issue_title(const Json& change) {
  if (is_history_rewrite(change))
    return "API Change Undone by a History Rewrite: " + field(change, "function_path");
  return "API Change Detected: " + field(change, "function_path");
}

std::string issue_marker(const Json& change) {
  // The low 32 bits of FNV-1a/64: markers already in issues must keep matching.
  std::string hash = hex8(static_cast<std::uint32_t>(fnv1a_64(field(change, "import_statement"))));
  // A rewrite is told by the head it abandoned: a commit's own change never has "rewrite:" there.
  std::string where =
      is_history_rewrite(change) ? "rewrite:" + field(change, "old_head") : field(change, "commit");
  return "<!-- aiter-api-watcher:" + where + ":" + field(change, "function_path") + ":" + hash + " -->";
}

std::string issue_body(const Json& change, std::string_view repository_url) {
  if (is_history_rewrite(change)) return rewrite_body(change, repository_url);
  std::string function = field(change, "function_path");
  std::string severity = field(change, "severity");
  std::string pull_request = field(change, "pull_request");
  std::string out = "An API change was detected in " + inline_code(function) +
                    (severity.empty() ? std::string() : " (**" + severity + "**)") + ".\n\n";
  out += "- **Function:** " + inline_code(function) + "\n";
  out += "- **Import:** " + inline_code(field(change, "import_statement")) + "\n";
  out += "- **Commit:** " + commit_reference(change, repository_url) + "\n";
  out += "- **Author:** " + field(change, "author") + "\n";
  out += "- **Date:** " + field(change, "commit_date") + "\n";
  out += "- **Message:** " + field(change, "subject") + "\n";
  out += "- **Pull request:** " + (pull_request.empty() ? std::string("none found") : pull_request) + "\n\n";
  out += "### Previous signature\n\n" + code_block(side_summary(change, "old"), "python") + "\n";
  out += "### Current signature\n\n" + code_block(side_summary(change, "new"), "python") + "\n";
  out += changes_section(change);
  out += impact_section(change, "This change");
  out += "\nReported by aiter-api-watcher.\n\n" + issue_marker(change) + "\n";
  return out;
}

std::string webhook_text(const Json& change, std::string_view repository_url) {
  if (is_history_rewrite(change)) return rewrite_text(change, repository_url);
  std::string sha = field(change, "commit");
  auto url = commit_url(repository_url, sha);
  std::string text = "*API change (" + field(change, "severity") + ")* in `" +
                     field(change, "function_path") + "` (`" + field(change, "import_statement") +
                     "`) at commit " + (url ? *url : sha.substr(0, 12));
  std::string author = field(change, "author");
  if (!author.empty()) text += " by " + author;
  std::string subject = field(change, "subject");
  text += subject.empty() ? std::string(".") : ": " + sentence(subject);
  std::string pull_request = field(change, "pull_request");
  if (!pull_request.empty()) text += " Pull request: " + pull_request + ".";
  text += " Old: `" + side_summary(change, "old") + "`; new: `" + side_summary(change, "new") + "`.";
  for (const std::string& line : change_lines(change)) text += " " + sentence(line);
  if (auto impact = impact_of(change)) {
    text += " Consumer: " + impact->summary() + ".";
    for (const BrokenCallSite& b : impact->listed()) text += " " + sentence(b.describe());
  }
  return slack_escaped(text);
}

Json webhook_payload(const Json& change, std::string_view repository_url) {
  Json payload = change;
  payload["text"] = webhook_text(change, repository_url);
  return payload;
}

}  // namespace aaw
