// The server is deliberately simple: one thread, one request per connection ("Connection:
// close"), the whole request read into memory before `git http-backend` runs as a CGI child. That
// is all libgit2's smart-HTTP client needs, and the repositories in tests are small.
#include "support/git_http_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>

#include "support/git_fixture.hpp"
#include "support/process.hpp"
#include "support/socket_io.hpp"

namespace aaw::test {
namespace {

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return std::string(text);
}

std::string base64_decode(std::string_view text) {
  static const std::string k_alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned int bits = 0;
  int count = 0;
  for (char c : text) {
    const auto value = k_alphabet.find(c);
    if (value == std::string::npos) continue;  // '=' padding, whitespace
    bits = (bits << 6) | static_cast<unsigned int>(value);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xff));
    }
  }
  return out;
}

std::string percent_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::optional<std::string> read_chunked(SocketReader& in) {
  std::string body;
  for (;;) {
    const auto size_line = in.line();
    if (!size_line) return std::nullopt;
    const std::size_t size = std::stoul(*size_line, nullptr, 16);  // ";ext" stops the parse
    if (size == 0) break;
    const auto chunk = in.exactly(size + 2);  // data and its CRLF
    if (!chunk) return std::nullopt;
    body += chunk->substr(0, size);
  }
  for (auto trailer = in.line(); trailer && !trailer->empty(); trailer = in.line()) {
  }
  return body;
}

std::string response(std::string_view status, const std::vector<std::string>& headers,
                     std::string_view body) {
  std::string out = "HTTP/1.1 " + std::string(status) + "\r\n";
  for (const auto& header : headers) out += header + "\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  out += body;
  return out;
}

// CGI output (headers, blank line, body) -> an HTTP response; "Status:" becomes the status line.
std::string cgi_to_http(const std::string& output) {
  std::size_t split = output.find("\r\n\r\n");
  std::size_t body_start = split + 4;
  if (split == std::string::npos) {
    split = output.find("\n\n");
    body_start = split + 2;
  }
  if (split == std::string::npos) return response("502 Bad Gateway", {}, "bad CGI output\n");
  std::string status = "200 OK";
  std::vector<std::string> headers;
  std::size_t start = 0;
  while (start < split) {
    std::size_t end = output.find('\n', start);
    if (end == std::string::npos || end > split) end = split;
    const std::string header = trim(std::string_view(output).substr(start, end - start));
    start = end + 1;
    if (lowercase(header).rfind("status:", 0) == 0)
      status = trim(header.substr(7));
    else if (!header.empty())
      headers.push_back(header);
  }
  return response(status, headers, std::string_view(output).substr(body_start));
}

}  // namespace

struct CgiRequest {
  std::string method;
  std::string target;
  std::map<std::string, std::string> headers;  // lowercase names
  std::string body;

  std::string header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
  std::string basic_credentials() const {
    const std::string value = header("authorization");
    if (lowercase(value.substr(0, 6)) != "basic ") return {};
    return base64_decode(value.substr(6));
  }
};

namespace {

std::optional<CgiRequest> read_head(SocketReader& in) {
  const auto request_line = in.line();
  if (!request_line) return std::nullopt;
  CgiRequest request;
  const auto first_space = request_line->find(' ');
  const auto second_space = request_line->find(' ', first_space + 1);
  if (first_space == std::string::npos || second_space == std::string::npos) return std::nullopt;
  request.method = request_line->substr(0, first_space);
  request.target = request_line->substr(first_space + 1, second_space - first_space - 1);
  for (auto header = in.line(); header && !header->empty(); header = in.line()) {
    const auto colon = header->find(':');
    if (colon != std::string::npos)
      request.headers[lowercase(header->substr(0, colon))] = trim(header->substr(colon + 1));
  }
  return request;
}

}  // namespace

GitHttpServer::GitHttpServer(std::filesystem::path project_root) : m_root(std::move(project_root)) {
  m_listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (m_listen_fd < 0 || ::bind(m_listen_fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::listen(m_listen_fd, 16) != 0 ||
      ::getsockname(m_listen_fd, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
      ::pipe2(m_wake_pipe, O_CLOEXEC) != 0) {
    if (m_listen_fd >= 0) ::close(m_listen_fd);
    throw std::runtime_error("cannot listen on 127.0.0.1");
  }
  m_port = ntohs(address.sin_port);
  m_thread = std::thread([this] { serve(); });
}

GitHttpServer::~GitHttpServer() {
  const char stop = 'x';
  [[maybe_unused]] const ssize_t ignored = ::write(m_wake_pipe[1], &stop, 1);
  m_thread.join();
  ::close(m_listen_fd);
  ::close(m_wake_pipe[0]);
  ::close(m_wake_pipe[1]);
}

std::string GitHttpServer::url(std::string_view repo) const {
  return "http://127.0.0.1:" + std::to_string(m_port) + "/" + std::string(repo);
}

void GitHttpServer::require_token(std::string token) {
  const std::lock_guard lock(m_mutex);
  m_token = std::move(token);
}

void GitHttpServer::redirect_to(std::string base) {
  const std::lock_guard lock(m_mutex);
  m_redirect = std::move(base);
}

std::vector<std::string> GitHttpServer::authorization_headers() const {
  const std::lock_guard lock(m_mutex);
  return m_authorization_headers;
}

std::vector<std::string> GitHttpServer::basic_credentials() const {
  std::vector<std::string> out;
  for (const auto& header : authorization_headers()) {
    if (lowercase(header.substr(0, 6)) == "basic ") out.push_back(base64_decode(header.substr(6)));
  }
  return out;
}

std::vector<std::string> GitHttpServer::requests() const {
  const std::lock_guard lock(m_mutex);
  return m_requests;
}

void GitHttpServer::serve() {
  for (;;) {
    pollfd fds[2] = {{m_listen_fd, POLLIN, 0}, {m_wake_pipe[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) continue;
    if (fds[1].revents != 0) return;
    const int client = ::accept4(m_listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    try {
      handle(client);
    } catch (const std::exception&) {
      // A malformed request (a bad chunk size, say): drop that connection, keep serving.
    }
    ::close(client);
  }
}

void GitHttpServer::handle(int client) {
  SocketReader in(client, k_request_timeout);
  auto request = read_head(in);
  if (!request) return;
  // libgit2 may ask before sending a large body; curl-style clients always may.
  if (lowercase(request->header("expect")) == "100-continue")
    send_all(client, "HTTP/1.1 100 Continue\r\n\r\n");
  std::optional<std::string> body = std::string();
  if (lowercase(request->header("transfer-encoding")).find("chunked") != std::string::npos) {
    body = read_chunked(in);
  } else if (const std::string length = request->header("content-length"); !length.empty()) {
    body = in.exactly(std::stoul(length));
  }
  if (!body) return;
  request->body = std::move(*body);
  send_all(client, respond(*request));
  ::shutdown(client, SHUT_WR);
}

std::string GitHttpServer::respond(const CgiRequest& request) {
  record(request);
  std::string redirect;
  {
    const std::lock_guard lock(m_mutex);
    redirect = m_redirect;
  }
  if (!redirect.empty()) return response("302 Found", {"Location: " + redirect + request.target}, "");
  if (!authorized(request)) {
    // No body: libgit2 1.5 reconnects after "Connection: close" but keeps parsing the unread body
    // of the 401 as if it began the next response ("http parser error: invalid constant string").
    return response("401 Unauthorized", {"WWW-Authenticate: Basic realm=\"test\""}, "");
  }
  const ProcessResult cgi = run_process({"git", "http-backend"}, cgi_options(request));
  if (cgi.out.empty()) return response("500 Internal Server Error", {}, cgi.err);
  return cgi_to_http(cgi.out);
}

void GitHttpServer::record(const CgiRequest& request) {
  const std::lock_guard lock(m_mutex);
  m_requests.push_back(request.method + " " + request.target);
  const std::string authorization = request.header("authorization");
  if (!authorization.empty()) m_authorization_headers.push_back(authorization);
}

// The CGI/1.1 variables http-backend reads, and the request body on its stdin.
RunOptions GitHttpServer::cgi_options(const CgiRequest& request) const {
  const auto question = request.target.find('?');
  const std::string credentials = request.basic_credentials();
  RunOptions options = isolated_git_options();
  options.env["GIT_PROJECT_ROOT"] = m_root.string();
  options.env["GIT_HTTP_EXPORT_ALL"] = "1";
  options.env["GATEWAY_INTERFACE"] = "CGI/1.1";
  options.env["SERVER_PROTOCOL"] = "HTTP/1.1";
  options.env["SERVER_NAME"] = "127.0.0.1";
  options.env["SERVER_PORT"] = std::to_string(m_port);
  options.env["REMOTE_ADDR"] = "127.0.0.1";
  options.env["REMOTE_USER"] = credentials.substr(0, credentials.find(':'));
  options.env["REQUEST_METHOD"] = request.method;
  options.env["PATH_INFO"] = percent_decode(request.target.substr(0, question));
  options.env["QUERY_STRING"] = question == std::string::npos ? "" : request.target.substr(question + 1);
  options.env["CONTENT_TYPE"] = request.header("content-type");
  options.env["CONTENT_LENGTH"] = std::to_string(request.body.size());  // after de-chunking
  options.env["HTTP_CONTENT_ENCODING"] = request.header("content-encoding");
  options.env["GIT_PROTOCOL"] = request.header("git-protocol");
  options.stdin_text = request.body;
  options.timeout_seconds = 60;
  return options;
}

bool GitHttpServer::authorized(const CgiRequest& request) const {
  std::string token;
  {
    const std::lock_guard lock(m_mutex);
    token = m_token;
  }
  if (token.empty()) return true;
  const std::string credentials = request.basic_credentials();
  const auto colon = credentials.find(':');
  return colon != std::string::npos && credentials.substr(colon + 1) == token;
}

}  // namespace aaw::test
