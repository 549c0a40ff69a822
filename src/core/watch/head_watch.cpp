#include "core/watch/head_watch.hpp"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "util/url.hpp"

namespace aaw {
namespace {

// One named value, so the ETag, the head it stands for and its branch change together.
constexpr std::string_view k_api_head = "github_api_head";

bool is_full_sha(std::string_view text) {
  return text.size() == 40 && text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

}  // namespace

Result<ObjectId> GithubHeadWatch::ask_api(std::string_view branch) {
  auto stored = m_store.value(k_api_head);
  if (!stored) return stored.error();
  Json last = Json::parse(stored->value_or("{}"), nullptr, false);
  if (!last.is_object() || last.value("branch", "") != branch || !is_full_sha(last.value("sha", "")))
    last = Json::object();
  auto polled = m_client.branch_head(m_repo, branch, last.value("etag", ""));
  if (!polled) return polled.error();
  if (polled->not_modified) {
    if (last.empty())
      return Error(ErrorCode::network, "GitHub answered 304 Not Modified to a request without an ETag");
    return ObjectId{last["sha"].get<std::string>()};
  }
  if (!is_full_sha(polled->sha))
    return Error(ErrorCode::network,
                 "GitHub answered an unexpected head '" + polled->sha + "' for " + std::string(branch));
  Json now = {{"branch", branch}, {"sha", polled->sha}, {"etag", polled->etag}};
  if (auto saved = m_store.set_value(k_api_head, now.dump()); !saved) return saved.error();
  return ObjectId{polled->sha};
}

Result<ObjectId> GithubHeadWatch::head(std::string_view branch) {
  auto head = ask_api(branch);
  if (head) {
    if (m_api_failing) m_log.info("GitHub API answering again; polling {} through it", m_repo);
    m_api_failing = false;
    return head;
  }
  if (!m_api_failing)
    m_log.warn("GitHub API: {}; asking git for the head until the API answers", head.error().message());
  m_api_failing = true;
  return m_git.head(branch);
}

Result<std::optional<std::string>> api_poll_repo(const Config& config, bool have_token) {
  const std::string& mode = config.github.poll;
  if (mode == "git") return std::optional<std::string>();
  auto repo = watched_github_repo(config.repository_url, config.github.api_url);
  if (mode == "api") {
    if (!repo)
      return Error(ErrorCode::invalid_input, "github.poll 'api': repository_url '" +
                                                 redact_url(config.repository_url) +
                                                 "' is not on github.com nor on the host of github.api_url");
    return repo;
  }
  if (!repo || !have_token) return std::optional<std::string>();
  return repo;
}

}  // namespace aaw
