// notify.webhook: each change POSTed to `url` as its FUNCTION_CHANGE with a one-paragraph `text`
// (a Slack incoming webhook shows the text). The URL's path and query may be its secret (Slack's
// are): only its scheme and host are ever logged or stored.
#pragma once

#include <string>
#include <string_view>

#include "notify/notification_channel.hpp"

namespace aaw {

inline constexpr std::string_view k_target_webhook = "webhook";

// "https://hooks.slack.com": what may be said of a webhook URL.
std::string webhook_display(std::string_view url);

class WebhookChannel final : public NotificationChannel {
 public:
  WebhookChannel(std::string url, ChannelContext& context) : m_url(std::move(url)), m_context(context) {}

  std::string_view name() const override { return k_target_webhook; }
  // 2xx delivered; 429 (or 403 with rate-limit headers), 408 and 5xx transient; other answers
  // refused; a network error transient.
  DeliveryAttempt deliver(const Json& change) override;
  // Every part of the URL but its scheme and host, and any user:password@, taken out.
  std::string redact(std::string text) const override;

 private:
  std::string m_url;
  ChannelContext& m_context;
};

struct ChannelKind;
ChannelKind webhook_channel_kind();

}  // namespace aaw
