// Progress of a run of commits: for a long one (more than k_threshold pending) done/total, rate
// and ETA, as a live line on a terminal, or else as log lines at a cadence that suits short and
// long runs alike (after 1 s, 2 s, 4 s ... then every k_interval); for every run, a closing line
// that says what it came to.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

#include "core/ports/clock.hpp"
#include "core/report/log.hpp"
#include "core/watch/change_tally.hpp"

namespace aaw {

class Progress {
 public:
  static constexpr std::size_t k_threshold = 20;
  static constexpr Duration k_first_interval = std::chrono::seconds(1);
  static constexpr Duration k_interval = std::chrono::seconds(30);

  // `live`: a terminal to redraw one line on (nullptr: log lines instead).
  Progress(Clock& clock, Logger& log, std::FILE* live) : m_clock(clock), m_log(log), m_live(live) {}

  void start(std::size_t total);
  void step();
  // The run ended with every commit processed: "Processed N commits in T: <what `tally` says>".
  void finish(const ChangeTally& tally);
  // The run was stopped before the end: "Interrupted after N of M commits in T (...); run again to
  // resume", a warning whatever the run's length, so that a cut-short run never reads as a
  // finished one.
  void interrupt(const ChangeTally& tally);
  std::size_t done() const { return m_done; }

  // "120/3000 commits (4%), 40.0 commits/s, ETA 1m12s".
  std::string line() const;

 private:
  void clear_live();  // and ends the live display
  std::string elapsed_text() const;

  Clock& m_clock;
  Logger& m_log;
  std::FILE* m_live;
  std::size_t m_total = 0;
  std::size_t m_done = 0;
  bool m_active = false;
  TimePoint m_started;
  TimePoint m_last_report;
  Duration m_next_interval = k_first_interval;
};

}  // namespace aaw
