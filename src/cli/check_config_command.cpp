#include "check_config_command.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "command_context.hpp"

namespace aaw::cli {

void add_check_config_command(CLI::App& app, Commands& commands) {
  CLI::App* cmd = app.add_subcommand("check-config", "Validate the config file and summarise it");
  commands.on(cmd, [](AppContext& context) { return run_check_config({context.config_path}); });
}

int run_check_config(const CheckConfigOptions& options) {
  Config config = read_config_or_throw(options.config_path);
  std::cout << options.config_path.string() << ": ok\n"
            << "repository: " << config.repository_url << " (branch " << config.branch << ")\n"
            << "extractor: " << config.extractor << "\n"
            << "state_dir: " << config.state_dir.string() << "\n"
            << "functions (" << config.functions_to_monitor.size() << "):\n";
  for (const MonitoredFunction& f : config.functions_to_monitor)
    std::cout << "  " << f.function_path << "  [" << f.import_statement << "]\n";
  if (config.compare_pair.size() == 2)
    std::cout << "mode: compare " << config.compare_pair[0] << " " << config.compare_pair[1] << "\n";
  return 0;
}

}  // namespace aaw::cli
