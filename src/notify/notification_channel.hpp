// The extension point for notifications: one channel delivers one change (a FUNCTION_CHANGE) to
// one kind of place (a GitHub issue, a webhook). The Notifier keeps the policy around it: what is
// due, retries and backoff, refusals, the pull-request lookup, redaction; a channel only makes one
// attempt and says how it went.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "core/model/signature.hpp"  // Json
#include "core/ports/github_client.hpp"
#include "core/ports/http_transport.hpp"
#include "core/report/log.hpp"
#include "util/time.hpp"

namespace aaw {

// How one delivery attempt went.
struct DeliveryAttempt {
  enum class Outcome {
    delivered,
    transient,  // network, 5xx, rate limit: try again after the backoff
    refused,    // 4xx: counted; failed after max_client_errors in a row
    abandoned,  // cannot ever be delivered as configured: failed at once
  };
  Outcome outcome = Outcome::transient;
  std::string ref;          // delivered: where (an issue URL), when there is such a place
  std::string error;        // otherwise: why
  Duration retry_after{0};  // a rate limit's wait, when the target said

  static DeliveryAttempt delivered_at(std::string ref = "") {
    return {Outcome::delivered, std::move(ref), "", {}};
  }
  static DeliveryAttempt failed(Outcome outcome, std::string error, Duration retry_after = Duration(0)) {
    return {outcome, "", std::move(error), retry_after};
  }
};

// What channels deliver through; outlives them.
struct ChannelContext {
  std::string repository_url;  // the watched repository: commit links in messages
  HttpTransport& transport;
  GithubClient& github;
  Logger& log;
  std::chrono::milliseconds connect_timeout{10'000};  // of one request
  std::chrono::milliseconds total_timeout{30'000};
};

class NotificationChannel {
 public:
  virtual ~NotificationChannel() = default;

  // The outbox target this channel serves: its key under "notify" ("webhook").
  virtual std::string_view name() const = 0;

  // One attempt to deliver `change` (a FUNCTION_CHANGE, with its pull_request when known). Never
  // throws; every failure is an attempt with its outcome and a message.
  virtual DeliveryAttempt deliver(const Json& change) = 0;

  // `text` with this channel's secrets taken out (a webhook URL's path is one): applied by the
  // notifier to every error it stores or logs.
  virtual std::string redact(std::string text) const { return text; }
};

}  // namespace aaw
