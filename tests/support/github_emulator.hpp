// A GitHub REST API of the tests' own: a real HTTP/1.1 server on 127.0.0.1 (an ephemeral port, one
// thread, one request per connection) with in-memory repositories, answering the endpoints the
// daemon uses as GitHub does:
//   GET  /repos/{o}/{n}/commits/{ref}          sha (JSON, or text for application/vnd.github.sha),
//                                              ETag, 304 for a matching If-None-Match (not counted)
//   GET  /repos/{o}/{n}/commits/{sha}/pulls    the pull requests set for that commit
//   GET  /repos/{o}/{n}/issues                 state, per_page, page, direction; Link header;
//                                              pull requests mixed in, as GitHub does
//   POST /repos/{o}/{n}/issues                 {title, body, labels} -> 201
//   POST /hooks/{name}                         any body, recorded (for webhook targets)
// Every response but a 304 and a webhook counts against a quota and carries the x-ratelimit-*
// headers; an exhausted quota answers 403 with x-ratelimit-remaining: 0.
//
// It records every request and injects faults on demand: an error status, rate limits (primary,
// retry-after, secondary), slow replies, dropped connections, redirects, and going down (refusing
// connections) and back up on the same port. All members are thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "core/ports/http_transport.hpp"

namespace aaw::test {

struct RecordedRequest {
  std::string method;
  std::string target;  // path and query, as sent
  HttpHeaders headers;
  std::string body;

  std::string path() const { return target.substr(0, target.find('?')); }
  // The header's value, or "" when it was not sent.
  std::string header(std::string_view name) const;
};

struct EmulatedPull {
  std::int64_t number = 0;
  std::string title;
  bool merged = false;
};

struct EmulatedIssue {
  std::int64_t number = 0;
  std::string title;
  std::string body;
  std::vector<std::string> labels;
  bool pull_request = false;  // listed among the issues with a "pull_request" key
  bool open = true;
};

struct Fault {
  enum class Kind {
    status,                // answer `status` with a JSON message
    primary_rate_limit,    // `status` (403/429), x-ratelimit-remaining: 0, x-ratelimit-reset: reset_epoch
    retry_after,           // `status` (403/429), retry-after: retry_after_seconds
    secondary_rate_limit,  // `status` (403/429), "secondary rate limit" message, no header to go by
    delay,                 // wait `delay` (cut short when the client hangs up), then answer normally
    drop,                  // close the connection without answering
    redirect,              // `status` (301...) with Location: location
  };
  Kind kind = Kind::status;
  int times = 1;            // how many matching requests it takes
  std::string path_prefix;  // only requests whose path starts with this ("": any request)
  int status = 500;
  std::int64_t reset_epoch = 0;
  int retry_after_seconds = 0;
  std::chrono::milliseconds delay{0};
  std::string location;
};

class GithubEmulator {
 public:
  // Listens on a free loopback port at once; throws std::runtime_error when it cannot.
  GithubEmulator();
  ~GithubEmulator();
  GithubEmulator(const GithubEmulator&) = delete;
  GithubEmulator& operator=(const GithubEmulator&) = delete;

  int port() const { return m_port; }
  // "http://127.0.0.1:<port>": the api_url to give a client.
  std::string url() const;

  // ---- state ----
  void set_branch(const std::string& repo, const std::string& branch, const std::string& sha);
  // The pull requests GET .../commits/{sha}/pulls lists; the commit becomes known (an unknown
  // one answers 422 "No commit found for SHA").
  void set_pulls(const std::string& repo, const std::string& sha, std::vector<EmulatedPull> pulls);
  // Adds an issue (or, with pull_request, a pull request) as the newest; returns its number.
  std::int64_t add_issue(const std::string& repo, const std::string& title, const std::string& body,
                         bool pull_request = false);
  void close_issue(const std::string& repo, std::int64_t number);
  // Issues and pull requests, oldest first.
  std::vector<EmulatedIssue> issues(const std::string& repo) const;
  // From now on, requests to /repos/ without "Authorization: Bearer <token>" answer 401.
  void require_token(std::string token);
  // A fresh quota of `limit` counted requests, resetting at `reset_epoch` (default: 5000, an hour
  // from the start).
  void set_rate_limit(int limit, std::int64_t reset_epoch);
  // Counted requests since the quota was set: a 304, a webhook and a refused request do not count.
  int rate_limit_used() const;

  // ---- webhooks ----
  // "http://127.0.0.1:<port>/hooks/<name>".
  std::string hook_url(const std::string& name) const;
  // The status POST /hooks/<name> answers from now on (default 200).
  void set_hook_status(const std::string& name, int status);
  std::vector<std::string> hook_bodies(const std::string& name) const;
  // True once `count` bodies were delivered to the hook, false after `timeout`.
  bool wait_for_hook(const std::string& name, std::size_t count, std::chrono::milliseconds timeout) const;

  // ---- faults ----
  void inject(Fault fault);
  void fail_next(int times, int status = 500, std::string path_prefix = {});
  void rate_limit_next(std::int64_t reset_epoch, int times = 1, int status = 403);
  void retry_after_next(int seconds, int times = 1, int status = 429);
  void secondary_limit_next(int times = 1, int status = 403);
  void delay_next(std::chrono::milliseconds delay, int times = 1);
  void drop_next(int times = 1);
  void redirect_next(std::string location, int times = 1, int status = 301);
  void clear_faults();
  // Stops listening: connections are refused until go_up(), which listens on the same port again.
  void go_down();
  void go_up();

  // ---- what was received ----
  std::vector<RecordedRequest> requests() const;
  std::size_t request_count() const;
  void clear_requests();

 private:
  struct Repo {
    std::map<std::string, std::string> branches;             // name -> sha
    std::map<std::string, std::vector<EmulatedPull>> pulls;  // known commits -> pulls
    std::vector<EmulatedIssue> issues;                       // oldest first
    std::int64_t next_number = 1;                            // shared by issues and pulls
  };
  struct Reply {
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    bool counted = true;  // against the quota
    std::string wire() const;
  };
  static Reply json_reply(int status, std::string body);

  void serve();
  void handle(int client);
  bool apply_delay(int client, std::chrono::milliseconds delay) const;
  Reply respond(const RecordedRequest& request);
  Reply route(const RecordedRequest& request);
  Reply commit(Repo& repo, const std::string& full_name, const std::string& ref,
               const RecordedRequest& request);
  Reply pulls(Repo& repo, const std::string& full_name, const std::string& sha) const;
  Reply list_issues(Repo& repo, const std::string& full_name, const RecordedRequest& request) const;
  Reply create_issue(Repo& repo, const std::string& full_name, const RecordedRequest& request);
  Reply hook(const std::string& name, const RecordedRequest& request);
  Reply fault_reply(const Fault& fault) const;
  void rate_headers(Reply& reply) const;
  bool take_fault(const std::string& path, Fault& out);
  void wake() const;

  int m_port = 0;
  int m_wake_pipe[2] = {-1, -1};
  std::thread m_thread;

  mutable std::mutex m_mutex;  // guards everything below, shared with the serving thread
  mutable std::condition_variable m_changed;
  int m_listen_fd = -1;
  bool m_want_down = false;
  bool m_stopping = false;
  std::map<std::string, Repo> m_repos;
  std::string m_token;
  int m_limit = 5000;
  int m_used = 0;
  std::int64_t m_reset = 0;
  std::map<std::string, int> m_hook_status;
  std::map<std::string, std::vector<std::string>> m_hook_bodies;
  std::deque<Fault> m_faults;
  std::vector<RecordedRequest> m_requests;
};

}  // namespace aaw::test
