// GitHub's REST API, as much as the daemon uses: the branch head with ETag (a 304 costs no rate
// limit), the pull request that merged a commit, and issues (find by a hidden marker, create).
//
// Every call goes to `api_url` with the token (when set) and to nowhere else. Network errors and
// 5xx answers are retried with capped exponential backoff and jitter. Rate limits are honoured as
// GitHub documents them (x-ratelimit-remaining: 0 with x-ratelimit-reset, retry-after, 403 and 429
// secondary limits): a short wait is slept on the clock; a longer one makes the call fail with
// ErrorCode::timeout ("GitHub rate limit: retry after <UTC time>") and every call until then fail
// the same way without a request, logged once (a warning) per episode. A successful answer with
// x-ratelimit-remaining: 0 holds the next request until the reset the same way. A 403 is a rate
// limit only with one of those headers or GitHub's "rate limit" wording; otherwise (missing
// permissions) it is an ordinary 4xx. Redirects are followed only for GETs to api_url's own origin.
// The token never appears in a log line or an Error.
//
// Errors: a 4xx is ErrorCode::invalid_input, "GitHub answered <status> to <METHOD> <path>:
// <GitHub's message>"; network errors and 5xx after the retries (or at once for a POST) are
// ErrorCode::network; rate limits are ErrorCode::timeout. A sleep cut short by the clock (a signal)
// ends the call with its last error instead of retrying early. Calls may come from several threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ports/clock.hpp"
#include "core/ports/http_transport.hpp"
#include "core/report/log.hpp"
#include "util/result.hpp"

namespace aaw {

struct GithubClientOptions {
  std::string api_url = "https://api.github.com";  // no trailing slash needed
  std::string token;                               // empty: anonymous
  std::string user_agent = "aiter-api-watcher";
  int max_attempts = 4;  // per call, for network errors and 5xx (GETs),
                         // and for rate-limited answers
  std::chrono::milliseconds backoff_base{1000};
  std::chrono::milliseconds backoff_cap{30'000};
  std::chrono::seconds max_rate_limit_wait{60};  // longer waits fail fast instead of sleeping
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds total_timeout{30'000};
};

struct HeadPoll {
  bool not_modified = false;  // 304: the head is where it was when `etag` was returned
  std::string sha;            // when modified
  std::string etag;           // to send next time
};

struct PullRequest {
  std::int64_t number = 0;
  std::string title;
  std::string url;  // html_url
};

struct IssueRef {
  std::int64_t number = 0;
  std::string url;  // html_url
};

class GithubClient {
 public:
  virtual ~GithubClient() = default;

  // GET /repos/{repo}/commits/{branch} with If-None-Match: etag (none when empty), asking for
  // the bare sha (application/vnd.github.sha). An unknown branch is invalid_input (GitHub: 422).
  virtual Result<HeadPoll> branch_head(std::string_view repo, std::string_view branch,
                                       std::string_view etag) = 0;

  // GET /repos/{repo}/commits/{sha}/pulls: the merged pull request containing the commit (the
  // first merged one, else the first), or nullopt when there is none. An unknown commit is an
  // Error (invalid_input), never nullopt.
  virtual Result<std::optional<PullRequest>> pull_request_for(std::string_view repo,
                                                              std::string_view sha) = 0;

  // The issue whose body contains `marker`, among the repository's issues (open and closed), or
  // nullopt. Reads the issue list (not the search API, whose index lags behind a just-created issue),
  // newest first, skipping pull requests, up to 10 pages of 100: an issue older than the latest
  // 1,000 is not found.
  virtual Result<std::optional<IssueRef>> find_issue(std::string_view repo, std::string_view marker) = 0;

  // POST /repos/{repo}/issues. A 4xx other than a rate limit is ErrorCode::invalid_input naming
  // the status and GitHub's message. A network error or 5xx is ErrorCode::network at once, NOT
  // retried: the issue may have been created before the connection broke, so only the caller may
  // retry, after find_issue has found no issue with its marker. A rate-limited answer (nothing was
  // created) is waited out and retried as for every call.
  virtual Result<IssueRef> create_issue(std::string_view repo, std::string_view title, std::string_view body,
                                        const std::vector<std::string>& labels) = 0;
};

}  // namespace aaw
