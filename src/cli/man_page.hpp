// The manual page, aiter-api-watcher(1), written from the command line itself: every visible
// subcommand with its arguments, options, defaults and exit codes, so it never falls behind the
// binary. The build writes it with the hidden `__man-page` subcommand and installs it beside the
// binary; `man ./build/aiter-api-watcher.1` reads it in place.
#pragma once

#include <string>

#include "cli/command.hpp"

namespace aaw::cli {

void add_man_page_command(CLI::App& app, Commands& commands);

// The page in roff (man macros) for `app`.
std::string man_page(const CLI::App& app);

}  // namespace aaw::cli
