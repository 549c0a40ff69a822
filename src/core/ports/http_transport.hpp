// One HTTP exchange, behind an interface: the real one is libcurl (curl_http_transport.cpp); tests
// use a fake that records requests, or the real one against a server on 127.0.0.1.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace aaw {

// Header names compare case-insensitively (HTTP/2 sends them in lower case).
struct CaseInsensitiveLess {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const;
};
using HttpHeaders = std::map<std::string, std::string, CaseInsensitiveLess>;

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  HttpHeaders headers;  // may carry Authorization: the transport never logs or echoes headers
  std::string body;
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds total_timeout{30'000};
};

struct HttpResponse {
  int status = 0;
  HttpHeaders headers;
  std::string body;

  // The header's value, or nullopt.
  std::optional<std::string> header(std::string_view name) const;
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Performs the request. Any HTTP status is a response, a redirect too (never followed: the
  // caller decides whether the Location may see its headers); an Error (network, or timeout for
  // total_timeout) only when no response arrived: refused, reset, DNS, TLS, timed out. Error
  // messages name the method and the URL without credentials or query, never the headers.
  virtual Result<HttpResponse> perform(const HttpRequest& request) = 0;
};

}  // namespace aaw
