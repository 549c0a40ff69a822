// The Control port on POSIX signals (src/io/posix/signal_control_posix.cpp).
#pragma once

#include "core/ports/control.hpp"

namespace aaw {

// The real one: installs handlers for SIGTERM, SIGINT and SIGHUP (at most one instance per
// process) and restores the previous handlers on destruction. wake_fd() becomes readable on every
// signal, so a SystemClock built with it wakes from its sleep.
class SignalControl final : public Control {
 public:
  SignalControl();
  ~SignalControl() override;
  SignalControl(const SignalControl&) = delete;
  SignalControl& operator=(const SignalControl&) = delete;

  bool stop_requested() const override;
  bool take_reopen_request() override;
  int wake_fd() const;
};

// Catches SIGHUP from now on (main() calls it first): a SIGHUP sent while the process starts
// (logrotate's postrotate right after a restart) is remembered, and taken by the first
// SignalControl, instead of killing the process by its default action. Throws std::runtime_error
// when the signal pipe cannot be made.
void hold_hangups();

}  // namespace aaw
