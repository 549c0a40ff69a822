#include "core/compare/job_summary.hpp"

#include <nlohmann/json.hpp>

#include "core/compare/gate.hpp"

namespace aaw {
namespace {

std::string text(const Json& value) { return value.is_string() ? value.get<std::string>() : ""; }

std::string count(const Json& value) { return std::to_string(value.get<int>()); }

// "1 change", "2 changes".
std::string plural(const Json& n, const std::string& word) {
  return count(n) + " " + word + (n == 1 ? "" : "s");
}

std::string status_cell(const Json& change) {
  if (change["accepted"].get<bool>()) return "✅ accepted";
  if (change["level"] == "deny") return "❌ denied";
  return change["level"] == "warn" ? "⚠️ warning" : "ℹ️ allowed";
}

std::string impact_cell(const Json& function) {
  if (!function.contains("consumer_impact")) return "—";
  const Json& impact = function["consumer_impact"];
  std::string out = std::to_string(impact["broken"].size()) + " of " + count(impact["call_sites"]);
  std::size_t listed = 0;
  for (const Json& site : impact["broken"]) {
    if (listed++ == 3) {
      out += ", …";
      break;
    }
    out += (listed == 1 ? ": " : ", ") +
           markdown_code_cell(text(site["file"]) + ":" + std::to_string(site["line"].get<int>()));
  }
  return out;
}

std::string verdict(const Json& doc) {
  const Json& s = doc["summary"];
  std::string line = doc["exit_code"] == 1   ? "**❌ Failing**"
                     : doc["exit_code"] == 2 ? "**⚠️ Incomplete**"
                                             : "**✅ Passing**";
  line += ": " + plural(s["changes"], "change") + " in " + count(s["changed"]) + " of " +
          count(s["functions"]) + " functions — " + count(s["failing"]) + " denied and not waived, " +
          count(s["warn"]) + " warnings, " + count(s["accepted"]) + " accepted by waivers";
  if (s["failures"].get<int>() > 0) line += ", " + count(s["failures"]) + " functions could not be extracted";
  return line + ".\n";
}

std::string change_table(const Json& doc) {
  std::string out =
      "\n| status | level | severity | function | change | old signature | new signature | consumer call "
      "sites broken |\n"
      "|---|---|---|---|---|---|---|---|\n";
  for (const Json& f : doc["functions"])
    for (const Json& c : f["changes"])
      out += "| " + status_cell(c) + " | " + text(c["level"]) + " | " + text(c["severity"]) + " | " +
             markdown_code_cell(text(f["function_path"])) + " | " +
             markdown_code_cell(text(c["description"])) + " | " +
             markdown_code_cell(state_summary(f["old"])) + " | " +
             markdown_code_cell(state_summary(f["new"])) + " | " + impact_cell(f) + " |\n";
  return out;
}

std::string accepted_list(const Json& doc) {
  std::string out;
  for (const Json& f : doc["functions"])
    for (const Json& c : f["changes"])
      if (c["accepted"].get<bool>())
        out += "- `" + text(c["fingerprint"]) + "` " + text(f["function_path"]) + ": " +
               text(c["description"]) + " — accepted by " + text(c["waiver"]["accepted_by"]) + ": " +
               text(c["waiver"]["reason"]) +
               (c["waiver"]["expires"].is_string() ? " (until " + text(c["waiver"]["expires"]) + ")" : "") +
               "\n";
  return out.empty() ? "" : "\n### Accepted changes\n\n" + out;
}

std::string waiver_list(const Json& doc, const char* key, const std::string& title, const std::string& why) {
  std::string out;
  for (const Json& w : doc["waivers"][key])
    out += "- `" + text(w["fingerprint"]) + "` (" + text(w["accepted_by"]) + ": " + text(w["reason"]) + ")" +
           why + "\n";
  return out.empty() ? "" : "\n### " + title + "\n\n" + out;
}

}  // namespace

std::string markdown_code_cell(const std::string& value) {
  std::string escaped;
  for (char c : value) {
    if (c == '|')
      escaped += "\\|";
    else if (c == '\n' || c == '\r')
      escaped += ' ';
    else
      escaped += c;
  }
  return "`` " + escaped + " ``";
}

std::string render_job_summary(const Json& doc) {
  std::string out = "## aiter-api-watcher: API check `" + text(doc["old"]).substr(0, 12) + "` → `" +
                    text(doc["new"]).substr(0, 12) + "`\n\n";
  if (doc["range"]["merge_base"].get<bool>())
    out += "Changes of `" + text(doc["range"]["new"]) + "` since its merge base with `" +
           text(doc["range"]["old"]) + "`.\n\n";
  out += verdict(doc);
  for (const Json& error : doc["errors"]) out += "\n- ⚠️ Error: " + markdown_code_cell(text(error));
  if (!doc["errors"].empty()) out += "\n";
  if (doc["summary"]["changes"].get<int>() > 0) out += change_table(doc);
  out += accepted_list(doc);
  out += waiver_list(doc, "expired", "Expired waivers", ": expired, no longer applies");
  out += waiver_list(doc, "unused", "Unused waivers", ": matches no change, remove it");
  if (doc["summary"]["failing"].get<int>() > 0)
    out +=
        "\nTo accept a change on purpose, add its entry from `compare --suggest-waivers` to the waivers file "
        "with a reason and your name.\n";
  return out;
}

}  // namespace aaw
