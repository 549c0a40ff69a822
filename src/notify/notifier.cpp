#include "aaw/notify/notifier.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "aaw/core/function_change.hpp"
#include "aaw/notify/notification_message.hpp"

namespace aaw {
namespace {

std::string text_field(const Json& payload, const char* name) {
  auto found = payload.find(name);
  return found != payload.end() && found->is_string() ? found->get<std::string>() : std::string();
}

// "aiter.fmoe at 0123456789ab", for log lines.
std::string what(const OutboxItem& item) {
  return text_field(item.payload, "function_path") + " at " +
         text_field(item.payload, "commit").substr(0, 12);
}

// Seconds of a Retry-After header (the delta form; GitHub and Slack send it so), or 0.
Duration retry_after_of(const HttpResponse& response) {
  auto value = response.header("retry-after");
  if (!value) return Duration(0);
  char* end = nullptr;
  long seconds = std::strtol(value->c_str(), &end, 10);
  if (end == value->c_str() || seconds < 0) return Duration(0);
  return std::chrono::seconds(std::min(seconds, 24L * 3600));
}

bool is_rate_limited(const HttpResponse& response) {
  if (response.status == 429) return true;
  if (response.status != 403) return false;
  return response.header("retry-after") ||
         response.header("x-ratelimit-remaining") == std::optional<std::string>("0");
}

// A short excerpt of a response body for an error message: one line, at most 200 characters.
std::string excerpt(const std::string& body) {
  std::string line = body.substr(0, std::min<std::size_t>(body.find('\n'), 200));
  return line.empty() ? std::string() : ": " + line;
}

}  // namespace

std::string webhook_display(std::string_view url) {
  auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return "(webhook)";
  auto start = scheme + 3;
  auto end = url.find_first_of("/?#", start);
  std::string_view authority =
      url.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
  auto at = authority.rfind('@');  // user:password@ is a secret too
  if (at != std::string_view::npos) authority.remove_prefix(at + 1);
  return std::string(url.substr(0, start)) + std::string(authority);
}

Notifier::Notifier(NotifierOptions options, StateStore& store, GithubClient& github, HttpTransport& transport,
                   Logger& log)
    : m_options(std::move(options)),
      m_store(store),
      m_github(github),
      m_transport(transport),
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
  DeliveryReport report;
  for (OutboxItem& item : *due) {
    if (stop && stop()) break;
    auto done = deliver(std::move(item), now);
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

Result<DeliveryReport> Notifier::deliver(OutboxItem item, TimePoint now) {
  DeliveryReport report;
  if (auto reason = undeliverable(item)) {
    if (auto settled = settle(item, {Outcome::abandoned, "", *reason, Duration(0)}, now, report); !settled)
      return settled.error();
    return report;
  }
  enrich(item);
  if (auto settled = settle(item, attempt(item), now, report); !settled) return settled.error();
  return report;
}

// A notification queued for a target that is not (or no longer) configured cannot go anywhere:
// failing it at once shows it in `status` instead of retrying it forever.
std::optional<std::string> Notifier::undeliverable(const OutboxItem& item) const {
  if (item.target == k_target_github_issue) {
    if (m_options.github_issue.repo.empty()) return "notify.github_issue.repo is not configured";
  } else if (item.target == k_target_webhook) {
    if (m_options.webhook.url.empty()) return "notify.webhook.url is not configured";
  } else {
    return "unknown notification target '" + item.target + "'";
  }
  return std::nullopt;
}

void Notifier::enrich(OutboxItem& item) {
  auto found = item.payload.find("pull_request");
  if (!m_options.source_repo || (found != item.payload.end() && !found->is_null())) return;
  std::string sha = text_field(item.payload, "commit");
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

Notifier::Attempt Notifier::attempt(const OutboxItem& item) {
  return item.target == k_target_github_issue ? create_issue(item) : post_webhook(item);
}

// An Error of the GitHub client: invalid_input is GitHub refusing (a 4xx other than a rate limit);
// anything else (network, 5xx after the client's retries, a rate-limit wait) passes with time.
Notifier::Attempt Notifier::create_issue(const OutboxItem& item) {
  const std::string& repo = m_options.github_issue.repo;
  auto failure = [&](const Error& error) {
    return Attempt{error.code() == ErrorCode::invalid_input ? Outcome::refused : Outcome::transient, "",
                   redact(error.message()), Duration(0)};
  };
  auto existing = m_github.find_issue(repo, issue_marker(item.payload));
  if (!existing) return failure(existing.error());
  if (*existing) {
    m_log.info("Issue {} already reports {}", (*existing)->url, what(item));
    return {Outcome::delivered, (*existing)->url, "", Duration(0)};
  }
  auto created = m_github.create_issue(repo, issue_title(item.payload),
                                       issue_body(item.payload, m_options.repository_url),
                                       m_options.github_issue.labels);
  if (!created) return failure(created.error());
  m_log.info("Opened issue {} for {}", created->url, what(item));
  return {Outcome::delivered, created->url, "", Duration(0)};
}

Notifier::Attempt Notifier::post_webhook(const OutboxItem& item) {
  const std::string display = webhook_display(m_options.webhook.url);
  HttpRequest request;
  request.method = "POST";
  request.url = m_options.webhook.url;
  request.headers["Content-Type"] = "application/json";
  request.headers["User-Agent"] = "aiter-api-watcher";
  request.body = webhook_payload(item.payload, m_options.repository_url)
                     .dump(-1, ' ', false, Json::error_handler_t::replace);
  request.connect_timeout = m_options.webhook_connect_timeout;
  request.total_timeout = m_options.webhook_total_timeout;
  auto response = m_transport.perform(request);
  if (!response)
    return {Outcome::transient, "", redact("webhook " + display + ": " + response.error().message()),
            Duration(0)};
  int status = response->status;
  if (status >= 200 && status < 300) {
    m_log.info("Posted {} to webhook {}", what(item), display);
    return {Outcome::delivered, "", "", Duration(0)};
  }
  std::string error =
      redact("webhook " + display + " answered " + std::to_string(status) + excerpt(response->body));
  if (is_rate_limited(*response))
    return {Outcome::transient, "", error + " (rate limited)", retry_after_of(*response)};
  if (status >= 500 || status == 408) return {Outcome::transient, "", error, Duration(0)};
  return {Outcome::refused, "", error, Duration(0)};
}

Result<void> Notifier::settle(OutboxItem& item, const Attempt& attempt, TimePoint now,
                              DeliveryReport& report) {
  item.attempts += 1;
  if (attempt.outcome == Outcome::delivered) {
    item.state = OutboxState::delivered;
    item.client_errors = 0;
    item.last_error.clear();
    item.delivered_ref = attempt.ref;
    ++report.delivered;
  } else {
    item.last_error = attempt.error;
    if (attempt.outcome == Outcome::refused) ++item.client_errors;
    if (attempt.outcome == Outcome::abandoned) {
      item.state = OutboxState::failed;
      m_log.error("Cannot notify {} of {}: {}", item.target, what(item), item.last_error);
      ++report.failed;
    } else if (item.client_errors >= m_options.max_client_errors) {
      item.state = OutboxState::failed;
      m_log.error("Giving up notifying {} of {} after {} refusals in a row: {}", item.target, what(item),
                  item.client_errors, item.last_error);
      ++report.failed;
    } else {
      item.next_attempt_at = now + std::max(backoff(item.attempts), attempt.retry_after);
      m_log.warn("Cannot notify {} of {} (attempt {}): {}; retrying at {}", item.target, what(item),
                 item.attempts, item.last_error, iso8601_utc(item.next_attempt_at));
      ++report.retrying;
    }
  }
  auto updated = m_store.update_notification(item);
  if (!updated)
    return updated.error().context("recording the delivery of notification " + std::to_string(item.id));
  return {};
}

// The webhook URL's path and query may be its secret (Slack's are): whatever an error says, only
// its scheme and host remain. The GitHub client already keeps the token out of its errors.
std::string Notifier::redact(std::string text) const {
  const std::string& url = m_options.webhook.url;
  if (url.empty()) return text;
  std::string display = webhook_display(url);
  auto replace_all = [&](const std::string& secret, const std::string& by) {
    if (secret.size() < 2) return;
    for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at + by.size()))
      text.replace(at, secret.size(), by);
  };
  replace_all(url, display + "/…");
  auto scheme = url.find("://");
  if (scheme == std::string::npos) return text;
  auto path = url.find_first_of("/?#", scheme + 3);
  if (path != std::string::npos) replace_all(url.substr(path), "/…");
  auto at = url.substr(0, path).rfind('@');  // user:password@host
  if (at != std::string::npos && at > scheme) replace_all(url.substr(scheme + 3, at + 1 - (scheme + 3)), "");
  return text;
}

}  // namespace aaw
