#include "core/compare/waivers.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "core/model/json_reader.hpp"
#include "util/files.hpp"
#include "util/hash.hpp"
#include "util/time.hpp"

namespace aaw {
namespace {

constexpr std::int64_t k_day_seconds = 24 * 60 * 60;

std::string hex16(std::uint64_t value) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(value));
  return buffer;
}

bool is_fingerprint(const std::string& text) {
  return text.size() == 16 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::string required_text(JsonReader& r, std::string_view key) {
  std::string value = JsonReader::as_string(r.required(key), r.path_of(key));
  if (value.find_first_not_of(" \t\r\n") == std::string::npos)
    JsonReader::fail(r.path_of(key), "must not be empty");
  return value;
}

// "2026-12-31" -> the last second of that day, UTC.
std::int64_t end_of_day(const std::string& date, const std::string& path) {
  auto start = date.size() == 10 ? parse_iso8601(date) : std::nullopt;
  if (!start) JsonReader::fail(path, "expected a date YYYY-MM-DD, got '" + date + "'");
  return *start + k_day_seconds - 1;
}

Waiver read_waiver(JsonReader& r, std::size_t index) {
  Waiver w;
  w.index = index;
  w.fingerprint = required_text(r, "fingerprint");
  if (!is_fingerprint(w.fingerprint))
    JsonReader::fail(r.path_of("fingerprint"),
                     "expected 16 lower-case hex digits, got '" + w.fingerprint + "'");
  w.reason = required_text(r, "reason");
  w.accepted_by = required_text(r, "accepted_by");
  if (const Json* expires = r.field("expires")) {
    w.expires = JsonReader::as_string(*expires, r.path_of("expires"));
    w.expires_after = end_of_day(*w.expires, r.path_of("expires"));
  }
  r.string("function", w.function);
  r.string("kind", w.kind);
  r.ignore("parameter");
  return w;
}

std::vector<Waiver> read_waivers(const Json& json, std::vector<std::string>& warnings) {
  JsonReader top(json, "", warnings);
  const Json& list = top.required("waivers");
  if (!list.is_array()) JsonReader::fail("waivers", "expected an array");
  top.ignore("schema");
  top.warn_unknown();
  std::vector<Waiver> out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    JsonReader r(list[i], "waivers[" + std::to_string(i) + "]", warnings);
    out.push_back(read_waiver(r, i));
    r.warn_unknown();
    if (!seen.insert(out.back().fingerprint).second)
      JsonReader::fail(r.path_of("fingerprint"),
                       "fingerprint '" + out.back().fingerprint + "' is waived twice");
  }
  return out;
}

}  // namespace

std::string change_fingerprint(const MonitoredFunction& function, const Change& change) {
  std::string key = std::string(to_string(change.kind)) + '\n' + function.function_path + '\n' +
                    function.import_statement + '\n' + change.parameter.value_or("");
  if (change.facet == Facet::binding) key += "\nbinding";  // a signature change's fingerprint is unchanged
  return hex16(fnv1a_64(key));
}

Result<WaiverFile> parse_waivers(std::string_view text, const std::filesystem::path& source) {
  const std::string name = "waivers file '" + source.string() + "'";
  Json json;
  try {
    json = Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return Error(ErrorCode::invalid_input, JsonReader::describe_parse_error(name, e.what()));
  }
  std::vector<std::string> warnings;
  try {
    WaiverFile file{source, read_waivers(json, warnings)};
    if (!warnings.empty()) return Error(ErrorCode::invalid_input, name + ": " + warnings.front());
    return file;
  } catch (const JsonReadError& e) {
    return Error(ErrorCode::invalid_input, name + ": " + e.message);
  }
}

Result<WaiverFile> load_waivers(const std::filesystem::path& path) {
  errno = 0;
  auto text = read_file(path);
  if (!text)
    return Error(ErrorCode::io,
                 "cannot read waivers file '" + path.string() + "': " + std::strerror(errno ? errno : EIO));
  return parse_waivers(*text, path);
}

Json suggested_waiver(const MonitoredFunction& function, const Change& change) {
  Json entry = {{"fingerprint", change_fingerprint(function, change)},
                {"function", function.function_path},
                {"kind", to_string(change.kind)}};
  if (change.parameter) entry["parameter"] = *change.parameter;
  entry["reason"] = "";
  entry["accepted_by"] = "";
  return entry;
}

}  // namespace aaw
