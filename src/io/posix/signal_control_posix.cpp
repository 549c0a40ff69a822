// Signal handlers only set flags and write one byte to a self-pipe: everything else (finishing
// the commit in progress, reopening logs) happens in the main loop, where it is safe.
#include "io/posix/signal_control_posix.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <stdexcept>

#include "core/ports/control.hpp"

namespace aaw {
namespace {

// Lock-free atomics, safe in a handler: a signal may be handled on any thread (the delivery
// thread too), and the main loop reads and clears the flags on its own.
std::atomic<bool> g_stop{false};
std::atomic<bool> g_reopen{false};
static_assert(std::atomic<bool>::is_always_lock_free);
int g_pipe[2] = {-1, -1};
bool g_instance = false;
struct sigaction g_previous[3];
constexpr int k_signals[3] = {SIGTERM, SIGINT, SIGHUP};

void on_signal(int signal) {
  if (signal == SIGHUP) {
    g_reopen = true;
  } else {
    g_stop = true;
  }
  int saved = errno;
  [[maybe_unused]] auto ignored = ::write(g_pipe[1], "x", 1);  // full pipe: already awake
  errno = saved;
}

// The pipe lives as long as the process once made: a handler may run at any moment.
void ensure_pipe() {
  if (g_pipe[0] >= 0) return;
  if (::pipe2(g_pipe, O_NONBLOCK | O_CLOEXEC) != 0) throw std::runtime_error("cannot create the signal pipe");
}

void install(int signal, struct sigaction* previous) {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(signal, &action, previous);
}

}  // namespace

void hold_hangups() {
  ensure_pipe();
  struct sigaction current {};
  ::sigaction(SIGHUP, nullptr, &current);
  if (current.sa_handler != on_signal) install(SIGHUP, nullptr);
}

SignalControl::SignalControl() {
  if (g_instance) throw std::logic_error("SignalControl: one instance per process");
  ensure_pipe();
  g_instance = true;
  g_stop = false;  // a SIGHUP held since hold_hangups() stays pending: the log is reopened at once
  for (int i = 0; i < 3; ++i) install(k_signals[i], &g_previous[i]);
}

// The previous handlers come back (hold_hangups' for SIGHUP, when it ran); the pipe stays, as a
// SIGHUP may still arrive.
SignalControl::~SignalControl() {
  for (int i = 0; i < 3; ++i) ::sigaction(k_signals[i], &g_previous[i], nullptr);
  g_instance = false;
}

bool SignalControl::stop_requested() const { return g_stop; }

bool SignalControl::take_reopen_request() { return g_reopen.exchange(false); }

int SignalControl::wake_fd() const { return g_pipe[0]; }

}  // namespace aaw
