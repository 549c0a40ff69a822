// Signal handlers only set flags and write one byte to a self-pipe: everything else (finishing
// the commit in progress, reopening logs) happens in the main loop, where it is safe.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <stdexcept>

#include "aaw/core/control.hpp"
#include "aaw/io/signal_control.hpp"

namespace aaw {
namespace {

volatile std::sig_atomic_t g_stop = 0;
volatile std::sig_atomic_t g_reopen = 0;
int g_pipe[2] = {-1, -1};
struct sigaction g_previous[3];
constexpr int k_signals[3] = {SIGTERM, SIGINT, SIGHUP};

void on_signal(int signal) {
  if (signal == SIGHUP) {
    g_reopen = 1;
  } else {
    g_stop = 1;
  }
  int saved = errno;
  [[maybe_unused]] auto ignored = ::write(g_pipe[1], "x", 1);  // full pipe: already awake
  errno = saved;
}

}  // namespace

SignalControl::SignalControl() {
  if (g_pipe[0] >= 0) throw std::logic_error("SignalControl: one instance per process");
  if (::pipe2(g_pipe, O_NONBLOCK | O_CLOEXEC) != 0) throw std::runtime_error("cannot create the signal pipe");
  g_stop = 0;
  g_reopen = 0;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int i = 0; i < 3; ++i) ::sigaction(k_signals[i], &action, &g_previous[i]);
}

SignalControl::~SignalControl() {
  for (int i = 0; i < 3; ++i) ::sigaction(k_signals[i], &g_previous[i], nullptr);
  ::close(g_pipe[0]);
  ::close(g_pipe[1]);
  g_pipe[0] = g_pipe[1] = -1;
}

bool SignalControl::stop_requested() const { return g_stop != 0; }

bool SignalControl::take_reopen_request() {
  if (!g_reopen) return false;
  g_reopen = 0;
  return true;
}

int SignalControl::wake_fd() const { return g_pipe[0]; }

}  // namespace aaw
