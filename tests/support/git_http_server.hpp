// A minimal HTTP/1.1 server on 127.0.0.1 serving the git repositories under one directory
// through `git http-backend` (smart HTTP, as GitHub does), for tests of fetching over http:// and
// of token authentication. One request per connection, handled one at a time on a thread.
#pragma once

#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "support/process.hpp"

namespace aaw::test {

struct CgiRequest;  // internal to the .cpp

class GitHttpServer {
 public:
  // Listens on a free loopback port at once; throws std::runtime_error when it cannot.
  explicit GitHttpServer(std::filesystem::path project_root);
  ~GitHttpServer();
  GitHttpServer(const GitHttpServer&) = delete;
  GitHttpServer& operator=(const GitHttpServer&) = delete;

  int port() const { return m_port; }
  // "http://127.0.0.1:<port>/<repo>", `repo` relative to the project root.
  std::string url(std::string_view repo) const;

  // From now on, answer 401 (WWW-Authenticate: Basic realm="test") to requests whose Basic
  // credentials do not carry `token` as the password (any user name).
  void require_token(std::string token);

  // From now on, answer every request with 302 Found to `base` followed by the request's target
  // ("http://localhost:<port>" sends /repo/info/refs?... there): a server redirecting the client.
  void redirect_to(std::string base);

  // The Authorization header of every request received so far, verbatim, in order.
  std::vector<std::string> authorization_headers() const;
  // The same, Basic credentials decoded to "user:password".
  std::vector<std::string> basic_credentials() const;
  // "METHOD /target" of every request received so far, in order.
  std::vector<std::string> requests() const;

 private:
  void serve();
  void handle(int client);
  std::string respond(const CgiRequest& request);
  void record(const CgiRequest& request);
  RunOptions cgi_options(const CgiRequest& request) const;
  bool authorized(const CgiRequest& request) const;

  std::filesystem::path m_root;
  int m_listen_fd = -1;
  int m_wake_pipe[2] = {-1, -1};
  int m_port = 0;
  mutable std::mutex m_mutex;  // guards the members below, shared with the serving thread
  std::string m_token;
  std::string m_redirect;
  std::vector<std::string> m_authorization_headers;
  std::vector<std::string> m_requests;
  std::thread m_thread;
};

}  // namespace aaw::test
