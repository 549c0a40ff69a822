// How a subcommand plugs into the command line: it adds itself (its flags, into an options struct
// of its own) and says what runs when it is chosen. app.cpp lists the subcommands in one table,
// so adding one is a file pair plus one line there.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "io/runtime.hpp"

namespace CLI {
class App;
}

namespace aaw::cli {

// The version --version prints and SARIF names.
inline constexpr const char* k_version = "0.1.0";

// What every command may use: the global --config and the process-wide runtime.
struct AppContext {
  std::filesystem::path config_path = "aiter_api_watcher_config.json";
  Runtime runtime;
};

// Runs a chosen subcommand; returns the process exit code.
using CommandRunner = std::function<int(AppContext&)>;

class Commands {
 public:
  // `runner` runs when `subcommand` is the one on the command line.
  void on(CLI::App* subcommand, CommandRunner runner) {
    m_runners.emplace_back(subcommand, std::move(runner));
  }
  // The common case: `run(*options[, runtime])` with options->config_path set from --config.
  template <class Options>
  void on(CLI::App* subcommand, std::shared_ptr<Options> options, int (*run)(const Options&, Runtime&)) {
    on(subcommand, [options, run](AppContext& context) {
      options->config_path = context.config_path;
      return run(*options, context.runtime);
    });
  }
  template <class Options>
  void on(CLI::App* subcommand, std::shared_ptr<Options> options, int (*run)(const Options&)) {
    on(subcommand, [options, run](AppContext& context) {
      options->config_path = context.config_path;
      return run(*options);
    });
  }
  // The runner of the chosen subcommand; nullptr when none was given.
  const CommandRunner* chosen() const;

 private:
  std::vector<std::pair<CLI::App*, CommandRunner>> m_runners;
};

// The subcommands --help lists (the internal ones, "__git" and the like, have no group).
std::vector<const CLI::App*> visible_subcommands(const CLI::App& app);

// --extractor NAME on `subcommand`: one of the source registry's names, into `out`.
void add_extractor_option(CLI::App* subcommand, std::string& out);

// Each subcommand's registration: adds it to `app` and its runner to `commands`.
using AddCommand = void (*)(CLI::App& app, Commands& commands);

}  // namespace aaw::cli
