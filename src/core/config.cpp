#include "aaw/core/config.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "aaw/util/files.hpp"
#include "aaw/util/strings.hpp"

namespace aaw {
namespace {

// Thrown inside this file only, caught by parse_config: config errors abort the whole read, and
// an exception keeps each field's reader to one line.
struct ConfigError {
  std::string message;
};

std::string did_you_mean(std::string_view key, const std::vector<std::string>& known) {
  std::string best = closest_match(key, known);
  return best.empty() ? "" : ", did you mean '" + best + "'?";
}

// Reads the fields of one JSON object, remembering which keys it was asked for, so that what is
// left over can be reported as unknown.
class ObjectReader {
 public:
  ObjectReader(const Json& json, std::string path, std::vector<std::string>& warnings)
      : m_json(json), m_path(std::move(path)), m_warnings(warnings) {
    if (!m_json.is_object()) fail(m_path.empty() ? "the document" : m_path, "expected an object");
  }

  const Json* field(std::string_view key) {
    m_known.emplace_back(key);
    auto it = m_json.find(key);
    return it == m_json.end() ? nullptr : &*it;
  }
  const Json& required(std::string_view key) {
    const Json* value = field(key);
    if (!value) fail(path_of(key), "required key is missing");
    return *value;
  }
  std::string path_of(std::string_view key) const {
    return m_path.empty() ? std::string(key) : m_path + "." + std::string(key);
  }

  void string(std::string_view key, std::string& out) {
    if (const Json* v = field(key)) out = as_string(*v, path_of(key));
  }
  void integer(std::string_view key, int& out, int minimum) {
    if (const Json* v = field(key)) out = as_integer(*v, path_of(key), minimum);
  }
  void boolean(std::string_view key, bool& out) {
    const Json* v = field(key);
    if (!v) return;
    if (!v->is_boolean()) fail(path_of(key), "expected true or false");
    out = v->get<bool>();
  }
  void strings(std::string_view key, std::vector<std::string>& out) {
    if (const Json* v = field(key)) out = as_strings(*v, path_of(key));
  }
  void string_map(std::string_view key, std::map<std::string, std::string>& out) {
    const Json* v = field(key);
    if (!v) return;
    if (!v->is_object()) fail(path_of(key), "expected an object of strings");
    out.clear();
    for (const auto& [name, value] : v->items()) out[name] = as_string(value, path_of(key) + "." + name);
  }
  void choice(std::string_view key, std::string& out, const std::vector<std::string>& allowed) {
    const Json* v = field(key);
    if (!v) return;
    out = as_string(*v, path_of(key));
    if (std::find(allowed.begin(), allowed.end(), out) == allowed.end())
      fail(path_of(key), "expected one of " + join(allowed) + ", got '" + out + "'");
  }
  void object(std::string_view key, const std::function<void(ObjectReader&)>& read) {
    const Json* v = field(key);
    if (!v) return;
    ObjectReader nested(*v, path_of(key), m_warnings);
    read(nested);
    nested.warn_unknown();
  }
  // Keys the original script wrote into its own config; accepted and ignored.
  void ignore(std::string_view key) { m_known.emplace_back(key); }

  void warn_unknown() const {
    for (const auto& [key, value] : m_json.items()) {
      if (std::find(m_known.begin(), m_known.end(), key) != m_known.end()) continue;
      m_warnings.push_back("unknown key '" + path_of(key) + "'" + did_you_mean(key, m_known));
    }
  }

  [[noreturn]] static void fail(const std::string& path, const std::string& message) {
    throw ConfigError{path + ": " + message};
  }
  static std::string as_string(const Json& v, const std::string& path) {
    if (!v.is_string()) fail(path, "expected a string");
    return v.get<std::string>();
  }
  static int as_integer(const Json& v, const std::string& path, int minimum) {
    if (!v.is_number_integer()) fail(path, "expected an integer");
    auto n = v.get<long long>();
    if (n < minimum || n > 1'000'000'000)
      fail(path, "expected an integer from " + std::to_string(minimum) + " to 1000000000");
    return static_cast<int>(n);
  }
  static std::vector<std::string> as_strings(const Json& v, const std::string& path) {
    if (!v.is_array()) fail(path, "expected an array of strings");
    std::vector<std::string> out;
    for (size_t i = 0; i < v.size(); ++i)
      out.push_back(as_string(v[i], path + "[" + std::to_string(i) + "]"));
    return out;
  }

 private:
  const Json& m_json;
  std::string m_path;
  std::vector<std::string>& m_warnings;
  std::vector<std::string> m_known;
};

const std::vector<std::string> k_severities = {"annotation", "compatible", "behavioural", "unknown",
                                               "breaking"};

MonitoredFunction read_function(const Json& json, const std::string& path,
                                std::vector<std::string>& warnings) {
  ObjectReader r(json, path, warnings);
  MonitoredFunction f;
  f.import_statement = ObjectReader::as_string(r.required("import_statement"), r.path_of("import_statement"));
  f.function_path = ObjectReader::as_string(r.required("function_path"), r.path_of("function_path"));
  if (f.import_statement.empty()) ObjectReader::fail(r.path_of("import_statement"), "must not be empty");
  if (f.function_path.empty()) ObjectReader::fail(r.path_of("function_path"), "must not be empty");
  r.ignore("last_signature");  // the original script kept its state here
  r.warn_unknown();
  return f;
}

std::vector<MonitoredFunction> read_functions(ObjectReader& r, std::vector<std::string>& warnings) {
  const Json& list = r.required("functions_to_monitor");
  if (!list.is_array()) ObjectReader::fail("functions_to_monitor", "expected an array of objects");
  if (list.empty()) ObjectReader::fail("functions_to_monitor", "expected at least one function");
  std::vector<MonitoredFunction> out;
  for (size_t i = 0; i < list.size(); ++i) {
    std::string path = "functions_to_monitor[" + std::to_string(i) + "]";
    MonitoredFunction f = read_function(list[i], path, warnings);
    if (std::find(out.begin(), out.end(), f) != out.end())
      warnings.push_back(path + " repeats an earlier function ('" + f.function_path +
                         "'); it is watched once");
    else
      out.push_back(std::move(f));
  }
  return out;
}

void read_build(ObjectReader& r, BuildConfig& b) {
  r.strings("command", b.command);
  if (b.command.empty()) ObjectReader::fail("build.command", "expected at least one word");
  r.string_map("env", b.env);
  r.integer("timeout_seconds", b.timeout_seconds, 1);
  r.boolean("submodules", b.submodules);
  r.strings("paths", b.paths);
  r.boolean("skip_if_unchanged", b.skip_if_unchanged);
}

void read_notify(ObjectReader& r, NotifyConfig& n) {
  r.object("github_issue", [&](ObjectReader& g) {
    g.string("repo", n.github_issue.repo);
    g.strings("labels", n.github_issue.labels);
    g.choice("min_severity", n.github_issue.min_severity, k_severities);
  });
  r.object("webhook", [&](ObjectReader& w) {
    w.string("url", n.webhook.url);
    w.choice("min_severity", n.webhook.min_severity, k_severities);
  });
}

void read_sections(ObjectReader& r, Config& c) {
  r.object("log", [&](ObjectReader& l) {
    l.string("file", c.log.file);
    l.integer("max_size_mb", c.log.max_size_mb, 1);
    l.integer("max_files", c.log.max_files, 1);
    l.choice("level", c.log.level, {"trace", "debug", "info", "warning", "error"});
  });
  r.object("build", [&](ObjectReader& b) { read_build(b, c.build); });
  r.object("sandbox", [&](ObjectReader& s) {
    s.choice("kind", c.sandbox.kind, {"auto", "bwrap", "process"});
    s.boolean("network", c.sandbox.network);
  });
  r.object("runtime", [&](ObjectReader& rt) {
    rt.integer("extract_timeout_seconds", c.runtime.extract_timeout_seconds, 1);
    rt.boolean("bisect", c.runtime.bisect);
  });
  r.object("github", [&](ObjectReader& g) {
    g.string("api_url", c.github.api_url);
    g.string("token_file", c.github.token_file);
    g.choice("poll", c.github.poll, {"auto", "api", "git"});
  });
  r.object("notify", [&](ObjectReader& n) { read_notify(n, c.notify); });
  r.object("consumer", [&](ObjectReader& k) {
    k.string("path", c.consumer.path);
    k.string("repository_url", c.consumer.repository_url);
    k.string("branch", c.consumer.branch);
    k.string("package", c.consumer.package);
  });
}

Config read_config(const Json& json, std::vector<std::string>& warnings) {
  ObjectReader r(json, "", warnings);
  Config c;
  c.repository_url = ObjectReader::as_string(r.required("repository_url"), "repository_url");
  if (c.repository_url.empty()) ObjectReader::fail("repository_url", "must not be empty");
  c.functions_to_monitor = read_functions(r, warnings);
  r.string("branch", c.branch);
  r.integer("check_interval_seconds", c.check_interval_seconds, 1);
  r.string("start_commit", c.start_commit);
  r.string("last_checked_commit", c.last_checked_commit);
  r.strings("commit_list", c.commit_list);
  r.strings("compare_pair", c.compare_pair);
  if (!c.compare_pair.empty() && c.compare_pair.size() != 2)
    ObjectReader::fail("compare_pair",
                       "expected two commits [old, new], got " + std::to_string(c.compare_pair.size()));
  std::string state_dir = c.state_dir.string();
  r.string("state_dir", state_dir);
  c.state_dir = state_dir;
  std::string extractor(to_string(c.extractor));
  r.choice("extractor", extractor, {"static", "runtime", "both"});
  c.extractor = *parse_extractor(extractor);
  read_sections(r, c);
  r.warn_unknown();
  return c;
}

// nlohmann's message: "[json.exception.parse_error.101] parse error at line 3, column 5: syntax
// error while parsing object - ..."; we keep the position and the reason.
std::string describe_parse_error(std::string_view source, const std::string& what) {
  static const std::regex k_position(R"(at line (\d+), column (\d+): (.*))");
  std::smatch m;
  if (std::regex_search(what, m, k_position))
    return std::string(source) + ":" + m[1].str() + ":" + m[2].str() + ": malformed JSON: " + m[3].str();
  return std::string(source) + ": malformed JSON: " + what;
}

}  // namespace

std::string_view to_string(ExtractorKind kind) {
  switch (kind) {
    case ExtractorKind::static_ast:
      return "static";
    case ExtractorKind::runtime:
      return "runtime";
    case ExtractorKind::both:
      return "both";
  }
  return "static";
}

std::optional<ExtractorKind> parse_extractor(std::string_view text) {
  if (text == "static") return ExtractorKind::static_ast;
  if (text == "runtime") return ExtractorKind::runtime;
  if (text == "both") return ExtractorKind::both;
  return std::nullopt;
}

Result<LoadedConfig> parse_config(std::string_view text, std::string_view source) {
  Json json;
  try {
    json = Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return Error(ErrorCode::invalid_input, describe_parse_error(source, e.what()));
  }
  LoadedConfig loaded;
  try {
    loaded.config = read_config(json, loaded.warnings);
  } catch (const ConfigError& e) {
    return Error(ErrorCode::invalid_input, std::string(source) + ": " + e.message);
  }
  for (std::string& w : loaded.warnings) w = std::string(source) + ": " + w;
  return loaded;
}

Result<LoadedConfig> load_config(const std::filesystem::path& path) {
  errno = 0;
  auto text = read_file(path);
  if (!text)
    return Error(ErrorCode::io,
                 "cannot read config '" + path.string() + "': " + std::strerror(errno ? errno : EIO));
  return parse_config(*text, path.string());
}

}  // namespace aaw
