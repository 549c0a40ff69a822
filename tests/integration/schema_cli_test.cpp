// The JSON Schemas of schemas/ held to what the built binary reads and writes, with
// scripts/validate_json.py (python3-jsonschema, no network):
// - the config schema against the config reader: every shipped config (config/**/*.json) validates
//   and reads without a warning; a config with every key of the schema is accepted by
//   check-config; a wrong type at any key, and a list of bad values, are refused by both; every key
//   the reader asks for by name is in the schema, and the extractor and notify channel names are
//   the registries'. No command dumps the reader's keys, so the last check reads the reader's
//   sources (src/core/model/config.cpp, src/notify/, src/extract/) for the keys they ask for.
// - the output schemas against the outputs of a provider repository replayed with a consumer (the
//   synthetic one, plus a file that names classes, constants and a dynamic import): history, show,
//   status, discover, check, check --since-pin, compare, --suggest-waivers and every line of
//   events.jsonl. The new schemas are strict: a document without any of its top-level keys, or with
//   a key added to any of its objects, must fail, so that a drift of the output fails here.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "extract/source_registry.hpp"
#include "notify/channel_registry.hpp"
#include "support/git_fixture.hpp"
#include "support/process.hpp"
#include "support/synthetic_consumer.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"

namespace aaw::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

const fs::path k_source_dir = AAW_SOURCE_DIR;

Json read_json(const fs::path& path) { return Json::parse(read_text(path)); }

Json config_schema() { return read_json(k_source_dir / "schemas" / "config.schema.json"); }

// Runs scripts/validate_json.py with `schema` (a file of schemas/) on every document at once: one
// entry per document, "" when it is valid, else its errors. Documents are written under `dir`.
std::vector<std::string> schema_errors(const std::string& schema, const std::vector<std::string>& documents,
                                       const fs::path& dir) {
  static int s_batch = 0;
  const fs::path batch = dir / ("validated-" + std::to_string(s_batch++));
  fs::create_directories(batch);
  std::vector<std::string> argv = {"/usr/bin/python3",
                                   (k_source_dir / "scripts" / "validate_json.py").string(),
                                   (k_source_dir / "schemas" / schema).string()};
  std::vector<std::string> files;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    files.push_back((batch / ("document-" + std::to_string(i) + ".json")).string());
    std::ofstream(files.back()) << documents[i];
    argv.push_back(files.back());
  }
  auto r = run_process(argv);
  std::vector<std::string> errors(documents.size());
  std::istringstream lines(r.out);
  bool matched = false;
  for (std::string line; std::getline(lines, line);) {
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (line.rfind(files[i] + ": ", 0) != 0) continue;
      errors[i] += line.substr(files[i].size() + 2) + "\n";
      matched = true;
    }
  }
  // A schema that is not one, or a crash, fails every document, never none.
  if (r.exit_code != (matched ? 1 : 0) || !r.err.empty()) {
    ADD_FAILURE() << "validate_json.py " << schema << " exited " << r.exit_code << ":\n" << r.out << r.err;
    for (std::string& e : errors) e += "(validate_json.py failed)";
  }
  return errors;
}

// ---------------------------------------------------------------------------------------------
// The config schema

// `node`, or the definition its "$ref" names.
const Json& resolved(const Json& root, const Json& node) {
  if (!node.contains("$ref")) return node;
  const std::string ref = node["$ref"];
  const std::string prefix = "#/definitions/";
  if (ref.rfind(prefix, 0) != 0) throw std::runtime_error("unexpected $ref " + ref);
  return root["definitions"][ref.substr(prefix.size())];
}

// A key of the config schema: its JSON path as the binary's messages spell it ("log.level",
// "functions_to_monitor[0].function_path"), its schema, and whether its parent requires it.
struct SchemaKey {
  std::string path;
  Json schema;
  bool required = false;
};

void collect_keys(const Json& root, const Json& object, const std::string& prefix,
                  std::vector<SchemaKey>& out) {
  const Json required = object.value("required", Json::array());
  for (const auto& [name, property] : object["properties"].items()) {
    const std::string path = prefix.empty() ? name : prefix + "." + name;
    const Json& schema = resolved(root, property);
    out.push_back({path, schema, std::find(required.begin(), required.end(), name) != required.end()});
    if (schema.contains("properties")) collect_keys(root, schema, path, out);
    if (schema.contains("items") && resolved(root, schema["items"]).contains("properties"))
      collect_keys(root, resolved(root, schema["items"]), path + "[0]", out);
  }
}

std::vector<SchemaKey> config_keys() {
  Json root = config_schema();
  std::vector<SchemaKey> out;
  collect_keys(root, root, "", out);
  return out;
}

// The JSON pointer of a key path: "functions_to_monitor[0].function_path" ->
// "/functions_to_monitor/0/function_path".
Json::json_pointer pointer_of(const std::string& path) {
  std::string out = "/" + path;
  out = std::regex_replace(out, std::regex(R"(\[(\d+)\])"), "/$1");
  std::replace(out.begin(), out.end(), '.', '/');
  return Json::json_pointer(out);
}

// A value of the wrong type for `schema` (an enum of strings gets a number).
Json wrong_value(const Json& schema) {
  if (schema.contains("enum")) return 7;
  const std::string type = schema.value("type", "");
  if (type == "string") return 7;
  if (type == "integer") return "7";
  if (type == "boolean") return "true";
  if (type == "array") return "x";
  if (type == "object") return 7;
  return nullptr;  // any value goes
}

class ConfigSchemaTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = std::make_unique<TempDir>("aaw-schema-config");
    GitFixture repo(s_dir->path() / "aiter");
    SyntheticConsumer::build_provider(repo);
  }
  static void TearDownTestSuite() { s_dir.reset(); }

  static fs::path provider() { return s_dir->path() / "aiter"; }

  ProcessResult run(const std::vector<std::string>& args) {
    return run_watcher(AAW_BINARY, m_work.path(), args);
  }
  // The smallest config: the two required keys.
  Json minimal() const {
    return {
        {"repository_url", provider().string()},
        {"functions_to_monitor", {{{"import_statement", "import aiter"}, {"function_path", "aiter.topk"}}}}};
  }
  fs::path write(const Json& config, const std::string& name) {
    auto path = m_work.path() / name;
    std::ofstream(path) << config.dump(2);
    return path;
  }
  // Reads `config` the way every command does (status reads it and state_dir, nothing else).
  ProcessResult read_config(const fs::path& config) { return run({"status", "--config", config.string()}); }

  TempDir m_work{"aaw-schema-config-run"};
  static std::unique_ptr<TempDir> s_dir;
};

std::unique_ptr<TempDir> ConfigSchemaTest::s_dir;

TEST_F(ConfigSchemaTest, EveryShippedConfigValidatesAndReadsWithoutAWarning) {
  std::vector<fs::path> configs;
  for (const auto& entry : fs::recursive_directory_iterator(k_source_dir / "config"))
    if (entry.is_regular_file() && entry.path().extension() == ".json") configs.push_back(entry.path());
  std::sort(configs.begin(), configs.end());
  ASSERT_FALSE(configs.empty());
  EXPECT_NE(std::find(configs.begin(), configs.end(), k_source_dir / "config" / "aiter.json"), configs.end());
  // The original users' file stays as they wrote it: no "$schema" for editors (which the reader accepts).
  EXPECT_FALSE(read_json(k_source_dir / "config" / "aiter.json").contains("$schema"));
  std::vector<std::string> texts;
  for (const fs::path& config : configs) texts.push_back(read_text(config));
  auto errors = schema_errors("config.schema.json", texts, m_work.path());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    EXPECT_EQ(errors[i], "") << configs[i];
    // A copy, so that its relative paths land in the test's directory, not the source tree.
    auto copy = m_work.path() / ("shipped-" + std::to_string(i) + ".json");
    fs::copy_file(configs[i], copy);
    auto r = read_config(copy);
    EXPECT_EQ(r.exit_code, 0) << configs[i] << ": " << r.err;
    EXPECT_FALSE(contains(r.err, "warning")) << configs[i] << ": " << r.err;
  }
}

// Every key of the schema, with its example or its default (objects built from their keys):
// check-config accepts it with no warning, so the schema names no key the reader does not read.
TEST_F(ConfigSchemaTest, AConfigWithEveryKeyOfTheSchemaIsAcceptedByCheckConfig) {
  const std::map<std::string, Json> supplied = {
      {"repository_url", provider().string()},
      {"functions_to_monitor[0].import_statement", "import aiter"},
      {"functions_to_monitor[0].function_path", "aiter.topk"},
      {"functions_to_monitor[0].last_signature", "(a, b, c, d=None)"}};
  Json config = Json::object();
  std::set<std::string> keys;
  for (const SchemaKey& key : config_keys()) {
    keys.insert(key.path);
    Json value;
    if (key.schema.contains("examples"))
      value = key.schema["examples"][0];
    else if (key.schema.contains("default"))
      value = key.schema["default"];
    else if (supplied.count(key.path))
      value = supplied.at(key.path);
    else if (key.schema.contains("properties"))
      value = Json::object();
    else if (key.schema.value("type", "") == "array")
      value = Json::array();
    else
      FAIL() << key.path << " has neither examples nor a default: give it one";
    if (!config.contains(pointer_of(key.path))) config[pointer_of(key.path)] = value;
  }
  for (const auto& [path, value] : supplied)
    EXPECT_TRUE(keys.count(path)) << path << " is no longer in the schema";
  auto path = write(config, "every-key.json");
  EXPECT_EQ(schema_errors("config.schema.json", {config.dump()}, m_work.path())[0], "") << config.dump(2);
  auto r = run({"check-config", "--config", path.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_FALSE(contains(r.err, "warning")) << r.err;
  EXPECT_TRUE(contains(r.out, "ok        aiter.topk")) << r.out;
}

TEST_F(ConfigSchemaTest, EveryKeyIsDescribedEveryOptionalOneHasADefaultAndNoObjectTakesUnknownKeys) {
  Json root = config_schema();
  EXPECT_EQ(root.value("additionalProperties", true), false);
  for (const SchemaKey& key : config_keys()) {
    EXPECT_TRUE(key.schema.contains("description")) << key.path << ": editors show the description";
    bool object = key.schema.contains("properties");
    if (!key.required && !object && key.path != "functions_to_monitor[0].last_signature") {
      EXPECT_TRUE(key.schema.contains("default")) << key.path;
    }
    if (object) {
      EXPECT_EQ(key.schema.value("additionalProperties", true), false) << key.path;
    }
  }
}

// A key of the schema given a value of the wrong type: the binary refuses the config (exit 2)
// naming the key, and the schema refuses it too: the types agree.
TEST_F(ConfigSchemaTest, AWrongTypeAtAnyKeyIsRefusedByTheBinaryAndByTheSchema) {
  std::vector<std::string> paths, texts;
  for (const SchemaKey& key : config_keys()) {
    Json wrong = wrong_value(key.schema);
    if (wrong.is_null()) continue;  // last_signature: anything goes
    Json config = minimal();
    config[pointer_of(key.path)] = wrong;
    paths.push_back(key.path);
    texts.push_back(config.dump(2));
    auto file = write(config, "wrong-" + std::to_string(paths.size()) + ".json");
    auto r = run({"check-config", "--config", file.string()});
    EXPECT_EQ(r.exit_code, 2) << key.path << " = " << wrong.dump() << ": " << r.out << r.err;
    EXPECT_TRUE(contains(r.err, ": " + key.path + ": expected")) << key.path << ": " << r.err;
  }
  EXPECT_GT(paths.size(), 40u);
  auto errors = schema_errors("config.schema.json", texts, m_work.path());
  for (std::size_t i = 0; i < paths.size(); ++i)
    EXPECT_NE(errors[i], "") << "the schema accepts a wrong type at " << paths[i];
}

TEST_F(ConfigSchemaTest, BadValuesTheBinaryRefusesTheSchemaRefusesToo) {
  const std::vector<std::pair<std::string, Json>> bad = {
      {"repository_url", ""},
      {"state_dir", ""},
      {"consumer", {{"path", "v"}, {"package", "ai ter"}}},
      {"functions_to_monitor", Json::array()},
      {"functions_to_monitor[0].import_statement", ""},
      {"functions_to_monitor[0].import_statement", "aiter"},
      {"functions_to_monitor[0].import_statement", "from .aiter import topk"},
      {"functions_to_monitor[0].function_path", " aiter.topk"},
      {"functions_to_monitor[0].function_path", "aiter.topk()"},
      {"functions_to_monitor[0].function_path", "aiter..topk"},
      {"functions_to_monitor[0].function_path", "aiter.1topk"},
      {"check_interval_seconds", 0},
      {"check_interval_seconds", 2000000000},
      {"check_interval_seconds", 1.5},
      {"commit_list", Json::array({1})},
      {"compare_pair", Json::array({"v1"})},
      {"compare_pair", Json::array({"v1", "v2", "v3"})},
      {"extractor", "dynamic"},
      {"log.level", "verbose"},
      {"log.max_files", 0},
      {"static.cache_mb", 0},
      {"static.module_aliases", {{"old", Json::array({"new"})}}},
      {"build.command", Json::array()},
      {"build.env", {{"PREBUILD_KERNELS", 0}}},
      {"sandbox.kind", "docker"},
      {"github.poll", "sometimes"},
      {"notify.webhook.url", "ftp://hooks.example.com/x"},
      {"notify.webhook.url", "https://"},
      {"notify.webhook.url", "https://hooks.example.com/a b"},
      {"notify.webhook.min_severity", "fatal"},
      {"notify.github_issue.repo", "https://github.com/ROCm/aiter"},
      {"notify.github_issue.repo", "ROCm/aiter.git"},
      {"notify.github_issue.repo", "ROCm"},
      {"notify.github_issue.labels", Json::array({1})},
      {"consumer", {{"path", "vllm"}, {"repository_url", "https://github.com/vllm-project/vllm.git"}}},
      {"levels", {{"function_addded", "deny"}}},
      {"levels", {{"function_added", "block"}}},
  };
  std::vector<std::string> texts;
  for (const auto& [path, value] : bad) {
    Json config = minimal();
    config[pointer_of(path)] = value;
    texts.push_back(config.dump(2));
    auto r = run({"check-config", "--config",
                  write(config, "bad-" + std::to_string(texts.size()) + ".json").string()});
    EXPECT_EQ(r.exit_code, 2) << path << " = " << value.dump() << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "error: ")) << path << " = " << value.dump() << ": " << r.err;
  }
  for (const char* missing : {"repository_url", "functions_to_monitor"}) {
    Json config = minimal();
    config.erase(missing);
    texts.push_back(config.dump(2));
    auto r =
        run({"check-config", "--config", write(config, std::string("no-") + missing + ".json").string()});
    EXPECT_EQ(r.exit_code, 2) << missing << ": " << r.err;
    EXPECT_TRUE(contains(r.err, std::string(missing) + ": required key is missing")) << r.err;
  }
  auto errors = schema_errors("config.schema.json", texts, m_work.path());
  for (std::size_t i = 0; i < bad.size(); ++i)
    EXPECT_NE(errors[i], "") << "the schema accepts " << bad[i].first << " = " << bad[i].second.dump();
  EXPECT_NE(errors[bad.size()], "") << "the schema accepts a config without repository_url";
  EXPECT_NE(errors[bad.size() + 1], "") << "the schema accepts a config without functions_to_monitor";
}

TEST_F(ConfigSchemaTest, ValuesAtTheEdgesTheBinaryAcceptsTheSchemaAcceptsToo) {
  const std::vector<std::pair<std::string, Json>> good = {
      {"functions_to_monitor[0]",
       {{"import_statement", "import _private"}, {"function_path", "_private.fn2"}}},
      {"functions_to_monitor[0]",
       {{"import_statement", "import módulo"}, {"function_path", "módulo.función"}}},
      {"functions_to_monitor[0]",
       {{"import_statement", "\n from aiter import (a,\n  b as c,)  # comment\n"}, {"function_path", "c.f"}}},
      {"functions_to_monitor[0]", {{"import_statement", "from aiter import *"}, {"function_path", "fmoe"}}},
      {"compare_pair", Json::array()},
      {"compare_pair", Json::array({"v1", "v2"})},
      {"check_interval_seconds", 1000000000},
      {"notify.webhook.url", ""},
      {"notify.webhook.url", "HTTPS://user:secret@hooks.example.com:8443/services/T0/B0?x=1"},
      {"notify.webhook.url", "http://[::1]:8080/hook"},
      {"notify.github_issue.repo", ""},
      {"notify.github_issue.repo", "ROCm/aiter-api.watcher_2"},
      {"notify.github_issue",
       {{"repo", "ROCm/aiter"}, {"labels", {"api"}}, {"only_if_consumer_breaks", true}}},
      {"consumer", {{"repository_url", "https://github.com/vllm-project/vllm.git"}, {"branch", "dev"}}},
      {"consumer", {{"path", "vllm"}, {"repository_url", ""}}},
      {"levels", {{"function_added", "allow"}, {"default_changed", "warn"}, {"parameter_removed", "deny"}}},
      {"$schema", "../schemas/config.schema.json"},  // for editors: accepted, not read
  };
  std::vector<std::string> texts;
  for (const auto& [path, value] : good) {
    Json config = minimal();
    config[pointer_of(path)] = value;
    texts.push_back(config.dump(2));
    auto r = read_config(write(config, "good-" + std::to_string(texts.size()) + ".json"));
    EXPECT_EQ(r.exit_code, 0) << path << " = " << value.dump() << ": " << r.err;
    EXPECT_FALSE(contains(r.err, "warning")) << path << " = " << value.dump() << ": " << r.err;
  }
  auto errors = schema_errors("config.schema.json", texts, m_work.path());
  for (std::size_t i = 0; i < good.size(); ++i)
    EXPECT_EQ(errors[i], "") << good[i].first << " = " << good[i].second.dump();
}

// The one deliberate difference: the binary warns about an unknown key and carries on; the schema
// refuses it, so that an editor flags the typo.
TEST_F(ConfigSchemaTest, AnUnknownKeyOnlyWarnsInTheBinaryButFailsTheSchema) {
  Json config = minimal();
  config["check_intervall_seconds"] = 60;
  config["log"] = {{"levle", "debug"}};
  auto r = read_config(write(config, "typo.json"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(
      contains(r.err, "unknown key 'check_intervall_seconds', did you mean 'check_interval_seconds'?"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "unknown key 'log.levle', did you mean 'level'?")) << r.err;
  auto errors = schema_errors("config.schema.json", {config.dump()}, m_work.path())[0];
  EXPECT_TRUE(contains(errors, "'check_intervall_seconds' was unexpected")) << errors;
  EXPECT_TRUE(contains(errors, "'levle' was unexpected")) << errors;
}

// The other way round: no key the reader asks for is missing from the schema. The keys are read
// from the reader's sources, every JsonReader call with a literal key; the names of the
// extractors and notify channels come from their registries.
TEST_F(ConfigSchemaTest, TheSchemaKnowsEveryKeyTheConfigReaderAsksFor) {
  std::set<std::string> schema_names;
  std::function<void(const Json&)> names_in = [&](const Json& node) {
    if (node.is_object()) {
      if (node.contains("properties") && node["properties"].is_object())
        for (const auto& [name, sub] : node["properties"].items()) schema_names.insert(name);
      for (const auto& [name, sub] : node.items()) names_in(sub);
    } else if (node.is_array()) {
      for (const Json& sub : node) names_in(sub);
    }
  };
  Json root = config_schema();
  names_in(root);

  std::vector<fs::path> readers = {k_source_dir / "src" / "core" / "model" / "config.cpp"};
  for (const char* folder : {"notify", "extract"})
    for (const auto& entry : fs::recursive_directory_iterator(k_source_dir / "src" / folder))
      if (entry.path().extension() == ".cpp") readers.push_back(entry.path());
  const std::regex call(
      R"(\.(string|integer|boolean|strings|string_map|choice|object|required|field|ignore)\("([A-Za-z_][A-Za-z0-9_]*)\")");
  std::set<std::string> asked;
  for (const fs::path& reader : readers) {
    const std::string text = read_text(reader);
    for (std::sregex_iterator it(text.begin(), text.end(), call), end; it != end; ++it) {
      const std::string key = (*it)[2].str();
      asked.insert(key);
      EXPECT_TRUE(schema_names.count(key)) << reader << " reads the config key '" << key
                                           << "', which schemas/config.schema.json does not describe";
    }
  }
  EXPECT_GT(asked.size(), 40u) << "the reader's calls are no longer found: update this test";

  std::set<std::string> extractors;
  for (const Json& name : root["properties"]["extractor"]["enum"]) extractors.insert(name.get<std::string>());
  auto registered = builtin_sources().names();
  EXPECT_EQ(extractors, std::set<std::string>(registered.begin(), registered.end()));
  std::set<std::string> channels;
  for (const auto& [name, section] : root["properties"]["notify"]["properties"].items())
    channels.insert(name);
  auto kinds = builtin_channels().names();
  EXPECT_EQ(channels, std::set<std::string>(kinds.begin(), kinds.end()));
}

// ---------------------------------------------------------------------------------------------
// The output schemas

// Names in the package the synthetic consumer does not: a class called and one only named, a
// constant, a name imported and never called, a dynamic import.
constexpr const char* k_extra_consumer = R"(import importlib

import aiter
from aiter import unused_helper
from aiter.ops import BLOCK_SIZE, Tensorish


def make_config():
    return aiter.Config(1, size=BLOCK_SIZE)


def is_tensor(x):
    return isinstance(x, Tensorish)


def load_ops():
    return importlib.import_module("aiter.ops")
)";

// Copies of `doc` that a strict schema must refuse: one without each top-level key (but those in
// `optional`; "schema" and "exit_code" included), and one with a key added to each object (the first
// object at each path, the indices of arrays aside), each with what was done to it.
std::string pointer_token(std::string key) {
  for (std::size_t at = 0; (at = key.find_first_of("~/", at)) != std::string::npos; at += 2)
    key.replace(at, 1, key[at] == '~' ? "~0" : "~1");
  return key;
}

std::vector<std::pair<std::string, Json>> mutants(const Json& doc, const std::set<std::string>& optional) {
  std::vector<std::pair<std::string, Json>> out;
  for (const auto& [key, value] : doc.items()) {
    if (optional.count(key)) continue;
    Json copy = doc;
    copy.erase(key);
    out.push_back({"without '" + key + "'", copy});
  }
  std::set<std::string> seen;
  std::function<void(const Json&, const std::string&, const std::string&)> walk =
      [&](const Json& node, const std::string& pointer, const std::string& shape) {
        if (node.is_object()) {
          if (seen.insert(shape).second) {
            Json copy = doc;
            copy[Json::json_pointer(pointer + "/unexpected_key")] = 1;
            out.push_back({"with a key added at '" + (pointer.empty() ? "/" : pointer) + "'", copy});
          }
          for (const auto& [key, value] : node.items())
            walk(value, pointer + "/" + pointer_token(key), shape + "/" + pointer_token(key));
        } else if (node.is_array()) {
          for (std::size_t i = 0; i < node.size(); ++i)
            walk(node[i], pointer + "/" + std::to_string(i), shape + "/*");
        }
      };
  walk(doc, "", "");
  return out;
}

// The name a document of `schema` gives itself: "check-since-pin-2.schema.json" ->
// "aiter-api-watcher/check-since-pin/2".
std::string document_name(const std::string& schema) {
  const std::string suffix = ".schema.json";
  std::string stem = schema.substr(0, schema.size() - suffix.size());
  auto dash = stem.rfind('-');
  return "aiter-api-watcher/" + stem.substr(0, dash) + "/" + stem.substr(dash + 1);
}

// What `r` printed names the schema it is validated against and carries the exit code the process
// ended with.
void expect_names_its_schema(const std::string& schema, const ProcessResult& r) {
  Json doc = Json::parse(r.out);
  ASSERT_TRUE(doc.is_object()) << schema;
  EXPECT_EQ(doc.value("schema", Json()), document_name(schema))
      << "the document validated against " << schema;
  EXPECT_EQ(doc.value("exit_code", Json()), r.exit_code) << schema;
}

class OutputSchemaTest : public ::testing::Test {
 protected:
  // One provider history replayed with a consumer, a poll, and notifications: one webhook
  // notification is then marked failed as the notifier does after five refusals, so that status
  // lists it.
  static void SetUpTestSuite() {
    s_dir = std::make_unique<TempDir>("aaw-schema-outputs");
    s_repo = std::make_unique<GitFixture>(s_dir->path() / "aiter");
    s_commits = SyntheticConsumer::build_provider(*s_repo);
    SyntheticConsumer::write_consumer(consumer());
    std::ofstream(consumer() / "consumer" / "extra.py") << k_extra_consumer;

    auto config_path = s_dir->path() / "config.json";
    auto r = watcher({"discover", "--consumer", consumer().string(), "--write-config", config_path.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    Json config = read_json(config_path);
    config["repository_url"] = s_repo->path().string();
    config["state_dir"] = "state";
    config["log"] = {{"file", "watcher.log"}};
    config["consumer"]["pinned_commit"] = s_commits.compatible;
    Json quiet = config;  // for the poll: the notifications stay pending
    config["notify"] = {{"webhook", {{"url", "http://127.0.0.1:1/hook"}, {"min_severity", "breaking"}}}};
    std::ofstream(config_path) << config.dump(2);
    std::ofstream(s_dir->path() / "quiet.json") << quiet.dump(2);

    r = watcher({"replay", "--config", config_path.string(), "--once", s_commits.base, s_commits.compatible,
                 s_commits.breaking, s_commits.head});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    r = watcher({"watch", "--config", (s_dir->path() / "quiet.json").string(), "--once"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;

    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((s_dir->path() / "state" / "state.db").c_str(), &db), SQLITE_OK);
    const char* sql =
        "UPDATE outbox SET state = 'failed', attempts = 5, "
        "last_error = 'webhook http://127.0.0.1:1 answered 404' WHERE id = (SELECT min(id) FROM outbox)";
    EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    EXPECT_EQ(sqlite3_changes(db), 1);
    sqlite3_close(db);
  }
  static void TearDownTestSuite() {
    s_repo.reset();
    s_dir.reset();
  }

  static ProcessResult watcher(const std::vector<std::string>& args) {
    return run_watcher(AAW_BINARY, s_dir->path(), args);
  }
  static fs::path consumer() { return s_dir->path() / "vllm"; }
  static std::string config() { return (s_dir->path() / "config.json").string(); }

  // The config without the function the provider never had, for compare (found at neither end,
  // it makes compare exit 2) and without the webhook.
  std::string compare_config() {
    Json c = read_json(config());
    auto& functions = c["functions_to_monitor"];
    functions.erase(std::remove_if(functions.begin(), functions.end(),
                                   [](const Json& f) { return contains(f["import_statement"], "new_name"); }),
                    functions.end());
    c.erase("notify");
    auto path = s_dir->path() / "compare.json";
    std::ofstream(path) << c.dump(2);
    return path.string();
  }

  // `text` validates against `schema`; and with `strict`, none of its mutants does (`optional`:
  // the top-level keys the document may go without).
  void expect_valid(const std::string& schema, const std::string& text, bool strict = true,
                    const std::set<std::string>& optional = {}) {
    Json doc = Json::parse(text);
    std::vector<std::string> texts = {text};
    auto changed = strict ? mutants(doc, optional) : std::vector<std::pair<std::string, Json>>{};
    for (const auto& [what, copy] : changed) texts.push_back(copy.dump());
    auto errors = schema_errors(schema, texts, m_work.path());
    EXPECT_EQ(errors[0], "") << schema << " on the document as printed:\n" << text.substr(0, 3000);
    for (std::size_t i = 0; i < changed.size(); ++i)
      EXPECT_NE(errors[i + 1], "") << schema << " accepts the document " << changed[i].first;
  }

  TempDir m_work{"aaw-schema-outputs-run"};
  static std::unique_ptr<TempDir> s_dir;
  static std::unique_ptr<GitFixture> s_repo;
  static SyntheticProviderCommits s_commits;
};

std::unique_ptr<TempDir> OutputSchemaTest::s_dir;
std::unique_ptr<GitFixture> OutputSchemaTest::s_repo;
SyntheticProviderCommits OutputSchemaTest::s_commits;

TEST_F(OutputSchemaTest, HistoryJsonValidatesFilteredOrNot) {
  auto r = watcher({"history", "--config", config(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json doc = Json::parse(r.out);
  ASSERT_GE(doc["changes"].size(), 5u);
  EXPECT_TRUE(std::any_of(doc["changes"].begin(), doc["changes"].end(), [](const Json& c) {
    return c.contains("consumer_impact") && !c["consumer_impact"]["broken"].empty();
  })) << "no change breaks a call of the consumer: the schema's consumer_impact goes untested";
  expect_valid("history-1.schema.json", r.out);
  expect_names_its_schema("history-1.schema.json", r);
  for (std::vector<std::string> filter : {std::vector<std::string>{"--severity", "breaking"},
                                          {"--limit", "1"},
                                          {"rms_norm"},
                                          {"--since", "2999-01-01"}}) {
    std::vector<std::string> args = {"history", "--config", config(), "--format", "json"};
    args.insert(args.end(), filter.begin(), filter.end());
    auto filtered = watcher(args);
    ASSERT_EQ(filtered.exit_code, 0) << filtered.err;
    expect_valid("history-1.schema.json", filtered.out, false);
    expect_names_its_schema("history-1.schema.json", filtered);
  }
}

TEST_F(OutputSchemaTest, EveryLineOfEventsJsonlValidates) {
  std::vector<std::string> lines;
  std::istringstream text(read_text(s_dir->path() / "state" / "events.jsonl"));
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 10u);
  std::set<std::string> types;
  for (const std::string& line : lines) types.insert(Json::parse(line)["type"].get<std::string>());
  EXPECT_EQ(types, (std::set<std::string>{"initial", "change"}));
  auto errors = schema_errors("event-1.schema.json", lines, m_work.path());
  for (std::size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(errors[i], "") << lines[i];
  // Strict on an initial event of a function never found and on a change that breaks the consumer.
  for (const std::string& line : lines) {
    Json event = Json::parse(line);
    bool missing_at_first = event["type"] == "initial" && event["new"]["status"] != "ok";
    bool breaks =
        event.contains("consumer_impact") && event["consumer_impact"]["breaks_consumer"].get<bool>();
    if (missing_at_first || breaks) expect_valid("event-1.schema.json", line, true, {"consumer_impact"});
  }
  // What tells an initial event from a change holds.
  Json initial, change;
  for (const std::string& line : lines)
    (Json::parse(line)["type"] == "initial" ? initial : change) = Json::parse(line);
  Json mixed = initial;
  mixed["changes"] = change["changes"];
  Json orphan = change;
  orphan["old"] = nullptr;
  auto wrong = schema_errors("event-1.schema.json", {mixed.dump(), orphan.dump()}, m_work.path());
  EXPECT_NE(wrong[0], "") << "an initial event with changes";
  EXPECT_NE(wrong[1], "") << "a change without its old state";
}

// A force-push seen by watch: the abandoned commits' changes as one history_rewritten line.
TEST_F(OutputSchemaTest, HistoryRewrittenEventValidates) {
  GitFixture repo(m_work.path() / "aiter");
  const SyntheticProviderCommits commits = SyntheticConsumer::build_provider(repo);
  Json c = read_json(compare_config());
  c["repository_url"] = repo.path().string();
  c["state_dir"] = (m_work.path() / "state").string();
  c["log"] = {{"file", ""}};
  c["start_commit"] = commits.base;  // the whole line processed, the merge base included
  c.erase("consumer");
  const fs::path path = m_work.path() / "config.json";
  std::ofstream(path) << c.dump(2);
  auto first = run_watcher(AAW_BINARY, m_work.path(), {"watch", "--config", path.string(), "--once"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  repo.git({"reset", "--hard", commits.compatible});
  repo.write_file("NEWS", "rewritten\n");
  repo.commit("After the force-push");
  auto second = run_watcher(AAW_BINARY, m_work.path(), {"watch", "--config", path.string(), "--once"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_TRUE(contains(second.out + second.err, "Upstream history was rewritten")) << second.out;
  std::string rewrite;
  std::istringstream text(read_text(m_work.path() / "state" / "events.jsonl"));
  for (std::string line; std::getline(text, line);)
    if (Json::parse(line)["type"] == "history_rewritten") rewrite = line;
  ASSERT_FALSE(rewrite.empty()) << "no history_rewritten event";
  EXPECT_EQ(Json::parse(rewrite)["merge_base"], commits.compatible);
  EXPECT_FALSE(Json::parse(rewrite)["functions"].empty()) << rewrite;
  // "abandoned" came later than the rest: events recorded before it validate without it.
  expect_valid("event-1.schema.json", rewrite, true, {"abandoned"});
  // history lists it among the changes, as a rewrite: in JSON, and in text after the changes of
  // the abandoned line and before the new commit's own.
  auto history =
      run_watcher(AAW_BINARY, m_work.path(), {"history", "--config", path.string(), "--format", "json"});
  ASSERT_EQ(history.exit_code, 0) << history.err;
  expect_valid("history-1.schema.json", history.out);
  const Json listed = Json::parse(history.out)["rewrites"];
  ASSERT_EQ(listed.size(), 1u) << history.out;
  EXPECT_EQ(listed[0]["merge_base"], commits.compatible);
  EXPECT_EQ(listed[0]["functions"], Json::parse(rewrite)["functions"]);
  // Each change recorded at an abandoned commit says so, and only those.
  const Json rewrite_event = Json::parse(rewrite);
  std::set<std::string> abandoned;
  for (const Json& sha : rewrite_event["abandoned"]) abandoned.insert(sha.get<std::string>());
  EXPECT_EQ(abandoned.size(), rewrite_event["abandoned_commits"].get<std::size_t>());
  std::size_t marked = 0;
  const Json history_document = Json::parse(history.out);
  for (const Json& change : history_document["changes"]) {
    const bool gone = abandoned.count(change["commit"].get<std::string>()) > 0;
    EXPECT_EQ(change.contains("abandoned_by"), gone) << change.dump();
    if (gone) {
      EXPECT_EQ(change["abandoned_by"]["event_id"], rewrite_event["event_id"]);
    }
    marked += gone;
  }
  EXPECT_GT(marked, 0u) << history.out;
  // show says it of an abandoned commit, and only of those.
  const std::string gone = *abandoned.begin();
  auto shown =
      run_watcher(AAW_BINARY, m_work.path(), {"show", "--config", path.string(), gone, "--format", "json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  expect_valid("show-1.schema.json", shown.out, true, {"abandoned_by"});
  EXPECT_EQ(Json::parse(shown.out)["abandoned_by"]["event_id"], rewrite_event["event_id"]) << shown.out;
  EXPECT_TRUE(contains(Json::parse(shown.out)["note"].get<std::string>(),
                       "off the branch since the force-push seen"));
  auto kept = run_watcher(AAW_BINARY, m_work.path(),
                          {"show", "--config", path.string(), commits.compatible, "--format", "json"});
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_FALSE(Json::parse(kept.out).contains("abandoned_by")) << "the merge base is still on the branch";
  auto listing = run_watcher(AAW_BINARY, m_work.path(), {"history", "--config", path.string()});
  ASSERT_EQ(listing.exit_code, 0) << listing.err;
  const auto at = listing.out.find("history rewritten: ");
  ASSERT_NE(at, std::string::npos) << listing.out;
  EXPECT_TRUE(contains(listing.out.substr(at), " went back (")) << listing.out;
  EXPECT_TRUE(contains(listing.out.substr(0, at), "  abandoned: a force-push seen ")) << listing.out;
  EXPECT_NE(listing.out.substr(0, at).find(commits.breaking.substr(0, 12)), std::string::npos)
      << "the abandoned line's changes come first: " << listing.out;
}

TEST_F(OutputSchemaTest, ShowJsonValidatesRecordedOrExtractedNow) {
  auto recorded = watcher({"show", "--config", config(), "--format", "json", s_commits.breaking});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  EXPECT_EQ(Json::parse(recorded.out)["recorded"], true);
  expect_valid("show-1.schema.json", recorded.out);
  expect_names_its_schema("show-1.schema.json", recorded);
  auto now = watcher({"show", "--config", config(), "--format", "json", s_commits.breaking + "~1"});
  ASSERT_EQ(now.exit_code, 0) << now.err;
  EXPECT_EQ(Json::parse(now.out)["recorded"], false);
  expect_valid("show-1.schema.json", now.out);
  expect_names_its_schema("show-1.schema.json", now);
}

TEST_F(OutputSchemaTest, StatusJsonValidatesBeforeAnyRunAndAfterOne) {
  auto r = watcher({"status", "--config", config(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["outbox"]["failed_items"].size(), 1u) << r.out;
  EXPECT_GT(doc["outbox"]["pending"].get<int>(), 0) << r.out;
  EXPECT_TRUE(doc["last_poll_time"].is_string()) << r.out;
  EXPECT_TRUE(doc["pending_commits"].is_number()) << r.out;
  expect_valid("status-1.schema.json", r.out);
  expect_names_its_schema("status-1.schema.json", r);

  Json fresh = read_json(config());
  fresh["state_dir"] = (m_work.path() / "never-run").string();
  auto path = m_work.path() / "fresh.json";
  std::ofstream(path) << fresh.dump();
  auto before = watcher({"status", "--config", path.string(), "--format", "json"});
  ASSERT_EQ(before.exit_code, 0) << before.err;
  EXPECT_EQ(Json::parse(before.out)["state_dir_exists"], false);
  expect_valid("status-1.schema.json", before.out, false);
  expect_names_its_schema("status-1.schema.json", before);
  // --check on a daemon that never ran: exit 1, and the document says so.
  auto unhealthy = watcher({"status", "--config", path.string(), "--format", "json", "--check"});
  ASSERT_EQ(unhealthy.exit_code, 1) << unhealthy.err;
  EXPECT_EQ(Json::parse(unhealthy.out)["healthy"], false);
  expect_valid("status-1.schema.json", unhealthy.out, false);
  expect_names_its_schema("status-1.schema.json", unhealthy);
  // A healthy status exits 0: the schema refuses a document that says it is healthy and exits 1.
  Json lying = doc;
  lying["healthy"] = true;
  lying["exit_code"] = 1;
  EXPECT_NE(schema_errors("status-1.schema.json", {lying.dump()}, m_work.path())[0], "");
}

TEST_F(OutputSchemaTest, DiscoverJsonAndTheConfigItWritesValidate) {
  auto r = watcher({"discover", "--consumer", consumer().string(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json doc = Json::parse(r.out);
  for (const char* list : {"functions", "classes", "modules", "constants", "imported_not_called", "fallbacks",
                           "dynamic", "errors", "functions_to_monitor"})
    EXPECT_FALSE(doc[list].empty()) << list << " is empty: the schema's entry for it goes untested";
  EXPECT_TRUE(std::any_of(doc["classes"].begin(), doc["classes"].end(),
                          [](const Json& c) { return c.contains("call_sites"); }));
  EXPECT_TRUE(std::any_of(doc["classes"].begin(), doc["classes"].end(),
                          [](const Json& c) { return c.contains("name"); }));
  expect_valid("discover-1.schema.json", r.out);
  expect_names_its_schema("discover-1.schema.json", r);

  // The config --write-config writes is valid as written.
  auto written = m_work.path() / "written.json";
  auto w = watcher({"discover", "--consumer", consumer().string(), "--write-config", written.string()});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_EQ(schema_errors("config.schema.json", {read_text(written)}, m_work.path())[0], "");
}

TEST_F(OutputSchemaTest, CheckJsonAndCheckSincePinJsonValidate) {
  auto check = watcher({"check", "--config", config(), "--format", "json"});
  ASSERT_EQ(check.exit_code, 1) << check.err;
  expect_valid("check-1.schema.json", check.out, false);  // check-1 lets objects take more keys
  expect_names_its_schema("check-1.schema.json", check);

  auto pin = watcher({"check", "--config", config(), "--since-pin", "--format", "json"});
  ASSERT_EQ(pin.exit_code, 1) << pin.err;
  Json doc = Json::parse(pin.out);
  EXPECT_EQ(doc["pinned_commit"], s_commits.compatible);
  ASSERT_FALSE(doc["breaking_commits"].empty()) << pin.out;
  EXPECT_FALSE(doc["already_broken"].empty()) << pin.out;
  expect_valid("check-since-pin-2.schema.json", pin.out);
  expect_names_its_schema("check-since-pin-2.schema.json", pin);
}

TEST_F(OutputSchemaTest, CompareJsonAndTheWaiversItSuggestsValidateOnceFilledIn) {
  auto config = compare_config();
  auto compare = watcher({"compare", "--config", config, s_commits.base, s_commits.head, "--format", "json"});
  ASSERT_EQ(compare.exit_code, 1) << compare.err;
  expect_valid("compare-1.schema.json", compare.out, false);  // compare-1's call sites take more keys
  expect_names_its_schema("compare-1.schema.json", compare);

  auto suggested =
      watcher({"compare", "--config", config, s_commits.base, s_commits.head, "--suggest-waivers"});
  ASSERT_EQ(suggested.exit_code, 1) << suggested.err;
  Json waivers = Json::parse(suggested.out);
  ASSERT_FALSE(waivers["waivers"].empty());
  // Blank as printed: the schema says where a reason and a name are wanted, and nothing else.
  std::string blanks = schema_errors("waivers-1.schema.json", {suggested.out}, m_work.path())[0];
  std::istringstream lines(blanks);
  std::size_t wanted = 0;
  for (std::string line; std::getline(lines, line); ++wanted)
    EXPECT_TRUE(std::regex_search(line, std::regex(R"(^waivers/\d+/(reason|accepted_by): '' )"))) << line;
  EXPECT_EQ(wanted, 2 * waivers["waivers"].size()) << blanks;

  for (Json& entry : waivers["waivers"]) entry.update({{"reason", "planned"}, {"accepted_by", "ann"}});
  waivers["waivers"][0]["expires"] = "2999-12-31";
  expect_valid("waivers-1.schema.json", waivers.dump(2));
  auto file = m_work.path() / "waivers.json";
  std::ofstream(file) << waivers.dump(2);
  auto waived = watcher({"compare", "--config", config, s_commits.base, s_commits.head, "--waivers",
                         file.string(), "--format", "json"});
  EXPECT_EQ(waived.exit_code, 0) << waived.err;
  EXPECT_EQ(Json::parse(waived.out)["summary"]["accepted"], waivers["waivers"].size());
}

}  // namespace
}  // namespace aaw::test
