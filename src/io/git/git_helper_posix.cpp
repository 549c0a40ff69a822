// Both sides of the git helper. The parent starts `PROGRAM __git` with posix_spawn (safe in a
// process with threads), writes the request to its stdin and reads its lines with poll(), so that
// it notices a silent remote (no line for the stall timeout) and a stop request (looked at every
// 50 ms) while libgit2 in the helper is blocked in a read that nothing could interrupt.
#include "io/git/git_helper_posix.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/ports/sandbox.hpp"
#include "io/git/helper_report.hpp"
#include "io/posix/pipe_child_posix.hpp"
#include "util/unique_fd.hpp"
#include "util/url.hpp"

extern char** environ;

namespace aaw {
namespace detail {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr auto k_tick = std::chrono::milliseconds(50);
// Progress lines are a sign of life, not a report: a few a second are plenty.
constexpr auto k_progress_interval = std::chrono::milliseconds(200);
constexpr std::string_view k_result_prefix = "result ";

Json request_json(const RemoteRequest& request) {
  return {
      {"op", op_name(request.op)}, {"url", request.url},     {"repository", request.repository.string()},
      {"branch", request.branch},  {"token", request.token}, {"parent", static_cast<long long>(::getpid())}};
}

std::optional<RemoteRequest> request_from(const Json& json) {
  if (!json.is_object()) return std::nullopt;
  RemoteRequest request;
  const std::string op = json.value("op", "");
  if (op == "clone") {
    request.op = RemoteOp::clone;
  } else if (op == "ls-remote") {
    request.op = RemoteOp::ls_remote;
  } else if (op == "repack") {
    request.op = RemoteOp::repack;
  } else if (op != "fetch") {
    return std::nullopt;
  }
  request.url = json.value("url", "");
  request.repository = json.value("repository", "");
  request.branch = json.value("branch", "");
  request.token = json.value("token", "");
  return request;
}

Json result_json(const Result<std::optional<ObjectId>>& result) {
  if (!result) return error_report(result.error());
  Json out = {{"ok", true}};
  if (*result) out["head"] = (*result)->hex;
  return out;
}

Result<std::optional<ObjectId>> result_from(const std::string& text) {
  const Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (auto error = error_in_report(json, "the git helper")) return *error;
  if (!json.contains("head")) return std::optional<ObjectId>();
  return std::optional<ObjectId>(ObjectId{json.value("head", "")});
}

// Reads the helper's lines until its result, its end, a stall or a stop request.
class HelperSession {
 public:
  HelperSession(PipeChild helper, const RemoteRequest& request, const HelperOptions& options)
      : m_helper(std::move(helper)), m_request(request), m_options(options) {
    ::fcntl(m_helper.output.get(), F_SETFL, O_NONBLOCK);
  }
  HelperSession(const HelperSession&) = delete;
  HelperSession& operator=(const HelperSession&) = delete;

  Result<std::optional<ObjectId>> run() {
    if (!write_to_child(m_helper.input.get(), request_json(m_request).dump() + "\n"))
      return finish(std::nullopt);
    m_helper.input.reset();
    m_last_sign_of_life = Clock::now();
    while (m_helper.output.valid() && !m_result) {
      if (m_options.stop_requested && m_options.stop_requested())
        return abandon(Error(ErrorCode::cancelled, what() + ": stop requested"));
      if (m_options.stall_timeout && Clock::now() - m_last_sign_of_life > *m_options.stall_timeout)
        return abandon(Error(ErrorCode::network, what() + ": the remote sent nothing for " +
                                                     std::to_string(m_options.stall_timeout->count()) +
                                                     " s (git.timeout_seconds)"));
      read_lines();
    }
    return finish(m_result);
  }

 private:
  std::string what() const { return what_failed(m_request); }

  void read_lines() {
    pollfd fd{m_helper.output.get(), POLLIN, 0};
    if (::poll(&fd, 1, static_cast<int>(k_tick.count())) <= 0) return;
    char buffer[4096];
    const ssize_t n = ::read(m_helper.output.get(), buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) {
      m_helper.output.reset();
      return;
    }
    m_pending.append(buffer, static_cast<std::size_t>(n));
    for (auto end = m_pending.find('\n'); end != std::string::npos; end = m_pending.find('\n')) {
      const std::string line = m_pending.substr(0, end);
      m_pending.erase(0, end + 1);
      m_last_sign_of_life = Clock::now();
      if (line.rfind(k_result_prefix, 0) == 0) m_result = line.substr(k_result_prefix.size());
    }
  }

  Result<std::optional<ObjectId>> abandon(Error error) {
    ::kill(m_helper.pid, SIGKILL);
    reap(m_helper.pid);
    return error;
  }

  Result<std::optional<ObjectId>> finish(const std::optional<std::string>& result) {
    const int status = reap(m_helper.pid);
    if (result) return result_from(*result);
    return Error(ErrorCode::io, what() + ": the git helper " + describe_exit(status) + " without a result");
  }

  PipeChild m_helper;
  const RemoteRequest& m_request;
  const HelperOptions& m_options;
  Clock::time_point m_last_sign_of_life;
  std::string m_pending;
  std::optional<std::string> m_result;
};

}  // namespace

Result<std::optional<ObjectId>> run_remote_in_helper(const RemoteRequest& request,
                                                     const HelperOptions& options) {
  auto helper = spawn_pipe_child(options.program, {"__git"}, "the git helper");
  if (!helper) return helper.error();
  return HelperSession(std::move(*helper), request, options).run();
}

}  // namespace detail

int run_git_helper() {
  using detail::k_progress_interval;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  ::prctl(PR_SET_DUMPABLE, 0);  // the token is in this process's memory
  std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  const auto json = detail::Json::parse(text, nullptr, /*allow_exceptions=*/false);
  const auto request = json.is_discarded() ? std::nullopt : detail::request_from(json);
  if (!request) {
    std::cerr << "aiter-api-watcher: error: __git: unreadable request on stdin\n";
    return 2;
  }
  const long long parent = json.value("parent", 0LL);
  if (parent != 0 && ::getppid() != parent) return 2;  // the parent died before PDEATHSIG was set
  auto last = detail::Clock::now() - k_progress_interval;
  auto result = detail::run_remote(*request, [&last] {
    const auto now = detail::Clock::now();
    if (now - last < k_progress_interval) return;
    last = now;
    detail::write_all(STDOUT_FILENO, "progress\n");
  });
  const std::string line = std::string(detail::k_result_prefix) + detail::result_json(result).dump() + "\n";
  return detail::write_all(STDOUT_FILENO, line) ? 0 : 2;
}

}  // namespace aaw
