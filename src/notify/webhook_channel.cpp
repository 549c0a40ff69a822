#include "notify/webhook_channel.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "notify/channel_registry.hpp"
#include "notify/notification_message.hpp"
#include "util/strings.hpp"
#include "util/url.hpp"

namespace aaw {
namespace {

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

// Every occurrence of a secret of at least 2 characters replaced (a 1-character one would
// mangle the whole text for nothing).
void hide(std::string& text, const std::string& secret, std::string_view by) {
  if (secret.size() >= 2) text = replace_all(std::move(text), secret, by);
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

DeliveryAttempt WebhookChannel::deliver(const Json& change) {
  using Outcome = DeliveryAttempt::Outcome;
  const std::string display = webhook_display(m_url);
  HttpRequest request;
  request.method = "POST";
  request.url = m_url;
  request.headers["Content-Type"] = "application/json";
  request.headers["User-Agent"] = "aiter-api-watcher";
  request.body = compact(webhook_payload(change, m_context.repository_url));
  request.connect_timeout = m_context.connect_timeout;
  request.total_timeout = m_context.total_timeout;
  auto response = m_context.transport.perform(request);
  if (!response)
    return DeliveryAttempt::failed(Outcome::transient,
                                   "webhook " + display + ": " + response.error().message());
  int status = response->status;
  if (status >= 200 && status < 300) {
    m_context.log.info("Posted {} to webhook {}", change_label(change), display);
    return DeliveryAttempt::delivered_at();
  }
  std::string error = "webhook " + display + " answered " + std::to_string(status) + excerpt(response->body);
  if (is_rate_limited(*response))
    return DeliveryAttempt::failed(Outcome::transient, error + " (rate limited)", retry_after_of(*response));
  if (status >= 500 || status == 408) return DeliveryAttempt::failed(Outcome::transient, error);
  return DeliveryAttempt::failed(Outcome::refused, error);
}

std::string WebhookChannel::redact(std::string text) const {
  const std::string& url = m_url;
  hide(text, url, webhook_display(url) + "/…");
  auto scheme = url.find("://");
  if (scheme == std::string::npos) return text;
  auto path = url.find_first_of("/?#", scheme + 3);
  if (path != std::string::npos) hide(text, url.substr(path), "/…");
  auto at = url.substr(0, path).rfind('@');  // user:password@host
  if (at != std::string::npos && at > scheme) hide(text, url.substr(scheme + 3, at + 1 - (scheme + 3)), "");
  return text;
}

ChannelKind webhook_channel_kind() {
  return {std::string(k_target_webhook), "url", Severity::compatible,
          [](JsonReader& r) {
            std::string url;
            r.string("url", url);
            // Not repeated in the message: a webhook URL is a secret (Slack's are).
            if (!url.empty() && !is_http_url(url))
              JsonReader::fail(r.path_of("url"),
                               "expected an http:// or https:// URL with a host (the value is not shown: "
                               "webhook URLs are secrets)");
          },
          [](const Json& section, ChannelContext& context) -> std::unique_ptr<NotificationChannel> {
            return std::make_unique<WebhookChannel>(section.value("url", ""), context);
          }};
}

}  // namespace aaw
