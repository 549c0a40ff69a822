// Requests from the outside world to a running daemon: stop (SIGTERM, SIGINT) and reopen the log
// files (SIGHUP). The watcher polls them between commits, never inside one.
#pragma once

namespace aaw {

class Control {
 public:
  virtual ~Control() = default;
  virtual bool stop_requested() const = 0;
  // True once per SIGHUP received since the last call.
  virtual bool take_reopen_request() = 0;
};

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

}  // namespace aaw
