// Stop and reopen requests, set by the test instead of by signals.
#pragma once

#include "core/ports/control.hpp"

namespace aaw::test {

class FakeControl final : public Control {
 public:
  bool stop_requested() const override { return m_stop; }
  bool take_reopen_request() override {
    bool requested = m_reopen;
    m_reopen = false;
    return requested;
  }
  void request_stop() { m_stop = true; }
  void request_reopen() { m_reopen = true; }

 private:
  bool m_stop = false;
  bool m_reopen = false;
};

}  // namespace aaw::test
