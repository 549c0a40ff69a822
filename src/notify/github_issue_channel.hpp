// notify.github_issue: one issue per change in `repo`, titled as the original tool titled them,
// found again by its hidden marker before one is created, so a crash or a retry never opens a
// second issue for the same change.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "notify/notification_channel.hpp"

namespace aaw {

inline constexpr std::string_view k_target_github_issue = "github_issue";

struct GithubIssueSettings {
  std::string repo;  // "owner/name"
  std::vector<std::string> labels;
};

class GithubIssueChannel final : public NotificationChannel {
 public:
  GithubIssueChannel(GithubIssueSettings settings, ChannelContext& context)
      : m_settings(std::move(settings)), m_context(context) {}

  std::string_view name() const override { return k_target_github_issue; }
  // invalid_input from the GitHub client (a 4xx other than a rate limit) is a refusal; anything
  // else (network, 5xx, rate limit) passes with time.
  DeliveryAttempt deliver(const Json& change) override;

 private:
  GithubIssueSettings m_settings;
  ChannelContext& m_context;
};

struct ChannelKind;
ChannelKind github_issue_channel_kind();

}  // namespace aaw
