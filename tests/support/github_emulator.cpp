// One thread accepts a connection, reads one request into memory, answers it and closes: that is
// all an HTTP client needs, and it keeps the faults deterministic (a delayed reply holds up the
// next request, as a stuck server would). The state lock is never held across socket I/O or a
// delay, so a test may change the world while a request is in flight. What it answers is in
// github_emulator_routes.cpp.
#include "support/github_emulator.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "support/socket_io.hpp"
#include "support/text.hpp"
#include "util/strings.hpp"

namespace aaw::test {
namespace {

std::string reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 301:
      return "Moved Permanently";
    case 302:
      return "Found";
    case 304:
      return "Not Modified";
    case 307:
      return "Temporary Redirect";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 410:
      return "Gone";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

std::int64_t epoch_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::optional<RecordedRequest> read_request(int client) {
  SocketReader in(client, k_request_timeout);
  const auto request_line = in.line();
  if (!request_line) return std::nullopt;
  const auto parts = split(*request_line, ' ');
  if (parts.size() != 3) return std::nullopt;
  RecordedRequest request;
  request.method = parts[0];
  request.target = parts[1];
  for (auto header = in.line(); header && !header->empty(); header = in.line()) {
    const auto colon = header->find(':');
    if (colon == std::string::npos) continue;
    auto [it, inserted] =
        request.headers.try_emplace(trim(header->substr(0, colon)), trim(header->substr(colon + 1)));
    if (!inserted) it->second += ", " + trim(header->substr(colon + 1));
  }
  std::optional<std::string> body = std::string();
  if (request.header("transfer-encoding").find("chunked") != std::string::npos) {
    std::string chunked;
    for (;;) {
      const auto size_line = in.line();
      if (!size_line) return std::nullopt;
      const std::size_t size = std::stoul(*size_line, nullptr, 16);
      if (size == 0) break;
      const auto chunk = in.exactly(size + 2);
      if (!chunk) return std::nullopt;
      chunked += chunk->substr(0, size);
    }
    for (auto trailer = in.line(); trailer && !trailer->empty(); trailer = in.line()) {
    }
    body = chunked;
  } else if (const std::string length = request.header("content-length"); !length.empty()) {
    body = in.exactly(std::stoul(length));
  }
  if (!body) return std::nullopt;
  request.body = std::move(*body);
  return request;
}

int listen_on(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("cannot create a socket");
  const int yes = 1;
  // Back up on the same port although the connections of before linger in TIME_WAIT.
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd, 64) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot listen on 127.0.0.1:" + std::to_string(port));
  }
  return fd;
}

int port_of(int fd) {
  sockaddr_in address{};
  socklen_t length = sizeof address;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    throw std::runtime_error("cannot read the listening port");
  return ntohs(address.sin_port);
}

}  // namespace

std::string RecordedRequest::header(std::string_view name) const {
  const auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

std::string GithubEmulator::Reply::wire() const {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + reason(status) + "\r\n";
  for (const auto& [name, value] : headers) out += name + ": " + value + "\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  return out + body;
}

GithubEmulator::GithubEmulator() {
  m_listen_fd = listen_on(0);
  m_port = port_of(m_listen_fd);
  m_reset = epoch_now() + 3600;
  if (::pipe2(m_wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    ::close(m_listen_fd);
    throw std::runtime_error("cannot create a pipe");
  }
  m_thread = std::thread([this] { serve(); });
}

GithubEmulator::~GithubEmulator() {
  {
    const std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  wake();
  m_thread.join();
  if (m_listen_fd >= 0) ::close(m_listen_fd);
  ::close(m_wake_pipe[0]);
  ::close(m_wake_pipe[1]);
}

std::string GithubEmulator::url() const { return "http://127.0.0.1:" + std::to_string(m_port); }

std::string GithubEmulator::hook_url(const std::string& name) const { return url() + "/hooks/" + name; }

void GithubEmulator::wake() const {
  const char byte = 'x';
  [[maybe_unused]] const ssize_t ignored = ::write(m_wake_pipe[1], &byte, 1);
}

// ---- state --------------------------------------------------------------------------------------

void GithubEmulator::set_branch(const std::string& repo, const std::string& branch, const std::string& sha) {
  const std::lock_guard lock(m_mutex);
  m_repos[repo].branches[branch] = sha;
}

void GithubEmulator::set_pulls(const std::string& repo, const std::string& sha,
                               std::vector<EmulatedPull> pulls) {
  const std::lock_guard lock(m_mutex);
  m_repos[repo].pulls[sha] = std::move(pulls);
}

std::int64_t GithubEmulator::add_issue(const std::string& repo, const std::string& title,
                                       const std::string& body, bool pull_request) {
  const std::lock_guard lock(m_mutex);
  Repo& state = m_repos[repo];
  EmulatedIssue issue;
  issue.number = state.next_number++;
  issue.title = title;
  issue.body = body;
  issue.pull_request = pull_request;
  state.issues.push_back(issue);
  return issue.number;
}

void GithubEmulator::close_issue(const std::string& repo, std::int64_t number) {
  const std::lock_guard lock(m_mutex);
  for (auto& issue : m_repos[repo].issues) {
    if (issue.number == number) issue.open = false;
  }
}

std::vector<EmulatedIssue> GithubEmulator::issues(const std::string& repo) const {
  const std::lock_guard lock(m_mutex);
  const auto it = m_repos.find(repo);
  return it == m_repos.end() ? std::vector<EmulatedIssue>() : it->second.issues;
}

void GithubEmulator::require_token(std::string token) {
  const std::lock_guard lock(m_mutex);
  m_token = std::move(token);
}

void GithubEmulator::set_rate_limit(int limit, std::int64_t reset_epoch) {
  const std::lock_guard lock(m_mutex);
  m_limit = limit;
  m_used = 0;
  m_reset = reset_epoch;
}

int GithubEmulator::rate_limit_used() const {
  const std::lock_guard lock(m_mutex);
  return m_used;
}

void GithubEmulator::set_hook_status(const std::string& name, int status) {
  const std::lock_guard lock(m_mutex);
  m_hook_status[name] = status;
}

std::vector<std::string> GithubEmulator::hook_bodies(const std::string& name) const {
  const std::lock_guard lock(m_mutex);
  const auto it = m_hook_bodies.find(name);
  return it == m_hook_bodies.end() ? std::vector<std::string>() : it->second;
}

bool GithubEmulator::wait_for_hook(const std::string& name, std::size_t count,
                                   std::chrono::milliseconds timeout) const {
  std::unique_lock lock(m_mutex);
  return m_changed.wait_for(lock, timeout, [&] {
    const auto it = m_hook_bodies.find(name);
    return it != m_hook_bodies.end() && it->second.size() >= count;
  });
}

// ---- faults -------------------------------------------------------------------------------------

void GithubEmulator::inject(Fault fault) {
  const std::lock_guard lock(m_mutex);
  m_faults.push_back(std::move(fault));
}

void GithubEmulator::fail_next(int times, int status, std::string path_prefix) {
  inject({Fault::Kind::status, times, std::move(path_prefix), status, 0, 0, {}, {}});
}

void GithubEmulator::rate_limit_next(std::int64_t reset_epoch, int times, int status) {
  inject({Fault::Kind::primary_rate_limit, times, {}, status, reset_epoch, 0, {}, {}});
}

void GithubEmulator::retry_after_next(int seconds, int times, int status) {
  inject({Fault::Kind::retry_after, times, {}, status, 0, seconds, {}, {}});
}

void GithubEmulator::secondary_limit_next(int times, int status) {
  inject({Fault::Kind::secondary_rate_limit, times, {}, status, 0, 0, {}, {}});
}

void GithubEmulator::delay_next(std::chrono::milliseconds delay, int times) {
  inject({Fault::Kind::delay, times, {}, 200, 0, 0, delay, {}});
}

void GithubEmulator::drop_next(int times) { inject({Fault::Kind::drop, times, {}, 0, 0, 0, {}, {}}); }

void GithubEmulator::redirect_next(std::string location, int times, int status) {
  inject({Fault::Kind::redirect, times, {}, status, 0, 0, {}, std::move(location)});
}

void GithubEmulator::clear_faults() {
  const std::lock_guard lock(m_mutex);
  m_faults.clear();
}

void GithubEmulator::go_down() {
  std::unique_lock lock(m_mutex);
  m_want_down = true;
  wake();
  // The serving thread polls the listening socket, so it is the one to close it.
  m_changed.wait(lock, [this] { return m_listen_fd < 0; });
}

void GithubEmulator::go_up() {
  {
    const std::lock_guard lock(m_mutex);
    if (m_listen_fd >= 0) return;  // not down
  }
  const int fd = listen_on(m_port);
  {
    const std::lock_guard lock(m_mutex);
    m_want_down = false;
    m_listen_fd = fd;
  }
  wake();
}

bool GithubEmulator::take_fault(const std::string& path, Fault& out) {
  const std::lock_guard lock(m_mutex);
  for (auto it = m_faults.begin(); it != m_faults.end(); ++it) {
    if (path.rfind(it->path_prefix, 0) != 0) continue;
    out = *it;
    if (--it->times <= 0) m_faults.erase(it);
    return true;
  }
  return false;
}

// ---- recording ----------------------------------------------------------------------------------

std::vector<RecordedRequest> GithubEmulator::requests() const {
  const std::lock_guard lock(m_mutex);
  return m_requests;
}

std::size_t GithubEmulator::request_count() const {
  const std::lock_guard lock(m_mutex);
  return m_requests.size();
}

void GithubEmulator::clear_requests() {
  const std::lock_guard lock(m_mutex);
  m_requests.clear();
}

// ---- serving ------------------------------------------------------------------------------------

void GithubEmulator::serve() {
  for (;;) {
    int listen_fd = -1;
    {
      const std::lock_guard lock(m_mutex);
      if (m_stopping) return;
      if (m_want_down && m_listen_fd >= 0) {
        ::close(m_listen_fd);  // the kernel refuses connections from now on
        m_listen_fd = -1;
        m_changed.notify_all();
      }
      listen_fd = m_listen_fd;
    }
    pollfd fds[2] = {{m_wake_pipe[0], POLLIN, 0}, {listen_fd, POLLIN, 0}};
    if (::poll(fds, listen_fd >= 0 ? 2 : 1, -1) < 0) continue;
    if (fds[0].revents != 0) {
      char drain[64];
      while (::read(m_wake_pipe[0], drain, sizeof drain) > 0) {
      }
      continue;
    }
    if (listen_fd < 0 || (fds[1].revents & POLLIN) == 0) continue;
    const int client = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    try {
      handle(client);
    } catch (const std::exception&) {
      // A malformed request: drop that connection, keep serving.
    }
    ::close(client);
  }
}

void GithubEmulator::handle(int client) {
  auto request = read_request(client);
  if (!request) return;
  {
    const std::lock_guard lock(m_mutex);
    m_requests.push_back(*request);
  }
  Fault fault;
  if (take_fault(request->path(), fault)) {
    if (fault.kind == Fault::Kind::drop) return;
    if (fault.kind == Fault::Kind::delay) {
      if (!apply_delay(client, fault.delay)) return;
    } else {
      send_all(client, fault_reply(fault).wire());
      ::shutdown(client, SHUT_WR);
      return;
    }
  }
  const Reply reply = respond(*request);
  {
    const std::lock_guard lock(m_mutex);
    m_changed.notify_all();  // a webhook body, say
  }
  send_all(client, reply.wire());
  ::shutdown(client, SHUT_WR);
}

// False when the client hung up (it timed out) or the emulator is stopping: nobody to answer.
bool GithubEmulator::apply_delay(int client, std::chrono::milliseconds delay) const {
  const auto deadline = std::chrono::steady_clock::now() + delay;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return true;
    {
      const std::lock_guard lock(m_mutex);
      if (m_stopping) return false;
    }
    // The whole request has been read, so the client's socket turns readable only at its EOF.
    pollfd fd{client, POLLIN, 0};
    if (::poll(&fd, 1, static_cast<int>(std::min<long long>(left.count(), 50))) > 0) return false;
  }
}

}  // namespace aaw::test
