#include "core/compare/gate.hpp"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <set>

#include "core/compare/render.hpp"

namespace aaw {
namespace {

Json waiver_json(const Waiver& w, std::int64_t now) {
  Json out = {{"fingerprint", w.fingerprint},
              {"reason", w.reason},
              {"accepted_by", w.accepted_by},
              {"expires", w.expires ? Json(*w.expires) : Json(nullptr)},
              {"expired", w.expired_at(now)}};
  if (!w.function.empty()) out["function"] = w.function;
  if (!w.kind.empty()) out["kind"] = w.kind;
  return out;
}

const Waiver* waiver_for(const WaiverFile& file, const std::string& fingerprint) {
  for (const Waiver& w : file.waivers)
    if (w.fingerprint == fingerprint) return &w;
  return nullptr;
}

struct Tally {
  std::size_t changed = 0, changes = 0, deny = 0, warn = 0, allow = 0, accepted = 0, failing = 0;
};

// Adds the gate's fields to one change object of comparison_to_json.
void judge_change(Json& out, const FunctionComparison& f, const Change& change, const GateOptions& options,
                  std::set<std::string>& matched, Tally& tally) {
  const std::string fingerprint = change_fingerprint(f.function, change);
  const Level level = options.levels.level_of(change);
  const Waiver* waiver = waiver_for(options.waivers, fingerprint);
  const bool accepted = waiver != nullptr && !waiver->expired_at(options.now);
  if (waiver != nullptr) matched.insert(fingerprint);
  out["fingerprint"] = fingerprint;
  out["level"] = to_string(level);
  out["accepted"] = accepted;
  out["waiver"] = waiver != nullptr ? waiver_json(*waiver, options.now) : Json(nullptr);
  ++tally.changes;
  tally.accepted += accepted ? 1 : 0;
  (level == Level::deny ? tally.deny : level == Level::warn ? tally.warn : tally.allow)++;
  tally.failing += level == Level::deny && !accepted ? 1 : 0;
}

Json waivers_section(const GateOptions& options, const std::set<std::string>& matched) {
  Json unused = Json::array(), expired = Json::array();
  for (const Waiver& w : options.waivers.waivers) {
    if (w.expired_at(options.now)) expired.push_back(waiver_json(w, options.now));
    if (!matched.contains(w.fingerprint)) unused.push_back(waiver_json(w, options.now));
  }
  const auto& path = options.waivers.path;
  return {{"file", path.empty() ? Json(nullptr) : Json(path.string())},
          {"count", options.waivers.waivers.size()},
          {"unused", unused},
          {"expired", expired}};
}

int exit_code_of(const Tally& tally, const Json& waivers, const Comparison& c, const GateOptions& options) {
  if (!options.errors.empty()) return 2;
  if (tally.failing > 0 || (options.strict_waivers && !waivers["unused"].empty())) return 1;
  return c.failures().empty() ? 0 : 2;
}

}  // namespace

Json compare_document(const Comparison& c, const GateOptions& options) {
  Json functions = comparison_to_json(c)["functions"];
  std::set<std::string> matched;
  Tally tally;
  for (std::size_t i = 0; i < c.functions.size(); ++i) {
    const FunctionComparison& f = c.functions[i];
    tally.changed += f.changes.empty() ? 0 : 1;
    for (std::size_t k = 0; k < f.changes.size(); ++k)
      judge_change(functions[i]["changes"][k], f, f.changes[k], options, matched, tally);
  }
  Json waivers = waivers_section(options, matched);
  Json summary = {{"functions", c.functions.size()},
                  {"changed", tally.changed},
                  {"changes", tally.changes},
                  {"deny", tally.deny},
                  {"warn", tally.warn},
                  {"allow", tally.allow},
                  {"accepted", tally.accepted},
                  {"failing", tally.failing},
                  {"failures", c.failures().size()}};
  Json range = {{"old", options.range.old_revision.empty() ? c.old_commit.hex : options.range.old_revision},
                {"new", options.range.new_revision.empty() ? c.new_commit.hex : options.range.new_revision},
                {"merge_base", options.range.merge_base}};
  int exit_code = exit_code_of(tally, waivers, c, options);
  return {{"schema", k_compare_schema}, {"old", c.old_commit.hex},
          {"new", c.new_commit.hex},    {"range", range},
          {"functions", functions},     {"summary", summary},
          {"waivers", waivers},         {"errors", options.errors},
          {"exit_code", exit_code}};
}

void log_gate(Logger& log, const Json& doc) {
  for (const Json& f : doc["functions"])
    for (const Json& change : f["changes"])
      if (change["accepted"].get<bool>())
        log.info("Accepted {} of {} ({}): waived by {}: {}", change["kind"].get<std::string>(),
                 f["function_path"].get<std::string>(), change["fingerprint"].get<std::string>(),
                 change["waiver"]["accepted_by"].get<std::string>(),
                 change["waiver"]["reason"].get<std::string>());
  const Json& waivers = doc["waivers"];
  for (const Json& w : waivers["expired"])
    log.warn("Waiver {} expired on {} and no longer applies", w["fingerprint"].get<std::string>(),
             w["expires"].get<std::string>());
  const std::string file = waivers["file"].is_string() ? waivers["file"].get<std::string>() : "the waivers";
  for (const Json& w : waivers["unused"])
    log.warn("Waiver {} in {} matches no change between {} and {}", w["fingerprint"].get<std::string>(), file,
             doc["old"].get<std::string>().substr(0, 12), doc["new"].get<std::string>().substr(0, 12));
  const Json& s = doc["summary"];
  log.info("Gate: {} changes ({} deny, {} warn, {} allow), {} accepted by waivers, {} failing",
           s["changes"].get<int>(), s["deny"].get<int>(), s["warn"].get<int>(), s["allow"].get<int>(),
           s["accepted"].get<int>(), s["failing"].get<int>());
}

Json suggest_waivers(const Comparison& c, const Json& doc) {
  Json entries = Json::array();
  for (std::size_t i = 0; i < c.functions.size(); ++i)
    for (std::size_t k = 0; k < c.functions[i].changes.size(); ++k)
      if (!doc["functions"][i]["changes"][k]["accepted"].get<bool>())
        entries.push_back(suggested_waiver(c.functions[i].function, c.functions[i].changes[k]));
  return {{"waivers", entries}};
}

}  // namespace aaw
