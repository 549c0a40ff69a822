// Reading one JSON object of the config into typed fields, with the JSON path of every bad field
// in the message ("notify.webhook.url: expected a string") and a warning, with a did-you-mean, for
// every key nobody asked for. The config reader and every extension's section reader share it.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/signature.hpp"  // Json

namespace aaw {

// Thrown by JsonReader on the first bad field; parse_config turns it into an invalid_input Error.
struct JsonReadError {
  std::string message;  // "<path>: <why>"
};

class JsonReader {
 public:
  // `path` is the object's JSON path ("" for the document, "notify.webhook"); `warnings` collects
  // "unknown key ..." lines. Throws JsonReadError when `json` is not an object.
  JsonReader(const Json& json, std::string path, std::vector<std::string>& warnings);

  // The value at `key`, nullptr when absent. Marks the key as known.
  const Json* field(std::string_view key);
  // The value at `key`; throws "required key is missing".
  const Json& required(std::string_view key);
  std::string path_of(std::string_view key) const;
  const std::string& path() const { return m_path; }

  // Each overwrites `out` only when the key is present and valid; throws with the path otherwise.
  void string(std::string_view key, std::string& out);
  void integer(std::string_view key, int& out, int minimum);
  void boolean(std::string_view key, bool& out);
  void strings(std::string_view key, std::vector<std::string>& out);
  void string_map(std::string_view key, std::map<std::string, std::string>& out);
  void choice(std::string_view key, std::string& out, const std::vector<std::string>& allowed);
  // Reads the object at `key` with `read`, then warns about its unknown keys.
  void object(std::string_view key, const std::function<void(JsonReader&)>& read);
  // A key that is accepted and ignored (the original script kept state in its config).
  void ignore(std::string_view key);

  // One warning per key of the object that no call above asked for.
  void warn_unknown() const;
  std::vector<std::string>& warnings() { return m_warnings; }

  [[noreturn]] static void fail(const std::string& path, const std::string& message);
  // "SOURCE:3:5: malformed JSON: syntax error while parsing object - ...": nlohmann's parse_error
  // text (`what`) with the position in front and its exception id left out.
  static std::string describe_parse_error(std::string_view source, const std::string& what);
  static std::string as_string(const Json& value, const std::string& path);
  static int as_integer(const Json& value, const std::string& path, int minimum);
  static std::vector<std::string> as_strings(const Json& value, const std::string& path);

 private:
  const Json& m_json;
  std::string m_path;
  std::vector<std::string>& m_warnings;
  std::vector<std::string> m_known;
};

}  // namespace aaw
