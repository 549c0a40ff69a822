#include "core/compare/sarif.hpp"

#include <array>
#include <nlohmann/json.hpp>
#include <string>

#include "core/compare/levels.hpp"
#include "core/model/diff.hpp"

namespace aaw {
namespace {

struct RuleText {
  std::string_view kind;
  std::string_view name;
  std::string_view summary;
  std::string_view help;
};

// One per ChangeKind, in its order.
constexpr std::array<RuleText, 14> k_rules = {{
    {"parameter_removed", "ParameterRemoved", "A parameter was removed",
     "Callers that pass this parameter (by position or keyword) now fail with a TypeError. Keep the "
     "parameter "
     "(deprecated, ignored) or accept the break with a waiver and tell the consumers."},
    {"parameter_added", "ParameterAdded", "A parameter was added",
     "Without a default every existing call now misses an argument (breaking); with a default or as *args / "
     "**kwargs old calls keep working (compatible)."},
    {"parameter_moved", "ParameterMoved", "A positional parameter moved",
     "Callers passing arguments by position now bind them to other parameters, silently or with a TypeError. "
     "Move it back, or make the parameters keyword-only in a release that says so."},
    {"kind_changed", "KindChanged", "A parameter's kind changed",
     "Making a parameter positional-only or keyword-only, or turning it into *args / **kwargs, rejects calls "
     "that used to work; widening to positional-or-keyword is compatible."},
    {"default_changed", "DefaultChanged", "A parameter's default value changed",
     "Calls that omit the argument keep binding but now run with another value: a change of behaviour the "
     "consumer does not see at the call site."},
    {"default_added", "DefaultAdded", "A parameter gained a default",
     "Compatible: every old call still binds."},
    {"default_removed", "DefaultRemoved", "A parameter lost its default",
     "Calls that omitted the argument now fail with a TypeError."},
    {"annotation_changed", "AnnotationChanged", "A parameter's annotation changed",
     "No call breaks at run time, but type checkers and readers of the signature see another type."},
    {"return_annotation_changed", "ReturnAnnotationChanged", "The return annotation changed",
     "No call breaks at run time; what the function promises to return changed."},
    {"function_removed", "FunctionRemoved", "A monitored function is gone",
     "Imports or calls of the function now fail. Keep an alias, or accept the break with a waiver."},
    {"function_added", "FunctionAdded", "A monitored function appeared",
     "The function now resolves where it did not before."},
    {"state_changed", "StateChanged", "The function's state changed",
     "The function became unresolvable or a syntax error appeared (or went away): its signature cannot be "
     "vouched for."},
    {"drift_appeared", "BindingDrift", "A compile_ops stub and its compiled binding disagree",
     "compile_ops forwards every argument unchanged to the compiled function: a keyword the binding names "
     "otherwise, an argument at another position or a default only the stub gives fails or passes the wrong "
     "value at run time, on a GPU. Make the stub say what the binding takes."},
    {"drift_resolved", "BindingDriftResolved", "A compile_ops stub agrees with its binding again",
     "The disagreement between the stub and its compiled binding went away."},
}};

std::string_view sarif_level(const std::string& level) {
  if (level == "deny") return "error";
  return level == "warn" ? "warning" : "note";
}

Json rules() {
  Json out = Json::array();
  for (const RuleText& r : k_rules)
    out.push_back(
        {{"id", r.kind},
         {"name", r.name},
         {"shortDescription", {{"text", r.summary}}},
         {"fullDescription", {{"text", std::string(r.summary) + ". " + std::string(r.help)}}},
         {"help",
          {{"text", r.help}, {"markdown", "**" + std::string(r.summary) + "**\n\n" + std::string(r.help)}}},
         {"properties", {{"tags", {"api", "compatibility"}}}}});
  return out;
}

std::size_t rule_index(const std::string& kind) {
  for (std::size_t i = 0; i < k_rules.size(); ++i)
    if (k_rules[i].kind == kind) return i;
  return 0;
}

Json physical(const Json& location, const std::string& base = "") {
  Json artifact = {{"uri", location["file"]}};
  if (!base.empty()) artifact["uriBaseId"] = base;
  return {{"physicalLocation",
           {{"artifactLocation", artifact},
            {"region", {{"startLine", std::max(1, location["line"].get<int>())}}}}}};
}

// The new commit's def; for a removal (or whenever there is none), the old commit's. A change of
// the compiled binding points at the binding (the m.def or the C entry point).
Json locations(const Json& function, const Json& change) {
  const bool removed = change["kind"] == "function_removed";
  const Json* at = nullptr;
  if (change.value("facet", "") == "binding") {
    for (const char* side : {"new", "old"}) {
      const Json& binding = function[side].value("binding", Json::object());
      if (binding.contains("file") && binding.contains("line")) return Json::array({physical(binding)});
    }
  }
  if (!removed && function.contains("new_location")) at = &function["new_location"];
  if (at == nullptr && function.contains("old_location")) at = &function["old_location"];
  Json out = Json::array();
  if (at != nullptr) out.push_back(physical(*at));
  return out;
}

Json related_call_sites(const Json& function) {
  Json out = Json::array();
  if (!function.contains("consumer_impact")) return out;
  int id = 1;
  for (const Json& site : function["consumer_impact"]["broken"]) {
    Json related = physical(site, "CONSUMER");
    related["id"] = id++;
    related["message"] = {{"text", site["verdict"].get<std::string>() +
                                       " in the consumer: " + site["reason"].get<std::string>()}};
    out.push_back(std::move(related));
  }
  return out;
}

std::string message(const Json& doc, const Json& function, const Json& change) {
  std::string text = function["function_path"].get<std::string>() + ": " +
                     change["description"].get<std::string>() + " [" + change["severity"].get<std::string>() +
                     "]";
  text +=
      "\nold (" + doc["old"].get<std::string>().substr(0, 12) + "): " + function["old"].value("text", "-");
  text +=
      "\nnew (" + doc["new"].get<std::string>().substr(0, 12) + "): " + function["new"].value("text", "-");
  if (change["kind"] == "function_removed") text += "\n(location: where it was defined at the old commit)";
  if (function.contains("consumer_impact"))
    text += "\nconsumer: " + std::to_string(function["consumer_impact"]["broken"].size()) + " of " +
            std::to_string(function["consumer_impact"]["call_sites"].get<int>()) +
            " call sites no longer bind";
  return text;
}

Json result(const Json& doc, const Json& function, const Json& change) {
  const std::string kind = change["kind"];
  Json out = {{"ruleId", kind},
              {"ruleIndex", rule_index(kind)},
              {"level", sarif_level(change["level"])},
              {"message", {{"text", message(doc, function, change)}}},
              {"locations", locations(function, change)},
              {"partialFingerprints", {{"aiterApiWatcher/v1", change["fingerprint"]}}},
              {"properties",
               {{"function_path", function["function_path"]},
                {"import_statement", function["import_statement"]},
                {"severity", change["severity"]},
                {"gate_level", change["level"]}}}};
  Json related = related_call_sites(function);
  if (!related.empty()) out["relatedLocations"] = related;
  if (change["accepted"].get<bool>()) {
    const Json& w = change["waiver"];
    out["suppressions"] = {{{"kind", "external"},
                            {"status", "accepted"},
                            {"justification", w["reason"].get<std::string>() + " (accepted by " +
                                                  w["accepted_by"].get<std::string>() + ")"}}};
  }
  return out;
}

}  // namespace

Json render_sarif(const Json& doc, std::string_view tool_version) {
  Json results = Json::array();
  for (const Json& function : doc["functions"])
    for (const Json& change : function["changes"]) results.push_back(result(doc, function, change));
  Json driver = {{"name", "aiter-api-watcher"},
                 {"version", tool_version},
                 {"informationUri", "https://github.com/ROCm/aiter"},
                 {"rules", rules()}};
  // How the run itself went, so that a code-scanning upload of a failed run never reads as a clean
  // one: an error, or a function that could not be extracted, is a tool notification.
  Json notifications = Json::array();
  for (const Json& error : doc["errors"])
    notifications.push_back({{"level", "error"}, {"message", {{"text", error}}}});
  if (doc["summary"]["failures"].get<int>() > 0)
    notifications.push_back(
        {{"level", "error"},
         {"message",
          {{"text", std::to_string(doc["summary"]["failures"].get<int>()) +
                        " monitored functions could not be extracted at one of the two commits"}}}});
  Json invocation = {{"executionSuccessful", doc["exit_code"] != 2},
                     {"exitCode", doc["exit_code"]},
                     {"toolExecutionNotifications", notifications}};
  Json run = {
      {"tool", {{"driver", driver}}},
      {"invocations", {invocation}},
      {"originalUriBaseIds",
       {{"CONSUMER", {{"description", {{"text", "the consumer's checkout (the config's consumer.path)"}}}}}}},
      {"properties", {{"old", doc["old"]}, {"new", doc["new"]}, {"schema", doc["schema"]}}},
      {"results", results}};
  return {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}, {"runs", {run}}};
}

}  // namespace aaw
