#include "core/compare/github_annotations.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/compare/gate.hpp"

namespace aaw {
namespace {

struct Annotation {
  std::string command;  // error, warning, notice
  std::string properties;
  std::string message;
};

std::string escape(const std::string& text, bool property) {
  std::string out;
  for (char c : text) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else if (property && c == ':')
      out += "%3A";
    else if (property && c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

std::string command_of(const Json& change) {
  if (change["accepted"].get<bool>() || change["level"] == "allow") return "notice";
  return change["level"] == "deny" ? "error" : "warning";
}

std::string where(const Json& function, const Json& change) {
  const bool removed = change["kind"] == "function_removed";
  const char* key = !removed && function.contains("new_location") ? "new_location" : "old_location";
  if (!function.contains(key)) return "";
  const Json& at = function[key];
  return "file=" + escape_command_property(at["file"]) + ",line=" + std::to_string(at["line"].get<int>()) +
         ",";
}

Annotation change_annotation(const Json& function, const Json& change) {
  std::string title = (change["accepted"].get<bool>() ? "accepted " : "") +
                      change["kind"].get<std::string>() + ": " + function["function_path"].get<std::string>();
  std::string message = change["description"].get<std::string>() + " [" +
                        change["severity"].get<std::string>() + ", " + change["level"].get<std::string>() +
                        "]\nold: " + state_summary(function["old"]) +
                        "\nnew: " + state_summary(function["new"]);
  if (change["accepted"].get<bool>())
    message += "\nwaived by " + change["waiver"]["accepted_by"].get<std::string>() + ": " +
               change["waiver"]["reason"].get<std::string>();
  else
    message += "\nfingerprint " + change["fingerprint"].get<std::string>();
  if (function.contains("consumer_impact"))
    message += "\nconsumer: " + std::to_string(function["consumer_impact"]["broken"].size()) + " of " +
               std::to_string(function["consumer_impact"]["call_sites"].get<int>()) + " call sites break";
  return {command_of(change), where(function, change) + "title=" + escape_command_property(title), message};
}

std::vector<Annotation> annotations(const Json& doc) {
  std::vector<Annotation> out;
  for (const Json& error : doc["errors"])
    out.push_back({"error", "title=aiter-api-watcher", error.get<std::string>()});
  for (const Json& f : doc["functions"])
    for (const Json& change : f["changes"]) out.push_back(change_annotation(f, change));
  const std::string file =
      doc["waivers"]["file"].is_string() ? doc["waivers"]["file"].get<std::string>() : "";
  for (const Json& w : doc["waivers"]["expired"])
    out.push_back({"warning", "title=expired waiver",
                   "waiver " + w["fingerprint"].get<std::string>() + " in " + file + " expired on " +
                       w["expires"].get<std::string>() + " and no longer applies"});
  for (const Json& w : doc["waivers"]["unused"])
    out.push_back({"warning", "title=unused waiver",
                   "waiver " + w["fingerprint"].get<std::string>() + " in " + file +
                       " matches no change of this comparison: remove it"});
  return out;
}

}  // namespace

std::string escape_command_data(const std::string& text) { return escape(text, false); }
std::string escape_command_property(const std::string& text) { return escape(text, true); }

std::string render_github_annotations(const Json& doc) {
  std::vector<Annotation> all = annotations(doc);
  std::map<std::string, std::size_t> total;
  for (const Annotation& a : all) ++total[a.command];
  std::map<std::string, std::size_t> shown;
  std::string out;
  for (const Annotation& a : all) {
    std::size_t& n = shown[a.command];
    const bool over = total[a.command] > k_github_annotation_limit;
    if (over && n == k_github_annotation_limit - 1) {
      out += "::" + a.command + " title=" + std::to_string(total[a.command] - n) +
             " more::" + std::to_string(total[a.command] - n) + " more " + a.command +
             " annotations not shown (GitHub shows 10 per step): see the job summary or the SARIF results\n";
      ++n;
    }
    if (n >= k_github_annotation_limit) continue;
    out += "::" + a.command + " " + a.properties + "::" + escape_command_data(a.message) + "\n";
    ++n;
  }
  return out;
}

}  // namespace aaw
