#include "cli/extract_command.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/command_context.hpp"
#include "extract/runtime/runtime_source.hpp"
#include "io/runtime.hpp"

namespace aaw::cli {

void add_extract_command(CLI::App& app, Commands& commands) {
  auto shared = std::make_shared<ExtractOptions>();
  ExtractOptions& options = *shared;
  // An empty group hides the subcommand from --help.
  CLI::App* cmd = app.add_subcommand("__extract", "Extraction child of the runtime extractor (internal)");
  cmd->group("");
  cmd->add_option("REQUEST", options.request, "Request file written by the runtime extractor")->required();
  cmd->add_option("RESULT", options.result, "Where to write the states")->required();
  commands.on(cmd, [shared](AppContext& context) { return run_extract(*shared, context.runtime); });
}

int run_extract(const ExtractOptions& options, Runtime& runtime) {
  auto written = run_extraction_child(options.request, options.result, runtime.python());
  if (!written) throw CommandError{written.error().message()};
  // The result is in place (renamed whole): leave now, without finalizing the interpreter. HIP
  // runtimes and other extensions crash in their exit-time teardown, and that crash would
  // otherwise be all the parent sees of a good extraction.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::_exit(0);
}

}  // namespace aaw::cli
