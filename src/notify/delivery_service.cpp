#include "notify/delivery_service.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace aaw {

DeliveryService::~DeliveryService() { stop(); }

TimePoint DeliveryService::deliver_once() {
  TimePoint now = m_clock.now();
  auto report = m_notifier.deliver_due(now, [this] { return m_stopping.load(); });
  if (!report) {
    // The store is busy or broken: say so once, then keep trying at the idle pace.
    if (!m_failing) m_log.error("Cannot deliver notifications: {}", report.error().message());
    m_failing = true;
  } else {
    m_failing = false;
    if (report->attempted() > 0) return now;  // maybe more due: a full batch was taken
  }
  TimePoint wake = now + k_idle_check;
  auto next = m_store.next_notification_due();
  if (next && *next) wake = std::max(now, std::min(wake, **next));
  return wake;
}

void DeliveryService::start() {
  if (!m_thread.joinable()) m_thread = std::thread([this] { run(); });
}

void DeliveryService::stop() {
  m_stopping = true;
  if (m_interrupt_sleeps) m_interrupt_sleeps();
  if (m_thread.joinable()) m_thread.join();
}

void DeliveryService::run() {
  while (!m_stopping) {
    TimePoint wake = deliver_once();
    if (!m_stopping) m_clock.sleep_until(wake);
  }
}

void DeliveryService::flush(int max_rounds, Duration budget, const std::function<bool()>& stop) {
  // Each item is tried at most once (what fails waits for its backoff), but a target that hangs
  // costs a timeout per item: the deadline keeps `--once` from outliving its purpose.
  TimePoint deadline = m_clock.now() + budget;
  auto report = m_notifier.flush(m_clock, max_rounds, [&] {
    return m_stopping.load() || (stop && stop()) || m_clock.now() >= deadline;
  });
  if (!report) {
    m_log.error("{}", report.error().message());
    return;
  }
  auto counts = m_store.outbox_counts();
  if (counts && counts->pending > 0)
    m_log.info("{} notifications still pending: they are retried on the next run", counts->pending);
}

}  // namespace aaw
