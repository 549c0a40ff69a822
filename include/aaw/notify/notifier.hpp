// Delivery of the outbox (state_store.hpp): each pending notification that is due becomes a GitHub
// issue or a webhook POST. At least once, never twice where it matters:
// - an issue is looked up by its hidden marker before it is created, so a crash between "created"
//   and "marked delivered" never makes a second one;
// - network errors, 5xx and rate limits are retried later with capped exponential backoff and
//   jitter, kept in the store (next_attempt_at), so a restart neither forgets nor hurries them;
// - a target that refuses a notification (4xx other than a rate limit) `max_client_errors` times
//   in a row gets it marked failed with the reason, which `status` shows; a success resets the count.
// Before delivering a change whose pull request is unknown, the pull request that merged the commit
// is looked up; when found it is written back to the stored change (history shows it). A failed or
// empty lookup only costs that attempt's lookup: delivery goes on without it.
//
// Nothing here logs the GitHub token or the webhook URL beyond its scheme and host (a Slack
// webhook URL is itself a secret); errors stored as last_error are redacted the same way.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>

#include "aaw/core/clock.hpp"
#include "aaw/core/config.hpp"
#include "aaw/core/github_client.hpp"
#include "aaw/core/http_transport.hpp"
#include "aaw/core/log.hpp"
#include "aaw/core/state_store.hpp"

namespace aaw {

struct NotifierOptions {
  std::string repository_url;              // the watched repository: commit links in messages
  std::optional<std::string> source_repo;  // its "owner/name" on GitHub for pull-request lookups
  GithubIssueConfig github_issue;          // repo empty: issues are not a target
  WebhookConfig webhook;                   // url empty: the webhook is not a target
  Duration backoff_base{30'000};           // first retry delay, doubled per attempt...
  Duration backoff_cap{3'600'000};         // ...up to this; each delay is jittered to [d/2, d]
  int max_client_errors = 5;               // consecutive refusals before an item is failed
  std::size_t batch_size = 20;             // items per round
  std::chrono::milliseconds webhook_connect_timeout{10'000};
  std::chrono::milliseconds webhook_total_timeout{30'000};
  std::uint64_t jitter_seed = 0;  // 0: seeded from std::random_device
};

// What one round (or a flush) did.
struct DeliveryReport {
  int delivered = 0;
  int retrying = 0;  // failed this time, to be tried again at their next_attempt_at
  int failed = 0;    // given up on this time
  int attempted() const { return delivered + retrying + failed; }
};

// "https://hooks.slack.com": what may be said of a webhook URL (its path and query may be the secret).
std::string webhook_display(std::string_view url);

class Notifier {
 public:
  Notifier(NotifierOptions options, StateStore& store, GithubClient& github, HttpTransport& transport,
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
  enum class Outcome {
    delivered,
    transient,  // network, 5xx, rate limit: try again after the backoff
    refused,    // 4xx: counted; failed after max_client_errors in a row
    abandoned,  // cannot ever be delivered as configured: failed at once
  };
  struct Attempt {
    Outcome outcome = Outcome::transient;
    std::string ref;          // delivered: the issue URL
    std::string error;        // otherwise: why (redacted)
    Duration retry_after{0};  // a rate limit's wait, when the target said
  };

  Result<DeliveryReport> deliver(OutboxItem item, TimePoint now);
  std::optional<std::string> undeliverable(const OutboxItem& item) const;
  void enrich(OutboxItem& item);
  Attempt attempt(const OutboxItem& item);
  Attempt create_issue(const OutboxItem& item);
  Attempt post_webhook(const OutboxItem& item);
  Result<void> settle(OutboxItem& item, const Attempt& attempt, TimePoint now, DeliveryReport& report);
  std::string redact(std::string text) const;

  NotifierOptions m_options;
  StateStore& m_store;
  GithubClient& m_github;
  HttpTransport& m_transport;
  Logger& m_log;
  std::mt19937_64 m_random;
  // Pull requests looked up in this round, by commit (nullopt: none, or the lookup failed).
  std::map<std::string, std::optional<std::string>> m_pull_requests;
};

}  // namespace aaw
