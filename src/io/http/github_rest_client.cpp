// GitHub's REST API over an HttpTransport. One loop, send(), owns everything a call may meet on
// the way: the rate-limit gate, retries of network errors and 5xx with capped exponential backoff
// and full jitter, rate-limited answers (403/429) turned into a gate on the clock, and redirects
// within the API's own origin. The endpoint functions only build a request and read the answer.
//
// Rate limits follow GitHub's documentation ("Exceeding the rate limit"): retry-after first, then
// x-ratelimit-remaining: 0 with x-ratelimit-reset, else at least a minute, doubling while the
// secondary limit persists. The gate is client-wide: once GitHub said "not before T", no call
// sends anything before T, whichever endpoint it is for.
#include "io/http/github_rest_client.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <utility>

#include "core/ports/github_client.hpp"
#include "util/time.hpp"

namespace aaw {
namespace {

using nlohmann::json;

constexpr auto k_secondary_wait = std::chrono::seconds(60);  // GitHub: "wait at least one minute"
constexpr auto k_min_rate_limit_wait = std::chrono::seconds(1);
// x-ratelimit-reset has a resolution of a second and our clock is not GitHub's.
constexpr auto k_reset_margin = std::chrono::seconds(1);
constexpr int k_max_redirects = 3;
constexpr int k_issues_per_page = 100;
constexpr int k_max_issue_pages = 10;
constexpr std::size_t k_max_message = 300;

struct Call {
  std::string method = "GET";
  std::string path;  // from the API root, with the query
  HttpHeaders headers;
  std::string body;

  // "GET /repos/o/n/issues": the query left out, it only makes messages longer.
  std::string describe() const { return method + " " + path.substr(0, path.find('?')); }
  // A POST may have created something before the connection broke: never sent twice by us.
  bool retryable() const { return method == "GET" || method == "HEAD"; }
};

bool valid_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

Result<void> check_repo(std::string_view repo) {
  const auto slash = repo.find('/');
  if (slash != std::string_view::npos && valid_name(repo.substr(0, slash)) &&
      valid_name(repo.substr(slash + 1)))
    return {};
  return Error(ErrorCode::invalid_input,
               "'" + std::string(repo) + "' is not a GitHub repository (owner/name)");
}

Result<void> check_sha(std::string_view sha) {
  if (!sha.empty() && sha.size() <= 40 && std::all_of(sha.begin(), sha.end(), [](char c) {
        return std::isxdigit(static_cast<unsigned char>(c));
      }))
    return {};
  return Error(ErrorCode::invalid_input, "'" + std::string(sha) + "' is not a commit id");
}

// A branch name as a path: '/' kept (GitHub resolves "release/v1"), everything else unusual escaped.
std::string encode_ref(std::string_view ref) {
  static const char* k_hex = "0123456789ABCDEF";
  std::string out;
  for (const char c : ref) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(k_hex[byte >> 4]);
      out.push_back(k_hex[byte & 0xf]);
    }
  }
  return out;
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// "https://user@API.example.com:8443/api/v3" -> "https://api.example.com:8443".
std::string origin_of(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return {};
  auto authority = url.substr(scheme_end + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  return lowercase(url.substr(0, scheme_end + 3)) + lowercase(authority);
}

std::optional<long long> parse_integer(const std::optional<std::string>& text) {
  if (!text || text->empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const long long value = std::stoll(*text, &used);
    if (used != text->size()) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool is_redirect(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

// GitHub's own words for a failed request: its JSON "message" (and the "errors" of a 422), or the
// start of a body that is not JSON.
std::string message_of(const HttpResponse& response) {
  std::string text;
  const json body = json::parse(response.body, nullptr, false);
  if (body.is_object() && body.contains("message") && body["message"].is_string()) {
    text = body["message"].get<std::string>();
    if (body.contains("errors") && body["errors"].is_array()) {
      for (const json& error : body["errors"]) {
        if (error.is_object() && error.contains("message") && error["message"].is_string()) {
          text += "; " + error["message"].get<std::string>();
        } else if (error.is_object() && error.contains("field") && error.contains("code")) {
          text += "; " + error["field"].dump() + " " + error["code"].dump();
        }
      }
    }
  } else {
    text = response.body;
  }
  std::replace_if(
      text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  if (text.size() > k_max_message) text = text.substr(0, k_max_message) + "...";
  return text.empty() ? "(no message)" : text;
}

class RestGithubClient final : public GithubClient {
 public:
  RestGithubClient(GithubClientOptions options, HttpTransport& transport, Clock& clock, Logger& log)
      : m_options(std::move(options)),
        m_transport(transport),
        m_clock(clock),
        m_log(log),
        m_random(std::random_device{}()) {
    while (!m_options.api_url.empty() && m_options.api_url.back() == '/') m_options.api_url.pop_back();
    m_origin = origin_of(m_options.api_url);
  }

  Result<HeadPoll> branch_head(std::string_view repo, std::string_view branch,
                               std::string_view etag) override {
    if (auto ok = check_repo(repo); !ok) return ok.error();
    if (branch.empty()) return Error(ErrorCode::invalid_input, "empty branch name");
    Call call{"GET", "/repos/" + std::string(repo) + "/commits/" + encode_ref(branch), {}, {}};
    // Just the id as text: the default representation lists every file of the commit.
    call.headers["Accept"] = "application/vnd.github.sha";
    if (!etag.empty()) call.headers["If-None-Match"] = std::string(etag);
    auto response = send(call);
    if (!response) return response.error();
    HeadPoll poll;
    poll.etag = response->header("etag").value_or(std::string(etag));
    if (response->status == 304) {
      poll.not_modified = true;
      return poll;
    }
    if (response->status != 200) return failure(*response, call);
    auto sha = sha_of(response->body);
    if (!sha) return unreadable(*response, call, "no commit id");
    poll.sha = std::move(*sha);
    return poll;
  }

  Result<std::optional<PullRequest>> pull_request_for(std::string_view repo, std::string_view sha) override {
    if (auto ok = check_repo(repo); !ok) return ok.error();
    if (auto ok = check_sha(sha); !ok) return ok.error();
    const Call call{"GET", "/repos/" + std::string(repo) + "/commits/" + std::string(sha) + "/pulls", {}, {}};
    auto body = send_for_json(call, 200);
    if (!body) return body.error();
    if (!body->is_array()) return unreadable_json(call, "expected a list of pull requests");
    const json* chosen = nullptr;
    for (const json& pull : *body) {
      if (!pull.is_object()) continue;
      if (chosen == nullptr) chosen = &pull;
      if (pull.contains("merged_at") && !pull["merged_at"].is_null()) {
        chosen = &pull;
        break;
      }
    }
    if (chosen == nullptr) return std::optional<PullRequest>();
    PullRequest result;
    result.number = chosen->value("number", std::int64_t{0});
    result.title = string_field(*chosen, "title");
    result.url = string_field(*chosen, "html_url");
    return std::optional<PullRequest>(std::move(result));
  }

  // Newest first: the issue a crashed delivery left behind is among the latest. The bound keeps a
  // repository with thousands of issues from costing thousands of requests per notification.
  Result<std::optional<IssueRef>> find_issue(std::string_view repo, std::string_view marker) override {
    if (auto ok = check_repo(repo); !ok) return ok.error();
    if (marker.empty()) return Error(ErrorCode::invalid_input, "empty issue marker");
    for (int page = 1; page <= k_max_issue_pages; ++page) {
      const Call call{"GET",
                      "/repos/" + std::string(repo) +
                          "/issues?state=all&per_page=" + std::to_string(k_issues_per_page) +
                          "&sort=created&direction=desc&page=" + std::to_string(page),
                      {},
                      {}};
      auto response = send(call);
      if (!response) return response.error();
      if (response->status != 200) return failure(*response, call);
      const json items = json::parse(response->body, nullptr, false);
      if (!items.is_array()) return unreadable_json(call, "expected a list of issues");
      for (const json& item : items) {
        if (!item.is_object() || item.contains("pull_request")) continue;  // the list mixes in PRs
        const auto found = item.find("body");
        if (found == item.end() || !found->is_string()) continue;
        if (found->get_ref<const std::string&>().find(marker) == std::string::npos) continue;
        return std::optional<IssueRef>(
            IssueRef{item.value("number", std::int64_t{0}), string_field(item, "html_url")});
      }
      if (items.size() < static_cast<std::size_t>(k_issues_per_page) || !has_next_page(*response)) break;
    }
    return std::optional<IssueRef>();
  }

  Result<IssueRef> create_issue(std::string_view repo, std::string_view title, std::string_view body,
                                const std::vector<std::string>& labels) override {
    if (auto ok = check_repo(repo); !ok) return ok.error();
    Call call{"POST", "/repos/" + std::string(repo) + "/issues", {}, {}};
    call.headers["Content-Type"] = "application/json";
    call.body = json{{"title", std::string(title)}, {"body", std::string(body)}, {"labels", labels}}.dump();
    auto created = send_for_json(call, 201);
    if (!created) return created.error();
    if (!created->is_object() || !created->contains("number"))
      return unreadable_json(call, "no issue number");
    return IssueRef{created->value("number", std::int64_t{0}), string_field(*created, "html_url")};
  }

 private:
  // ---- the request loop ------------------------------------------------------------------------

  // The answer to `call` once it is neither a rate limit, a 5xx nor a same-origin redirect; an
  // Error when the gate is closed for longer than max_rate_limit_wait, the network failed (after
  // the retries, for a GET) or 5xx persisted.
  Result<HttpResponse> send(const Call& call) {
    std::string url = m_options.api_url + call.path;
    int failures = 0;
    int limited = 0;
    int redirects = 0;
    for (;;) {
      if (auto open = pass_gate(); !open) return open.error();
      auto response = m_transport.perform(request(call, url));
      if (!response) {
        Error error(ErrorCode::network,
                    "GitHub " + call.describe() + ": " + scrub(response.error().message()));
        if (!call.retryable()) return not_resent(error);
        if (!back_off(++failures)) return attempts_error(error, failures);
        continue;
      }
      note_rate_limit_headers(*response);
      if (auto wait = rate_limit_wait(*response, limited)) {
        hold_until(m_clock.now() + *wait, *response);
        if (++limited >= m_options.max_attempts) return rate_limit_error(gate());
        continue;
      }
      if (response->status >= 500) {
        Error error(ErrorCode::network, "GitHub answered " + std::to_string(response->status) + " to " +
                                            call.describe() + ": " + scrub(message_of(*response)));
        if (!call.retryable()) return not_resent(error);
        if (!back_off(++failures)) return attempts_error(error, failures);
        continue;
      }
      if (is_redirect(response->status) && call.method == "GET" && redirects < k_max_redirects) {
        // A renamed repository answers 301 with its new address, on the same API host. Anywhere
        // else would receive our Authorization header: such a redirect stays an answer.
        if (auto next = same_origin_location(*response)) {
          url = std::move(*next);
          ++redirects;
          continue;
        }
      }
      return response;
    }
  }

  HttpRequest request(const Call& call, const std::string& url) const {
    HttpRequest out;
    out.method = call.method;
    out.url = url;
    out.headers["Accept"] = "application/vnd.github+json";
    out.headers["X-GitHub-Api-Version"] = "2022-11-28";
    out.headers["User-Agent"] = m_options.user_agent;
    if (!m_options.token.empty()) out.headers["Authorization"] = "Bearer " + m_options.token;
    for (const auto& [name, value] : call.headers) out.headers[name] = value;
    out.body = call.body;
    out.connect_timeout = m_options.connect_timeout;
    out.total_timeout = m_options.total_timeout;
    return out;
  }

  std::optional<std::string> same_origin_location(const HttpResponse& response) const {
    const auto location = response.header("location");
    if (!location || location->empty()) return std::nullopt;
    if (location->front() == '/' && (location->size() < 2 || (*location)[1] != '/'))
      return m_origin + *location;
    if (!m_origin.empty() && origin_of(*location) == m_origin) return *location;
    return std::nullopt;
  }

  // Full jitter (a uniform wait up to the capped exponential bound) spreads the retries of many
  // clients after an outage instead of synchronising them. False when the attempts are used up or
  // the sleep was cut short (a signal: the daemon is stopping).
  bool back_off(int failures) {
    if (failures >= m_options.max_attempts) return false;
    const auto exponent = std::min(failures - 1, 30);
    const auto bound = std::min<long long>(m_options.backoff_cap.count(),
                                           m_options.backoff_base.count() * (1LL << exponent));
    Duration wait{0};
    {
      const std::lock_guard lock(m_mutex);
      wait = Duration(std::uniform_int_distribution<long long>(0, std::max(0LL, bound))(m_random));
    }
    const TimePoint deadline = m_clock.now() + wait;
    m_clock.sleep_until(deadline);
    return m_clock.now() >= deadline;
  }

  static Error not_resent(const Error& error) {
    return Error(error.code(), error.message() + " (not sent again: it may have reached GitHub)");
  }

  static Error attempts_error(const Error& error, int attempts) {
    return Error(error.code(), error.message() + " (" + std::to_string(attempts) +
                                   (attempts == 1 ? " attempt)" : " attempts)"));
  }

  // ---- rate limits -------------------------------------------------------------------------------

  // Sleeps until the gate opens when that is soon enough; otherwise, or when the sleep was cut
  // short, the rate-limit Error, and nothing is sent.
  Result<void> pass_gate() {
    const TimePoint until = gate();
    const TimePoint now = m_clock.now();
    if (until <= now) return {};
    if (until - now > m_options.max_rate_limit_wait) return rate_limit_error(until);
    m_clock.sleep_until(until);
    if (m_clock.now() < until) return rate_limit_error(until);
    return {};
  }

  TimePoint gate() const {
    const std::lock_guard lock(m_mutex);
    return m_gate;
  }

  static Error rate_limit_error(TimePoint until) {
    return Error(ErrorCode::timeout, "GitHub rate limit: retry after " +
                                         iso8601_utc(std::chrono::ceil<std::chrono::seconds>(until)));
  }

  // How long a 403/429 asks us to wait, or nullopt when it is no rate limit (a 403 for missing
  // permissions, say: GitHub words secondary limits as "...secondary rate limit...").
  std::optional<Duration> rate_limit_wait(const HttpResponse& response, int earlier) const {
    if (response.status != 403 && response.status != 429) return std::nullopt;
    if (auto seconds = parse_integer(response.header("retry-after")))
      return std::max<Duration>(std::chrono::seconds(*seconds), k_min_rate_limit_wait);
    if (auto reset = exhausted_until(response))
      return std::max<Duration>(std::chrono::duration_cast<Duration>(*reset - m_clock.now()),
                                k_min_rate_limit_wait);
    if (response.status == 429 || lowercase(message_of(response)).find("rate limit") != std::string::npos)
      return std::chrono::duration_cast<Duration>(k_secondary_wait * (1LL << std::min(earlier, 10)));
    return std::nullopt;
  }

  // x-ratelimit-remaining: 0 means no request before x-ratelimit-reset, whatever the status.
  static std::optional<TimePoint> exhausted_until(const HttpResponse& response) {
    const auto remaining = parse_integer(response.header("x-ratelimit-remaining"));
    const auto reset = parse_integer(response.header("x-ratelimit-reset"));
    if (!remaining || *remaining > 0 || !reset) return std::nullopt;
    return TimePoint(std::chrono::seconds(*reset)) + k_reset_margin;
  }

  // A successful answer that used up the quota closes the gate too: the next request would only
  // be refused, and GitHub asks clients not to make it.
  void note_rate_limit_headers(const HttpResponse& response) {
    if (auto until = exhausted_until(response)) {
      if (*until > m_clock.now()) hold_until(*until, response);
      return;
    }
    if (response.status != 403 && response.status != 429) {
      const std::lock_guard lock(m_mutex);
      m_limit_logged = false;  // the episode is over: the next limit is news again
    }
  }

  // One warning per episode, however many calls meet the closed gate.
  void hold_until(TimePoint until, const HttpResponse& response) {
    bool log = false;
    {
      const std::lock_guard lock(m_mutex);
      m_gate = std::max(m_gate, until);
      until = m_gate;
      log = !m_limit_logged;
      m_limit_logged = true;
    }
    if (log) {
      m_log.warn("GitHub rate limit reached ({} from {}): no request before {}", response.status, m_origin,
                 iso8601_utc(std::chrono::ceil<std::chrono::seconds>(until)));
    }
  }

  // ---- answers -----------------------------------------------------------------------------------

  Result<json> send_for_json(const Call& call, int expected_status) {
    auto response = send(call);
    if (!response) return response.error();
    if (response->status != expected_status) return failure(*response, call);
    json body = json::parse(response->body, nullptr, false);
    if (body.is_discarded()) return unreadable(*response, call, "not JSON");
    return body;
  }

  // A final answer that is not the one expected: 4xx (and 3xx not followed) are the request's
  // fault, as far as we can tell; anything else is GitHub's.
  Error failure(const HttpResponse& response, const Call& call) const {
    const ErrorCode code =
        response.status >= 300 && response.status < 500 ? ErrorCode::invalid_input : ErrorCode::network;
    std::string detail = is_redirect(response.status)
                             ? "a redirect to another host (or one too many), not followed"
                             : message_of(response);
    return Error(code, "GitHub answered " + std::to_string(response.status) + " to " + call.describe() +
                           ": " + scrub(detail));
  }

  Error unreadable(const HttpResponse& response, const Call& call, std::string_view what) const {
    return Error(ErrorCode::network, "GitHub answered " + std::to_string(response.status) + " to " +
                                         call.describe() + " with an unreadable body: " + std::string(what));
  }

  static Error unreadable_json(const Call& call, std::string_view what) {
    return Error(ErrorCode::network,
                 "GitHub's answer to " + call.describe() + " is unreadable: " + std::string(what));
  }

  // The token is ours, so it cannot be in GitHub's words; a proxy or a test server echoing the
  // request must not make it so either.
  std::string scrub(std::string text) const {
    const std::string& token = m_options.token;
    if (token.empty()) return text;
    for (auto at = text.find(token); at != std::string::npos; at = text.find(token, at))
      text.replace(at, token.size(), "***");
    return text;
  }

  static std::optional<std::string> sha_of(const std::string& body) {
    std::string text = body;
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    const auto hex = [](const std::string& s) {
      return s.size() == 40 && std::all_of(s.begin(), s.end(), [](char c) {
               return std::isxdigit(static_cast<unsigned char>(c));
             });
    };
    if (hex(text)) return text;
    const json parsed = json::parse(body, nullptr, false);
    if (parsed.is_object() && parsed.contains("sha") && parsed["sha"].is_string() &&
        hex(parsed["sha"].get<std::string>()))
      return parsed["sha"].get<std::string>();
    return std::nullopt;
  }

  static std::string string_field(const json& object, const char* name) {
    const auto it = object.find(name);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
  }

  // Without a Link header, a full page may still be followed by another.
  static bool has_next_page(const HttpResponse& response) {
    const auto link = response.header("link");
    return !link || link->find("rel=\"next\"") != std::string::npos;
  }

  GithubClientOptions m_options;
  std::string m_origin;
  HttpTransport& m_transport;
  Clock& m_clock;
  Logger& m_log;
  mutable std::mutex m_mutex;  // guards the members below: calls may come from several threads
  TimePoint m_gate{};          // no request before this
  bool m_limit_logged = false;
  std::mt19937_64 m_random;
};

}  // namespace

std::unique_ptr<GithubClient> make_github_client(GithubClientOptions options, HttpTransport& transport,
                                                 Clock& clock, Logger& log) {
  return std::make_unique<RestGithubClient>(std::move(options), transport, clock, log);
}

}  // namespace aaw
