#include "core/consumer/consumer.hpp"

namespace aaw {
namespace {

Result<std::vector<std::string>> strings_at(const Json& json, const char* key, const std::string& where) {
  std::vector<std::string> out;
  if (!json.contains(key) || json.at(key).is_null()) return out;
  const Json& list = json.at(key);
  if (!list.is_array()) return Error(ErrorCode::invalid_input, where + "." + key + ": expected a list");
  for (const Json& item : list) {
    if (!item.is_string()) return Error(ErrorCode::invalid_input, where + "." + key + ": expected strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::string location_of(const std::string& file, int line, const std::string& caller) {
  std::string out = line > 0 ? file + ":" + std::to_string(line) : file;
  return caller.empty() ? out : out + " (" + caller + ")";
}

}  // namespace

Result<CallSite> call_site_from_json(const Json& json, const std::string& where) {
  try {
    CallSite site;
    site.file = json.at("file").get<std::string>();
    site.line = json.at("line").get<int>();
    site.caller = json.at("caller").get<std::string>();
    site.positional = json.at("positional").get<int>();
    site.star_args = json.at("star_args").get<bool>();
    site.star_kwargs = json.at("star_kwargs").get<bool>();
    site.import_statement = json.at("import_statement").get<std::string>();
    site.function_path = json.at("function_path").get<std::string>();
    if (json.contains("indirect") && json.at("indirect").is_string())
      site.indirect = json.at("indirect").get<std::string>();
    if (json.contains("ambiguous") && json.at("ambiguous").is_string())
      site.ambiguous = json.at("ambiguous").get<std::string>();
    if (json.contains("import_line") && json.at("import_line").is_number_integer())
      site.import_line = json.at("import_line").get<int>();
    site.import_module_level = json.value("import_module_level", false);
    auto keywords = strings_at(json, "keywords", where);
    if (!keywords) return keywords.error();
    site.keywords = std::move(*keywords);
    auto guards = strings_at(json, "guards", where);
    if (!guards) return guards.error();
    site.guards = std::move(*guards);
    return site;
  } catch (const Json::exception& e) {
    return Error(ErrorCode::invalid_input, where + ": " + e.what());
  }
}

Json to_json(const CallSite& site) {
  Json json = {{"file", site.file},
               {"line", site.line},
               {"caller", site.caller},
               {"positional", site.positional},
               {"keywords", site.keywords},
               {"star_args", site.star_args},
               {"star_kwargs", site.star_kwargs},
               {"guards", site.guards},
               {"import_statement", site.import_statement},
               {"function_path", site.function_path}};
  json["indirect"] = site.indirect ? Json(*site.indirect) : Json(nullptr);
  json["ambiguous"] = site.ambiguous ? Json(*site.ambiguous) : Json(nullptr);
  json["import_line"] = site.import_line ? Json(*site.import_line) : Json(nullptr);
  json["import_module_level"] = site.import_module_level;
  return json;
}

std::string location(const CallSite& site) { return location_of(site.file, site.line, site.caller); }

std::string location(const UncheckedSite& site) { return location_of(site.file, site.line, site.caller); }

Json to_json(const UncheckedSite& site) {
  return {{"file", site.file}, {"line", site.line}, {"caller", site.caller}, {"what", site.what}};
}

Result<ConsumerScan> consumer_scan_from_json(const Json& json) {
  if (!json.is_object() || !json.contains("functions") || !json.at("functions").is_array())
    return Error(ErrorCode::invalid_input, "consumer scan: expected an object with 'functions'");
  ConsumerScan scan;
  scan.package = json.value("package", "");
  scan.document = json;
  const Json& functions = json.at("functions");
  for (std::size_t i = 0; i < functions.size(); ++i) {
    const Json& f = functions[i];
    std::string where = "functions[" + std::to_string(i) + "]";
    if (!f.is_object() || !f.contains("call_sites") || !f.at("call_sites").is_array())
      return Error(ErrorCode::invalid_input, where + ": expected an object with 'call_sites'");
    ConsumerFunction function;
    function.function.import_statement = f.value("import_statement", "");
    function.function.function_path = f.value("function_path", "");
    function.target = f.value("target", "");
    for (std::size_t j = 0; j < f.at("call_sites").size(); ++j) {
      auto site =
          call_site_from_json(f.at("call_sites")[j], where + ".call_sites[" + std::to_string(j) + "]");
      if (!site) return site.error();
      function.call_sites.push_back(std::move(*site));
    }
    scan.functions.push_back(std::move(function));
  }
  if (json.contains("dynamic") && json.at("dynamic").is_array()) {
    for (std::size_t i = 0; i < json.at("dynamic").size(); ++i) {
      const Json& d = json.at("dynamic")[i];
      if (!d.is_object()) return Error(ErrorCode::invalid_input, "consumer scan: dynamic: expected objects");
      UncheckedSite unchecked{d.value("file", ""), d.value("line", 0), d.value("caller", ""),
                              d.value("what", ""), d.value("op", ""),  std::nullopt};
      if (d.contains("site")) {
        auto site = call_site_from_json(d.at("site"), "dynamic[" + std::to_string(i) + "].site");
        if (!site) return site.error();
        unchecked.call = std::move(*site);
      }
      scan.unchecked.push_back(std::move(unchecked));
    }
  }
  // A file that names the package but cannot be read or parsed: none of its calls is checked, so
  // it is listed with the places that cannot be checked, never dropped.
  if (json.contains("errors") && json.at("errors").is_array()) {
    for (const Json& e : json.at("errors")) {
      if (!e.is_object()) return Error(ErrorCode::invalid_input, "consumer scan: errors: expected objects");
      scan.unchecked.push_back({e.value("file", ""), e.value("line", 0), "",
                                "no call in this file is checked: " + e.value("error", ""), "", std::nullopt});
    }
  }
  return scan;
}

std::vector<MonitoredFunction> monitored_functions(const ConsumerScan& scan) {
  std::vector<MonitoredFunction> out;
  out.reserve(scan.functions.size());
  for (const ConsumerFunction& f : scan.functions) out.push_back(f.function);
  return out;
}

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::breaks:
      return "breaks";
    case Verdict::guarded:
      return "guarded";
    case Verdict::unknown:
      return "unknown";
    case Verdict::binds:
      return "binds";
  }
  return "unknown";
}

Result<Verdict> verdict_named(const std::string& name) {
  for (Verdict v : {Verdict::breaks, Verdict::guarded, Verdict::unknown, Verdict::binds})
    if (to_string(v) == name) return v;
  return Error(ErrorCode::invalid_input, "unknown verdict '" + name + "'");
}

}  // namespace aaw
