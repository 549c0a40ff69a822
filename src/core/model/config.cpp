#include "core/model/config.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/model/import_statement.hpp"
#include "core/model/json_reader.hpp"
#include "util/files.hpp"
#include "util/strings.hpp"
#include "util/url.hpp"

namespace aaw {
namespace {

// "a.b.c" with every part an identifier: anything else (stray spaces, a call, a slash) would be
// missing at every commit, and a function missing on both sides of a range never shows a change.
void check_dotted_name(const std::string& name, const std::string& path) {
  if (is_dotted_name(name)) return;
  std::string why = name != trim(name) ? " (stray spaces?)" : "";
  JsonReader::fail(path, "'" + name + "' is not a dotted Python name like 'module.function'" + why);
}

// A statement no commit could run, or a function_path it does not bind, would be reported as a
// function missing at every commit, which a range of commits never shows as a change.
void check_import(const MonitoredFunction& f, const std::string& statement_path,
                  const std::string& path_path) {
  auto statement = read_import_statement(f.import_statement);
  if (!statement)
    JsonReader::fail(statement_path,
                     "'" + f.import_statement +
                         "' is not one import statement Python can run: " + statement.error().message());
  std::string head = f.function_path.substr(0, f.function_path.find('.'));
  if (binds(*statement, head)) return;
  std::string close = closest_match(head, statement->bound);
  JsonReader::fail(path_path, "'" + head + "' is not bound by '" + f.import_statement + "'" +
                                  (close.empty() ? ", which binds " + join(statement->bound)
                                                 : "; did you mean '" + close + "'?"));
}

MonitoredFunction read_function(const Json& json, const std::string& path,
                                std::vector<std::string>& warnings) {
  JsonReader r(json, path, warnings);
  MonitoredFunction f;
  f.import_statement = JsonReader::as_string(r.required("import_statement"), r.path_of("import_statement"));
  f.function_path = JsonReader::as_string(r.required("function_path"), r.path_of("function_path"));
  if (f.import_statement.empty()) JsonReader::fail(r.path_of("import_statement"), "must not be empty");
  if (f.function_path.empty()) JsonReader::fail(r.path_of("function_path"), "must not be empty");
  check_dotted_name(f.function_path, r.path_of("function_path"));
  check_import(f, r.path_of("import_statement"), r.path_of("function_path"));
  r.ignore("last_signature");  // the original script kept its state here
  r.warn_unknown();
  return f;
}

std::vector<MonitoredFunction> read_functions(JsonReader& r, std::vector<std::string>& warnings) {
  const Json& list = r.required("functions_to_monitor");
  if (!list.is_array()) JsonReader::fail("functions_to_monitor", "expected an array of objects");
  if (list.empty()) JsonReader::fail("functions_to_monitor", "expected at least one function");
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

void read_build(JsonReader& r, BuildConfig& b) {
  r.strings("command", b.command);
  if (b.command.empty()) JsonReader::fail("build.command", "expected at least one word");
  r.string_map("env", b.env);
  r.integer("timeout_seconds", b.timeout_seconds, 1);
  r.boolean("submodules", b.submodules);
  r.strings("paths", b.paths);
  r.boolean("skip_if_unchanged", b.skip_if_unchanged);
}

// Each section of `notify` belongs to a channel, which reads and validates it; it is kept as
// written, for the channel to read again when it is made.
void read_notify(JsonReader& r, NotifyConfig& n, const ConfigSchema& schema) {
  for (const SectionSchema& section : schema.notify_sections) {
    const Json* value = r.field(section.name);
    if (!value) continue;
    JsonReader channel(*value, r.path_of(section.name), r.warnings());
    section.read(channel);
    channel.warn_unknown();
    n.sections[section.name] = *value;
  }
}

// The resolver applies the first alias (in key order) whose old name is the module or a package of
// it, then looks the result up again: an alias leading back to a name it applies to would be
// followed forever. Applying more aliases than there are means one was applied twice.
void check_alias_chains(const std::map<std::string, std::string>& aliases) {
  auto applied = [&](const std::string& name) -> std::optional<std::string> {
    for (const auto& [old_name, new_name] : aliases)
      if (name == old_name || name.rfind(old_name + ".", 0) == 0)
        return new_name + name.substr(old_name.size());
    return std::nullopt;
  };
  for (const auto& [start, ignored] : aliases) {
    std::vector<std::string> chain = {start};
    while (auto next = applied(chain.back())) {
      chain.push_back(*next);
      if (chain.size() > aliases.size() + 1)
        JsonReader::fail("static.module_aliases", "'" + start + "' is redirected without end (" +
                                                      join(chain, " -> ") +
                                                      " ...): an alias "
                                                      "leads back to a module it redirects");
    }
  }
}

void read_sections(JsonReader& r, Config& c, const ConfigSchema& schema) {
  r.object("log", [&](JsonReader& l) {
    l.string("file", c.log.file);
    l.integer("max_size_mb", c.log.max_size_mb, 1);
    l.integer("max_files", c.log.max_files, 1);
    l.choice("level", c.log.level, log_levels());
  });
  r.object("static", [&](JsonReader& s) {
    s.strings("source_roots", c.static_extraction.source_roots);
    s.string_map("module_aliases", c.static_extraction.module_aliases);
    check_alias_chains(c.static_extraction.module_aliases);
    s.integer("cache_mb", c.static_extraction.cache_mb, 1);
    s.boolean("parse_ahead", c.static_extraction.parse_ahead);
    s.choice("unverified", c.static_extraction.unverified, {"ok", "unresolved"});
  });
  r.object("build", [&](JsonReader& b) { read_build(b, c.build); });
  r.object("sandbox", [&](JsonReader& s) {
    s.choice("kind", c.sandbox.kind, {"auto", "bwrap", "landlock", "process"});
    s.boolean("network", c.sandbox.network);
    s.boolean("accept_unconfined", c.sandbox.accept_unconfined);
    s.string("run_as", c.sandbox.run_as);
  });
  r.object("runtime", [&](JsonReader& rt) {
    rt.integer("extract_timeout_seconds", c.runtime.extract_timeout_seconds, 1);
    rt.boolean("bisect", c.runtime.bisect);
  });
  r.object("git", [&](JsonReader& g) { g.integer("timeout_seconds", c.git.timeout_seconds, 1); });
  r.object("github", [&](JsonReader& g) {
    g.string("api_url", c.github.api_url);
    g.string("token_file", c.github.token_file);
    g.choice("poll", c.github.poll, {"auto", "api", "git"});
  });
  r.object("notify", [&](JsonReader& n) { read_notify(n, c.notify, schema); });
  r.object("report", [&](JsonReader& rp) {
    std::string dir;
    rp.string("dir", dir);
    c.report.dir = dir;
    rp.string("web_url", c.report.web_url);
    if (!c.report.web_url.empty() && !is_http_url(c.report.web_url))
      JsonReader::fail(
          "report.web_url",
          "expected an http(s) URL like 'https://github.com/ROCm/aiter', got '" + c.report.web_url + "'");
  });
  r.object("consumer", [&](JsonReader& k) {
    k.string("path", c.consumer.path);
    k.string("repository_url", c.consumer.repository_url);
    k.string("branch", c.consumer.branch);
    k.string("package", c.consumer.package);
    check_dotted_name(c.consumer.package, "consumer.package");
    k.string("pinned_commit", c.consumer.pinned_commit);
    k.strings("exclude", c.consumer.exclude);
  });
  if (!c.consumer.path.empty() && !c.consumer.repository_url.empty())
    JsonReader::fail("consumer", "give either path or repository_url, not both");
}

std::string slip_hint(const std::string& kind_name) {
  std::string best = closest_match(kind_name, change_kind_names());
  return best.empty() ? "" : ", did you mean '" + best + "'?";
}

// `levels`: change kind -> deny / warn / allow, each name checked with a did-you-mean.
void read_levels(JsonReader& r, std::map<ChangeKind, Level>& out) {
  std::map<std::string, std::string> levels;
  r.string_map("levels", levels);
  for (const auto& [kind_name, level_name] : levels) {
    const std::string path = r.path_of("levels") + "." + kind_name;
    auto kind = parse_change_kind(kind_name);
    if (!kind) JsonReader::fail(path, "unknown change kind '" + kind_name + "'" + slip_hint(kind_name));
    auto level = parse_level(level_name);
    if (!level) JsonReader::fail(path, "expected deny, warn or allow, got '" + level_name + "'");
    out[*kind] = *level;
  }
}

Config read_config(const Json& json, const ConfigSchema& schema, std::vector<std::string>& warnings) {
  JsonReader r(json, "", warnings);
  Config c;
  c.repository_url = JsonReader::as_string(r.required("repository_url"), "repository_url");
  if (c.repository_url.empty()) JsonReader::fail("repository_url", "must not be empty");
  c.functions_to_monitor = read_functions(r, warnings);
  r.string("branch", c.branch);
  r.integer("check_interval_seconds", c.check_interval_seconds, 1);
  r.string("start_commit", c.start_commit);
  r.string("last_checked_commit", c.last_checked_commit);
  r.strings("commit_list", c.commit_list);
  r.strings("compare_pair", c.compare_pair);
  if (!c.compare_pair.empty() && c.compare_pair.size() != 2)
    JsonReader::fail("compare_pair",
                     "expected two commits [old, new], got " + std::to_string(c.compare_pair.size()));
  std::string state_dir = c.state_dir.string();
  r.string("state_dir", state_dir);
  if (state_dir.empty())
    JsonReader::fail("state_dir", "must not be empty (leave the key out for the default)");
  c.state_dir = state_dir;
  r.choice("extractor", c.extractor, schema.extractors);
  read_sections(r, c, schema);
  read_levels(r, c.gate.levels);
  std::string waivers;
  r.string("waivers", waivers);
  c.gate.waivers = waivers;
  // The JSON Schema an editor validates and completes the file with
  // ("../schemas/config.schema.json"): a string, never read.
  std::string editor_schema;
  r.string("$schema", editor_schema);
  r.warn_unknown();
  return c;
}

namespace fs = std::filesystem;

void anchor(fs::path& path, const fs::path& base) {
  if (!path.empty() && path.is_relative()) path = (base / path).lexically_normal();
}

void anchor(std::string& path, const fs::path& base) {
  fs::path p = path;
  anchor(p, base);
  path = p.string();
}

// A repository given as a path (not a URL, not scp-like host:path) is a path like any other.
void anchor_repository(std::string& url, const fs::path& base) {
  if (url.find("://") != std::string::npos || !url_host(url).empty()) return;
  if (auto colon = url.find(':'); colon != std::string::npos && colon < url.find('/')) return;
  anchor(url, base);
}

}  // namespace

void resolve_relative_paths(Config& config, const fs::path& base) {
  anchor(config.state_dir, base);
  anchor(config.log.file, base);
  anchor(config.github.token_file, base);
  anchor(config.consumer.path, base);
  anchor(config.report.dir, base);
  anchor(config.gate.waivers, base);
  anchor_repository(config.repository_url, base);
  anchor_repository(config.consumer.repository_url, base);
}

Result<LoadedConfig> parse_config(std::string_view text, std::string_view source,
                                  const ConfigSchema& schema) {
  Json json;
  try {
    json = Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string message = JsonReader::describe_parse_error(source, e.what());
    // The usual slip with a JSON config: a comment. Say so, not what the parser expected instead.
    if (Json::accept(text, /*ignore_comments=*/true))
      message = message.substr(0, message.find(": malformed JSON: ")) +
                ": comments are not JSON: remove them (the original script's json.load refuses them too)";
    return Error(ErrorCode::invalid_input, message);
  }
  LoadedConfig loaded;
  try {
    loaded.config = read_config(json, schema, loaded.warnings);
  } catch (const JsonReadError& e) {
    return Error(ErrorCode::invalid_input, std::string(source) + ": " + e.message);
  }
  for (std::string& w : loaded.warnings) w = std::string(source) + ": " + w;
  return loaded;
}

Result<LoadedConfig> load_config(const std::filesystem::path& path, const ConfigSchema& schema) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    return Error(
        ErrorCode::invalid_input,
        "config '" + path.string() + "' is a directory, not a config file: give --config the JSON file");
  // A FIFO or a device would block the read, or never end it.
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec))
    return Error(ErrorCode::invalid_input,
                 "config '" + path.string() + "' is not a regular file: give --config the JSON file");
  errno = 0;
  auto text = read_file(path);
  if (!text)
    return Error(ErrorCode::io,
                 "cannot read config '" + path.string() + "': " + std::strerror(errno ? errno : EIO));
  auto loaded = parse_config(*text, path.string(), schema);
  if (loaded) {
    resolve_relative_paths(loaded->config, fs::absolute(path).parent_path());
    loaded->config.file = fs::absolute(path).lexically_normal();
  }
  return loaded;
}

const std::vector<std::string>& log_levels() {
  static const std::vector<std::string> levels = {"trace", "debug", "info", "warning", "error"};
  return levels;
}

}  // namespace aaw
