#include "notify/github_issue_channel.hpp"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "notify/channel_registry.hpp"
#include "notify/notification_message.hpp"
#include "util/url.hpp"

namespace aaw {
namespace {

GithubIssueSettings settings_of(const Json& section) {
  GithubIssueSettings settings;
  settings.repo = section.value("repo", "");
  for (const Json& label : section.value("labels", Json::array()))
    if (label.is_string()) settings.labels.push_back(label.get<std::string>());
  return settings;
}

}  // namespace

DeliveryAttempt GithubIssueChannel::deliver(const Json& change) {
  using Outcome = DeliveryAttempt::Outcome;
  auto failure = [](const Error& error) {
    return DeliveryAttempt::failed(
        error.code() == ErrorCode::invalid_input ? Outcome::refused : Outcome::transient, error.message());
  };
  const std::string& repo = m_settings.repo;
  auto existing = m_context.github.find_issue(repo, issue_marker(change));
  if (!existing) return failure(existing.error());
  if (*existing) {
    m_context.log.info("Issue {} already reports {}", (*existing)->url, change_label(change));
    return DeliveryAttempt::delivered_at((*existing)->url);
  }
  auto created = m_context.github.create_issue(
      repo, issue_title(change), issue_body(change, m_context.repository_url), m_settings.labels);
  if (!created) return failure(created.error());
  m_context.log.info("Opened issue {} for {}", created->url, change_label(change));
  return DeliveryAttempt::delivered_at(created->url);
}

ChannelKind github_issue_channel_kind() {
  return {std::string(k_target_github_issue), "repo", Severity::breaking,
          [](JsonReader& r) {
            std::string repo;
            r.string("repo", repo);
            if (!repo.empty() && !is_github_repo_name(repo)) {
              auto from_url = github_repo_of(repo);
              JsonReader::fail(r.path_of("repo"),
                               "expected 'owner/name', got '" + repo + "'" +
                                   (from_url ? ", did you mean '" + *from_url + "'?" : ""));
            }
            std::vector<std::string> labels;
            r.strings("labels", labels);
          },
          [](const Json& section, ChannelContext& context) -> std::unique_ptr<NotificationChannel> {
            return std::make_unique<GithubIssueChannel>(settings_of(section), context);
          }};
}

}  // namespace aaw
