// aiter-api-watcher: wires the command line and reports what escapes it, as one line on stderr
// (and in the log file, once a command opened it).
#include <exception>

#include "cli/app.hpp"
#include "cli/command_context.hpp"
#include "io/posix/signal_control_posix.hpp"

int main(int argc, char** argv) {
  try {
    aaw::hold_hangups();  // first: SIGHUP must never kill the daemon, not even while it starts
    return aaw::cli::run_app(argc, argv);
  } catch (const aaw::cli::CommandError& e) {
    aaw::cli::report_fatal(e.message);
    return aaw::cli::k_exit_error;
  } catch (const std::exception& e) {
    aaw::cli::report_fatal(e.what());
    return aaw::cli::k_exit_error;
  }
}
