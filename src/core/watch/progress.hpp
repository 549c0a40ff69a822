// Progress of a long run of commits (more than k_threshold pending): done/total, rate and ETA,
// as a live line on a terminal, or as a plain log line every k_interval otherwise.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

#include "core/ports/clock.hpp"
#include "core/report/log.hpp"

namespace aaw {

class Progress {
 public:
  static constexpr std::size_t k_threshold = 20;
  static constexpr Duration k_interval = std::chrono::seconds(30);

  // `live`: a terminal to redraw one line on (nullptr: log lines instead).
  Progress(Clock& clock, Logger& log, std::FILE* live) : m_clock(clock), m_log(log), m_live(live) {}

  void start(std::size_t total);
  void step();
  void finish();

  // "120/3000 commits (4%), 40.0 commits/s, ETA 1m12s".
  std::string line() const;

 private:
  Clock& m_clock;
  Logger& m_log;
  std::FILE* m_live;
  std::size_t m_total = 0;
  std::size_t m_done = 0;
  bool m_active = false;
  TimePoint m_started;
  TimePoint m_last_report;
};

}  // namespace aaw
