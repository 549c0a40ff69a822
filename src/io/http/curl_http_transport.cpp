// The real HttpTransport: one libcurl easy handle per request. A fresh handle costs a TLS
// handshake per call, which is nothing at the daemon's pace (a poll an interval, a few
// notifications), and keeps the transport free of shared state, so threads may share it.
//
// Redirects are never followed here: a redirect to another host would carry the Authorization
// header there. The GitHub client decides, per request, whether a Location is safe to follow.
//
// This is the one place CURLcode is translated into aaw::Error. Messages name the request by
// method and URL, the URL without user:password@ and without its query (either may carry a
// secret), and never quote a request header.
#include "io/http/curl_http_transport.hpp"

#include <curl/curl.h>

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "core/ports/git_mirror.hpp"  // redact_url
#include "core/ports/http_transport.hpp"
#include "util/strings.hpp"
#include "util/url.hpp"

namespace aaw {
namespace {

// GitHub answers are kilobytes; anything this large is a misbehaving server, not data we need.
constexpr std::size_t k_max_body = 64U * 1024U * 1024U;

struct EasyFree {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
struct SlistFree {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using EasyPtr = std::unique_ptr<CURL, EasyFree>;
using SlistPtr = std::unique_ptr<curl_slist, SlistFree>;

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// "scheme://host:port/path": no credentials, no query, no fragment.
std::string display_url(std::string_view url) {
  std::string text = redact_url(url);
  if (const auto cut = text.find_first_of("?#"); cut != std::string::npos) text.erase(cut);
  return text;
}

struct Exchange {
  HttpResponse response;
  bool too_large = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto& exchange = *static_cast<Exchange*>(user);
  const std::size_t bytes = size * count;
  if (exchange.response.body.size() + bytes > k_max_body) {
    exchange.too_large = true;
    return 0;  // makes curl stop with CURLE_WRITE_ERROR
  }
  exchange.response.body.append(data, bytes);
  return bytes;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto& headers = static_cast<Exchange*>(user)->response.headers;
  const std::size_t bytes = size * count;
  const std::string_view line(data, bytes);
  if (line.rfind("HTTP/", 0) == 0) {
    headers.clear();  // a new response begins (after "100 Continue", say): only the last counts
  } else if (const auto colon = line.find(':'); colon != std::string_view::npos) {
    std::string name = trim(line.substr(0, colon));
    std::string value = trim(line.substr(colon + 1));
    auto [it, inserted] = headers.try_emplace(std::move(name), value);
    if (!inserted) it->second += ", " + value;  // repeated fields fold into one list (RFC 9110)
  }
  return bytes;
}

SlistPtr header_list(const HttpHeaders& headers) {
  curl_slist* list = nullptr;
  auto append = [&list](const std::string& line) {
    if (curl_slist* grown = curl_slist_append(list, line.c_str())) list = grown;
  };
  for (const auto& [name, value] : headers) {
    append(value.empty() ? name + ";" : name + ": " + value);  // "Name;" sends an empty value
  }
  // curl would otherwise ask "Expect: 100-continue" before large bodies and wait for a reply.
  if (headers.find("Expect") == headers.end()) append("Expect:");
  return SlistPtr(list);
}

void set_method(CURL* curl, const HttpRequest& request) {
  if (request.method == "GET") return;
  if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    return;
  }
  if (request.method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
  } else {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  if (request.method == "POST" || !request.body.empty()) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.c_str());
  }
}

void restrict_protocols(CURL* curl) {
#if LIBCURL_VERSION_NUM >= 0x075500  // 7.85: the string form; the bitmask one is deprecated there
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
#else
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
}

// curl's messages quote host names, never headers; scrubbing the header values anyway keeps the
// promise even if a future libcurl starts to.
std::string scrub(std::string text, const HttpRequest& request) {
  text = redact_url(text);
  for (const auto& [name, value] : request.headers) {
    if (value.size() < 8) continue;
    for (auto at = text.find(value); at != std::string::npos; at = text.find(value, at))
      text.replace(at, value.size(), "***");
  }
  return text;
}

class CurlHttpTransport final : public HttpTransport {
 public:
  Result<HttpResponse> perform(const HttpRequest& request) override {
    global_init();
    const std::string where = request.method + " '" + display_url(request.url) + "'";
    EasyPtr curl(curl_easy_init());
    if (!curl) return Error(ErrorCode::internal, "cannot " + where + ": curl_easy_init failed");
    char error_text[CURL_ERROR_SIZE] = {};
    Exchange exchange;
    const SlistPtr headers = header_list(request.headers);
    CURL* handle = curl.get();
    curl_easy_setopt(handle, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, error_text);
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);  // threads and our signal handlers: no SIGALRM
    curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 0L);
    restrict_protocols(handle);
    curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout.count()));
    curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, static_cast<long>(request.total_timeout.count()));
    curl_easy_setopt(handle, CURLOPT_ACCEPT_ENCODING, "");  // whatever this libcurl can decode
    curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, &exchange);
    curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(handle, CURLOPT_HEADERDATA, &exchange);
    set_method(handle, request);

    const CURLcode code = curl_easy_perform(handle);
    if (code != CURLE_OK) {
      if (exchange.too_large)
        return Error(ErrorCode::network, "cannot " + where + ": the answer is larger than 64 MiB");
      const std::string cause = error_text[0] != '\0' ? error_text : curl_easy_strerror(code);
      const ErrorCode kind = code == CURLE_OPERATION_TIMEDOUT ? ErrorCode::timeout : ErrorCode::network;
      return Error(kind, "cannot " + where + ": " + scrub(cause, request));
    }
    long status = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
    exchange.response.status = static_cast<int>(status);
    return std::move(exchange.response);
  }
};

}  // namespace

std::unique_ptr<HttpTransport> make_curl_transport() {
  global_init();
  return std::make_unique<CurlHttpTransport>();
}

}  // namespace aaw
