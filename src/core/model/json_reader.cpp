#include "core/model/json_reader.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "util/strings.hpp"

namespace aaw {
namespace {

std::string did_you_mean(std::string_view key, const std::vector<std::string>& known) {
  std::string best = closest_match(key, known);
  return best.empty() ? "" : ", did you mean '" + best + "'?";
}

}  // namespace

JsonReader::JsonReader(const Json& json, std::string path, std::vector<std::string>& warnings)
    : m_json(json), m_path(std::move(path)), m_warnings(warnings) {
  if (!m_json.is_object()) fail(m_path.empty() ? "the document" : m_path, "expected an object");
}

const Json* JsonReader::field(std::string_view key) {
  m_known.emplace_back(key);
  auto it = m_json.find(key);
  return it == m_json.end() ? nullptr : &*it;
}

const Json& JsonReader::required(std::string_view key) {
  const Json* value = field(key);
  if (!value) fail(path_of(key), "required key is missing");
  return *value;
}

std::string JsonReader::path_of(std::string_view key) const {
  return m_path.empty() ? std::string(key) : m_path + "." + std::string(key);
}

void JsonReader::string(std::string_view key, std::string& out) {
  if (const Json* v = field(key)) out = as_string(*v, path_of(key));
}

void JsonReader::integer(std::string_view key, int& out, int minimum) {
  if (const Json* v = field(key)) out = as_integer(*v, path_of(key), minimum);
}

void JsonReader::boolean(std::string_view key, bool& out) {
  const Json* v = field(key);
  if (!v) return;
  if (!v->is_boolean()) fail(path_of(key), "expected true or false");
  out = v->get<bool>();
}

void JsonReader::strings(std::string_view key, std::vector<std::string>& out) {
  if (const Json* v = field(key)) out = as_strings(*v, path_of(key));
}

void JsonReader::string_map(std::string_view key, std::map<std::string, std::string>& out) {
  const Json* v = field(key);
  if (!v) return;
  if (!v->is_object()) fail(path_of(key), "expected an object of strings");
  out.clear();
  for (const auto& [name, value] : v->items()) out[name] = as_string(value, path_of(key) + "." + name);
}

void JsonReader::choice(std::string_view key, std::string& out, const std::vector<std::string>& allowed) {
  const Json* v = field(key);
  if (!v) return;
  out = as_string(*v, path_of(key));
  if (std::find(allowed.begin(), allowed.end(), out) == allowed.end())
    fail(path_of(key), "expected one of " + join(allowed) + ", got '" + out + "'");
}

void JsonReader::object(std::string_view key, const std::function<void(JsonReader&)>& read) {
  const Json* v = field(key);
  if (!v) return;
  JsonReader nested(*v, path_of(key), m_warnings);
  read(nested);
  nested.warn_unknown();
}

void JsonReader::ignore(std::string_view key) { m_known.emplace_back(key); }

void JsonReader::warn_unknown() const {
  for (const auto& [key, value] : m_json.items()) {
    if (std::find(m_known.begin(), m_known.end(), key) != m_known.end()) continue;
    m_warnings.push_back("unknown key '" + path_of(key) + "'" + did_you_mean(key, m_known));
  }
}

void JsonReader::fail(const std::string& path, const std::string& message) {
  throw JsonReadError{path + ": " + message};
}

std::string JsonReader::as_string(const Json& v, const std::string& path) {
  if (!v.is_string()) fail(path, "expected a string");
  return v.get<std::string>();
}

int JsonReader::as_integer(const Json& v, const std::string& path, int minimum) {
  if (!v.is_number_integer()) fail(path, "expected an integer");
  auto n = v.get<long long>();
  if (n < minimum || n > 1'000'000'000)
    fail(path, "expected an integer from " + std::to_string(minimum) + " to 1000000000");
  return static_cast<int>(n);
}

std::vector<std::string> JsonReader::as_strings(const Json& v, const std::string& path) {
  if (!v.is_array()) fail(path, "expected an array of strings");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i)
    out.push_back(as_string(v[i], path + "[" + std::to_string(i) + "]"));
  return out;
}

std::string JsonReader::describe_parse_error(std::string_view source, const std::string& what) {
  int line = 0, column = 0, consumed = 0;
  auto at = what.find("at line ");
  if (at != std::string::npos &&
      std::sscanf(what.c_str() + at, "at line %d, column %d: %n", &line, &column, &consumed) == 2 &&
      consumed > 0)
    return std::string(source) + ":" + std::to_string(line) + ":" + std::to_string(column) +
           ": malformed JSON: " + what.substr(at + static_cast<std::size_t>(consumed));
  auto id = what.find("] ");
  return std::string(source) + ": malformed JSON: " +
         (what.rfind("[json.exception.", 0) == 0 && id != std::string::npos ? what.substr(id + 2) : what);
}

}  // namespace aaw
