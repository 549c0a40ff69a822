// The command line: CLI11 wiring of the subcommands in docs/design.md's contract. Each subcommand
// parses its flags into an options struct and calls its run_ function; nothing else happens here.
#pragma once

namespace aaw::cli {

// Parses argv and runs the chosen command; returns the process exit code. Throws CommandError
// (and CLI11's ParseError) for main() to report.
int run_app(int argc, char** argv);

}  // namespace aaw::cli
