#include "core/watch/progress.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace aaw {
namespace {

std::string duration_text(double seconds) {
  auto s = static_cast<long long>(seconds + 0.5);
  if (s < 60) return std::to_string(s) + "s";
  if (s < 3600) return std::to_string(s / 60) + "m" + std::to_string(s % 60) + "s";
  return std::to_string(s / 3600) + "h" + std::to_string(s / 60 % 60) + "m";
}

}  // namespace

void Progress::start(std::size_t total) {
  m_total = total;
  m_done = 0;
  m_active = total > k_threshold;
  m_started = m_last_report = m_clock.now();
  m_next_interval = k_first_interval;
}

void Progress::step() {
  ++m_done;
  if (!m_active) return;
  TimePoint now = m_clock.now();
  if (m_live) {
    std::fprintf(m_live, "\r\033[K%s", line().c_str());
    std::fflush(m_live);
  } else if (now - m_last_report >= m_next_interval) {
    m_log.info("Progress: {}", line());
    m_last_report = now;
    m_next_interval = std::min<Duration>(m_next_interval * 2, k_interval);
  }
}

void Progress::clear_live() {
  if (m_active && m_live) {
    std::fprintf(m_live, "\r\033[K");
    std::fflush(m_live);
  }
  m_active = false;
}

void Progress::finish(const ChangeTally& tally) {
  clear_live();
  m_log.info("Processed {} commit{} in {}: {}", m_done, m_done == 1 ? "" : "s", elapsed_text(),
             describe(tally));
}

void Progress::interrupt(const ChangeTally& tally) {
  clear_live();
  m_log.warn(
      "Interrupted after {} of {} commits in {} ({}); run again to resume (what was processed is kept)",
      m_done, m_total, elapsed_text(), describe(tally));
}

std::string Progress::elapsed_text() const {
  return duration_text(std::chrono::duration<double>(m_clock.now() - m_started).count());
}

std::string Progress::line() const {
  double elapsed = std::chrono::duration<double>(m_clock.now() - m_started).count();
  double rate = elapsed > 0 ? static_cast<double>(m_done) / elapsed : 0.0;
  std::string text = std::to_string(m_done) + "/" + std::to_string(m_total) + " commits (" +
                     std::to_string(m_total ? m_done * 100 / m_total : 100) + "%)";
  if (rate <= 0) return text;
  char rate_text[32];
  std::snprintf(rate_text, sizeof rate_text, "%.1f", rate);
  return text + ", " + rate_text + " commits/s, ETA " +
         duration_text(static_cast<double>(m_total - m_done) / rate);
}

}  // namespace aaw
