#include "cli/consumer/discover_command.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>

#include "cli/command_context.hpp"
#include "core/model/import_statement.hpp"
#include "extract/consumer/consumer_scanner.hpp"
#include "util/files.hpp"

namespace aaw::cli {
namespace {

constexpr const char* k_discover_schema = "aiter-api-watcher/discover/1";  // schemas/discover-1.schema.json

struct Target {
  std::filesystem::path root;
  std::string package;
  std::vector<std::string> exclude;
};

// --consumer, --package and --exclude, else the config's consumer section (with --exclude's globs
// added to consumer.exclude).
Target consumer_target(const DiscoverOptions& options) {
  if (!options.consumer.empty())
    return {std::filesystem::absolute(options.consumer), options.package.empty() ? "aiter" : options.package,
            options.exclude};
  if (!std::filesystem::exists(options.config_path))
    throw CommandError{"discover: no consumer: give --consumer PATH or a config with consumer.path"};
  Config config = read_config_or_throw(options.config_path);
  if (config.consumer.path.empty())
    throw CommandError{"consumer.path '': not set in '" + options.config_path.string() +
                       "': give --consumer PATH or set consumer.path"};
  std::vector<std::string> exclude = config.consumer.exclude;
  exclude.insert(exclude.end(), options.exclude.begin(), options.exclude.end());
  return {config.consumer.path, options.package.empty() ? config.consumer.package : options.package, exclude};
}

Json functions_to_monitor(const ConsumerScan& scan) {
  Json out = Json::array();
  for (const ConsumerFunction& f : scan.functions)
    out.push_back(
        {{"import_statement", f.function.import_statement}, {"function_path", f.function.function_path}});
  return out;
}

std::string shape(const CallSite& site) {
  std::string text = std::to_string(site.positional) + " positional";
  if (!site.keywords.empty()) {
    text += ", keywords";
    for (const std::string& k : site.keywords) text += " " + k;
  }
  if (site.star_args) text += ", *args";
  if (site.star_kwargs) text += ", **kwargs";
  for (const std::string& g : site.guards) text += "; " + g;
  if (site.indirect) text += "; " + *site.indirect;
  if (site.ambiguous) text += "; ambiguous: " + *site.ambiguous;
  return text;
}

void print_names(const Json& list, const char* title, const char* key) {
  if (!list.is_array() || list.empty()) return;
  std::cout << title << " (" << list.size() << "):\n";
  for (const Json& item : list) std::cout << "  " << item.value(key, "") << "\n";
}

void print_text(const ConsumerScan& scan, double seconds) {
  std::size_t sites = 0;
  for (const ConsumerFunction& f : scan.functions) {
    std::cout << Json{{"import_statement", f.function.import_statement},
                      {"function_path", f.function.function_path}}
                     .dump()
              << "\n";
    for (const CallSite& site : f.call_sites)
      std::cout << "    " << site.file << ":" << site.line << " (" << site.caller << "): " << shape(site)
                << "\n";
    sites += f.call_sites.size();
  }
  const Json& doc = scan.document;
  print_names(doc.value("classes", Json::array()), "classes and enums", "target");
  print_names(doc.value("modules", Json::array()), "modules", "name");
  print_names(doc.value("constants", Json::array()), "constants", "name");
  print_names(doc.value("imported_not_called", Json::array()), "imported, never called", "name");
  print_names(doc.value("fallbacks", Json::array()), "fallback imports (the calls go to the first import)",
              "name");
  const Json dynamic = doc.value("dynamic", Json::array());
  if (!dynamic.empty()) std::cout << "reached dynamically (not bound) (" << dynamic.size() << "):\n";
  for (const Json& d : dynamic)
    std::cout << "  " << d.value("file", "") << ":" << d.value("line", 0) << " (" << d.value("caller", "")
              << "): " << d.value("what", "") << "\n";
  std::cout << scan.functions.size() << " functions in " << sites << " call sites; "
            << doc.value("imports", 0) << " imports of " << scan.package << " in "
            << doc.value("files_importing", 0) << " of " << doc.value("files_scanned", 0) << " files"
            << (doc.value("files_excluded", 0) > 0
                    ? " (" + std::to_string(doc.value("files_excluded", 0)) + " more left out by exclude)"
                    : std::string())
            << " (" << static_cast<int>(seconds * 1000) << " ms)\n";
}

// Classes' entries name their target; the listed-apart ones their name.
void fix_class_names(Json& doc) {
  for (Json& c : doc["classes"])
    if (!c.contains("target")) c["target"] = c.value("name", "");
}

void write_config(const std::filesystem::path& file, const ConsumerScan& scan, const Target& target) {
  if (std::filesystem::exists(file))
    throw CommandError{"--write-config '" + file.string() + "': the file exists; not overwriting it"};
  Json consumer = {{"path", target.root.string()}, {"package", target.package}};
  if (!target.exclude.empty()) consumer["exclude"] = target.exclude;
  Json config = {{"repository_url", "https://github.com/ROCm/aiter.git"},
                 {"branch", "main"},
                 {"functions_to_monitor", functions_to_monitor(scan)},
                 {"consumer", consumer}};
  value_or_throw(write_file_atomically(file, config.dump(2) + "\n"));
  std::cerr << "Wrote " << file.string() << " (" << scan.functions.size() << " functions_to_monitor)\n";
}

}  // namespace

void add_discover_command(CLI::App& app, Commands& commands) {
  auto shared = std::make_shared<DiscoverOptions>();
  CLI::App* cmd = app.add_subcommand(
      "discover", "Scan a consumer's Python files for what it calls in the package, with every call site");
  cmd->add_option("--consumer", shared->consumer,
                  "The consumer's directory (default: the config's consumer.path)");
  cmd->add_option("--package", shared->package, "The package whose imports to find (default: aiter)")
      ->check([](const std::string& package) {
        return is_dotted_name(package) ? std::string()
                                       : "'" + package + "' is not a dotted Python name like 'aiter'";
      });
  cmd->add_option("--exclude", shared->exclude,
                  "Leave out the consumer's paths this glob matches, relative to its root (repeatable: "
                  "--exclude tests --exclude 'benchmarks/*'); with the config's consumer.exclude");
  cmd->add_option("--write-config", shared->write_config,
                  "Write a complete config with these functions to this file");
  cmd->add_option("--format", shared->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->footer("Exit codes: 0 scanned; 2 an error (no such directory, the config file exists).");
  commands.on(cmd, shared, run_discover);
}

int run_discover(const DiscoverOptions& options, Runtime& runtime) {
  Target target = consumer_target(options);
  auto started = std::chrono::steady_clock::now();
  ConsumerScan scan =
      value_or_throw(scan_consumer(runtime.python(), target.root, target.package, target.exclude));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  fix_class_names(scan.document);
  for (const Json& e : scan.document.value("errors", Json::array()))
    std::cerr << "aiter-api-watcher: warning: consumer file '" << e.value("file", "")
              << "': " << e.value("error", "") << "\n";
  if (!options.write_config.empty()) write_config(options.write_config, scan, target);
  if (options.format == "json") {
    Json doc = scan.document;
    doc["schema"] = k_discover_schema;
    doc["functions_to_monitor"] = functions_to_monitor(scan);
    doc["exit_code"] = 0;  // an error exits 2 before any document
    std::cout << doc.dump(2) << "\n";
  } else {
    print_text(scan, seconds);
  }
  return 0;
}

}  // namespace aaw::cli
