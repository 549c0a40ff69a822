// Delivery of the outbox (state_store.hpp): each pending notification that is due goes to the
// channel of its target (notification_channel.hpp: a GitHub issue, a webhook POST). The policy is
// here, the one attempt in the channel. At least once, never twice where it matters:
// - a channel that can look its message up before sending it does (an issue's hidden marker), so a
//   crash between "sent" and "marked delivered" never makes a second one;
// - network errors, 5xx and rate limits are retried later with capped exponential backoff and
//   jitter, kept in the store (next_attempt_at), so a restart neither forgets nor hurries them;
// - a target that refuses a notification (4xx other than a rate limit) `max_client_errors` times
//   in a row gets it marked failed with the reason, which `status` shows; a success resets the count.
// Before delivering a change whose pull request is unknown, the pull request that merged the commit
// is looked up; when found it is written back to the stored change (history shows it). A failed or
// empty lookup only costs that attempt's lookup: delivery goes on without it.
//
// Every error is passed through each channel's redact() before it is logged or stored as
// last_error: a webhook URL beyond its scheme and host is a secret.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/model/config.hpp"
#include "core/ports/clock.hpp"
#include "core/ports/github_client.hpp"
#include "core/ports/state_store.hpp"
#include "core/report/log.hpp"
#include "notify/channel_registry.hpp"
#include "notify/notification_channel.hpp"

namespace aaw {

struct NotifierOptions {
  std::optional<std::string>
      source_repo;                // the watched repository's "owner/name" on GitHub, for pull-request lookups
  Duration backoff_base{30'000};  // first retry delay, doubled per attempt...
  Duration backoff_cap{3'600'000};  // ...up to this; each delay is jittered to [d/2, d]
  int max_client_errors = 5;        // consecutive refusals before an item is failed
  std::size_t batch_size = 20;      // items per round
  std::uint64_t jitter_seed = 0;    // 0: seeded from std::random_device
  // A transient failure that came back quickly (a 5xx answer, a refused connection) is tried again
  // in the same round after each of these pauses before it waits for its backoff, so a target that
  // blinked is not left for 30 s and `watch --once` run right after a 502 still delivers. A channel
  // that can look its message up first does so again on each try (an issue's marker), so no try
  // makes a second one. Not for an attempt slower than quick_attempt_limit (a timeout would only
  // repeat), nor for a rate limit that asks for a longer wait, nor for the other items of a round
  // whose quick retries of a target all failed (it is down). Only with a `clock`; the pauses end
  // early when the round's stop predicate turns true (it is asked after each).
  std::vector<Duration> quick_retries{std::chrono::seconds(1), std::chrono::seconds(2)};
  Duration quick_attempt_limit{std::chrono::seconds(3)};
  Clock* clock = nullptr;  // none: no quick retries
};

// What one round (or a flush) did.
struct DeliveryReport {
  int delivered = 0;
  int retrying = 0;  // failed this time, to be tried again at their next_attempt_at
  int failed = 0;    // given up on this time
  int attempted() const { return delivered + retrying + failed; }
};

class Notifier {
 public:
  // `channels`: the configured ones (channel_registry.hpp); an item for a target without a channel
  // fails at once with the reason the set gives. `github` looks pull requests up.
  Notifier(NotifierOptions options, ChannelSet channels, StateStore& store, GithubClient& github,
           Logger& log);

  // One round: up to batch_size pending notifications due at `now`, oldest first, each tried once;
  // `stop` (when set) is asked between items. An Error only when the state store fails.
  Result<DeliveryReport> deliver_due(TimePoint now, const std::function<bool()>& stop = {});

  // Rounds at clock.now() until nothing due is left (what failed waits for its backoff), at most
  // `max_rounds`, or until `stop` says so: what `watch --once` does before exiting.
  Result<DeliveryReport> flush(Clock& clock, int max_rounds, const std::function<bool()>& stop = {});

  // The delay before the next attempt after `attempts` attempts (>= 1), jitter included.
  Duration backoff(int attempts);

 private:
  Result<DeliveryReport> deliver(OutboxItem item, TimePoint now, const std::function<bool()>& stop);
  DeliveryAttempt attempt(NotificationChannel& channel, const Json& payload,
                          const std::function<bool()>& stop);
  NotificationChannel* channel_for(const OutboxItem& item) const;
  std::string undeliverable(const OutboxItem& item) const;
  void enrich(OutboxItem& item);
  Result<void> settle(OutboxItem& item, const DeliveryAttempt& attempt, TimePoint now,
                      DeliveryReport& report);
  std::string redact(std::string text) const;

  NotifierOptions m_options;
  ChannelSet m_channels;
  StateStore& m_store;
  GithubClient& m_github;
  Logger& m_log;
  std::mt19937_64 m_random;
  // Pull requests looked up in this round, by commit (nullopt: none, or the lookup failed).
  std::map<std::string, std::optional<std::string>> m_pull_requests;
  // Targets whose quick retries all failed in this round: not tried quickly again in it.
  std::set<std::string, std::less<>> m_down;
};

}  // namespace aaw
