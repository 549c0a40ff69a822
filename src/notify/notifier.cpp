#include "notify/notifier.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/model/function_change.hpp"
#include "notify/notification_message.hpp"

namespace aaw {
namespace {

std::string text_field(const Json& payload, const char* name) {
  auto found = payload.find(name);
  return found != payload.end() && found->is_string() ? found->get<std::string>() : std::string();
}

}  // namespace

Notifier::Notifier(NotifierOptions options, ChannelSet channels, StateStore& store, GithubClient& github,
                   Logger& log)
    : m_options(std::move(options)),
      m_channels(std::move(channels)),
      m_store(store),
      m_github(github),
      m_log(log),
      m_random(m_options.jitter_seed != 0 ? m_options.jitter_seed : std::random_device{}()) {}

Duration Notifier::backoff(int attempts) {
  Duration delay = m_options.backoff_base;
  for (int i = 1; i < attempts && delay < m_options.backoff_cap; ++i) delay *= 2;
  delay = std::min(delay, m_options.backoff_cap);
  // Jitter: many items failing together (a webhook that was down) are not retried in one burst.
  std::uniform_int_distribution<Duration::rep> half(0, delay.count() / 2);
  return delay - Duration(half(m_random));
}

Result<DeliveryReport> Notifier::deliver_due(TimePoint now, const std::function<bool()>& stop) {
  auto due = m_store.due_notifications(now, m_options.batch_size);
  if (!due) return due.error().context("reading the outbox");
  m_pull_requests.clear();
  m_down.clear();
  DeliveryReport report;
  for (OutboxItem& item : *due) {
    if (stop && stop()) break;
    auto done = deliver(std::move(item), now, stop);
    if (!done) return done.error();
    report.delivered += done->delivered;
    report.retrying += done->retrying;
    report.failed += done->failed;
  }
  return report;
}

Result<DeliveryReport> Notifier::flush(Clock& clock, int max_rounds, const std::function<bool()>& stop) {
  DeliveryReport total;
  for (int round = 0; round < max_rounds && !(stop && stop()); ++round) {
    auto report = deliver_due(clock.now(), stop);
    if (!report) return report.error();
    total.delivered += report->delivered;
    total.retrying += report->retrying;
    total.failed += report->failed;
    if (report->attempted() == 0) break;
  }
  return total;
}

Result<DeliveryReport> Notifier::deliver(OutboxItem item, TimePoint now, const std::function<bool()>& stop) {
  DeliveryReport report;
  NotificationChannel* channel = channel_for(item);
  DeliveryAttempt attempt;
  if (!channel) {
    attempt = DeliveryAttempt::failed(DeliveryAttempt::Outcome::abandoned, undeliverable(item));
  } else {
    enrich(item);
    attempt = this->attempt(*channel, item.payload, stop);
    // Quick retries took time: the backoff runs from the last try.
    if (m_options.clock) now = std::max(now, m_options.clock->now());
  }
  if (auto settled = settle(item, attempt, now, report); !settled) return settled.error();
  return report;
}

DeliveryAttempt Notifier::attempt(NotificationChannel& channel, const Json& payload,
                                  const std::function<bool()>& stop) {
  Clock* clock = m_options.clock;
  for (std::size_t retry = 0;; ++retry) {
    const TimePoint start = clock ? clock->now() : TimePoint{};
    DeliveryAttempt attempt = channel.deliver(payload);
    if (attempt.outcome != DeliveryAttempt::Outcome::transient || !clock || m_down.count(channel.name()))
      return attempt;
    if (retry >= m_options.quick_retries.size()) {
      m_down.emplace(channel.name());
      return attempt;
    }
    const Duration pause = m_options.quick_retries[retry];
    if (clock->now() - start > m_options.quick_attempt_limit || attempt.retry_after > pause) return attempt;
    m_log.info("{}: trying {} again in {} ms", redact(attempt.error), channel.name(),
               std::chrono::duration_cast<std::chrono::milliseconds>(pause).count());
    clock->sleep_until(clock->now() + pause);
    if (stop && stop()) return attempt;
  }
}

NotificationChannel* Notifier::channel_for(const OutboxItem& item) const {
  for (const auto& channel : m_channels.active)
    if (channel->name() == item.target) return channel.get();
  return nullptr;
}

// A notification queued for a target that is not (or no longer) configured cannot go anywhere:
// failing it at once shows it in `status` instead of retrying it forever.
std::string Notifier::undeliverable(const OutboxItem& item) const {
  auto reason = m_channels.unconfigured.find(item.target);
  if (reason != m_channels.unconfigured.end()) return reason->second;
  return "unknown notification target '" + item.target + "'";
}

void Notifier::enrich(OutboxItem& item) {
  auto found = item.payload.find("pull_request");
  if (!m_options.source_repo || (found != item.payload.end() && !found->is_null())) return;
  std::string sha = text_field(item.payload, "commit");
  if (sha.empty()) return;  // a force-push's notice belongs to no one commit
  auto cached = m_pull_requests.find(sha);
  if (cached == m_pull_requests.end()) {
    std::optional<std::string> url;
    auto pull = m_github.pull_request_for(*m_options.source_repo, sha);
    if (!pull) {
      m_log.warn("Cannot look up the pull request of {}: {}; notifying without it", sha,
                 pull.error().message());
    } else if (*pull) {
      url = (*pull)->url;
      // Written back at once: history shows it, and the other notifications of the commit carry it.
      if (auto written = m_store.set_pull_request(ObjectId{sha}, *url); !written)
        m_log.warn("Cannot record the pull request of {}: {}", sha, written.error().message());
    }
    cached = m_pull_requests.emplace(sha, url).first;
  }
  if (cached->second) item.payload["pull_request"] = *cached->second;
}

Result<void> Notifier::settle(OutboxItem& item, const DeliveryAttempt& attempt, TimePoint now,
                              DeliveryReport& report) {
  using Outcome = DeliveryAttempt::Outcome;
  item.attempts += 1;
  if (attempt.outcome == Outcome::delivered) {
    item.state = OutboxState::delivered;
    item.client_errors = 0;
    item.last_error.clear();
    item.delivered_ref = attempt.ref;
    ++report.delivered;
  } else {
    item.last_error = redact(attempt.error);
    if (attempt.outcome == Outcome::refused) ++item.client_errors;
    if (attempt.outcome == Outcome::abandoned) {
      item.state = OutboxState::failed;
      m_log.error("Cannot notify {} of {}: {}", item.target, change_label(item.payload), item.last_error);
      ++report.failed;
    } else if (item.client_errors >= m_options.max_client_errors) {
      item.state = OutboxState::failed;
      m_log.error("Giving up notifying {} of {} after {} refusals in a row: {}", item.target,
                  change_label(item.payload), item.client_errors, item.last_error);
      ++report.failed;
    } else {
      item.next_attempt_at = now + std::max(backoff(item.attempts), attempt.retry_after);
      m_log.warn("Cannot notify {} of {} (attempt {}): {}; retrying at {}", item.target,
                 change_label(item.payload), item.attempts, item.last_error,
                 iso8601_utc(item.next_attempt_at));
      ++report.retrying;
    }
  }
  auto updated = m_store.update_notification(item);
  if (!updated)
    return updated.error().context("recording the delivery of notification " + std::to_string(item.id));
  return {};
}

std::string Notifier::redact(std::string text) const {
  for (const auto& channel : m_channels.active) text = channel->redact(std::move(text));
  return text;
}

}  // namespace aaw
