// aiter-api-watcher: wires the command line and reports what escapes it, as one line on stderr.
#include <exception>
#include <iostream>

#include "aaw/io/signal_control.hpp"
#include "app.hpp"
#include "command_context.hpp"

int main(int argc, char** argv) {
  try {
    aaw::hold_hangups();  // first: SIGHUP must never kill the daemon, not even while it starts
    return aaw::cli::run_app(argc, argv);
  } catch (const aaw::cli::CommandError& e) {
    std::cerr << "aiter-api-watcher: error: " << e.message << "\n";
    return aaw::cli::k_exit_error;
  } catch (const std::exception& e) {
    std::cerr << "aiter-api-watcher: error: " << e.what() << "\n";
    return aaw::cli::k_exit_error;
  }
}
