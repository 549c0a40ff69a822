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

}  // namespace aaw
