// An HttpTransport for unit tests: records every request and answers from a script, in order.
// Unscripted requests answer an internal Error, so a test never passes on a default by accident.
//   FakeHttp http;
//   http.respond(200, R"({"number": 7})");
//   http.fail(ErrorCode::network, "connection refused");
//   ... code under test ...
//   EXPECT_EQ(http.requests().at(0).url, "https://api.github.com/...");
#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/ports/http_transport.hpp"

namespace aaw::test {

class FakeHttp final : public HttpTransport {
 public:
  void respond(int status, std::string body = {}, HttpHeaders headers = {}) {
    HttpResponse response;
    response.status = status;
    response.body = std::move(body);
    response.headers = std::move(headers);
    push(std::move(response));
  }
  void fail(ErrorCode code, std::string message) { push(Error(code, std::move(message))); }
  // Answers every request the script does not, from now on.
  void otherwise(std::function<Result<HttpResponse>(const HttpRequest&)> handler) {
    const std::lock_guard lock(m_mutex);
    m_handler = std::move(handler);
  }

  Result<HttpResponse> perform(const HttpRequest& request) override {
    const std::lock_guard lock(m_mutex);
    m_requests.push_back(request);
    if (!m_script.empty()) {
      Result<HttpResponse> next = std::move(m_script.front());
      m_script.pop_front();
      return next;
    }
    if (m_handler) return m_handler(request);
    return Error(ErrorCode::internal,
                 "FakeHttp: no answer scripted for " + request.method + " " + request.url);
  }

  std::vector<HttpRequest> requests() const {
    const std::lock_guard lock(m_mutex);
    return m_requests;
  }
  std::size_t pending() const {
    const std::lock_guard lock(m_mutex);
    return m_script.size();
  }

 private:
  void push(Result<HttpResponse> answer) {
    const std::lock_guard lock(m_mutex);
    m_script.push_back(std::move(answer));
  }

  mutable std::mutex m_mutex;
  std::deque<Result<HttpResponse>> m_script;
  std::function<Result<HttpResponse>(const HttpRequest&)> m_handler;
  std::vector<HttpRequest> m_requests;
};

}  // namespace aaw::test
