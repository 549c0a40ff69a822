#include "util/url.hpp"

#include <algorithm>
#include <cctype>

#include "util/strings.hpp"

namespace aaw {

std::string url_host(std::string_view url) {
  std::string_view authority;
  if (auto scheme = url.find("://"); scheme != std::string_view::npos) {
    authority = url.substr(scheme + 3);
    authority = authority.substr(0, authority.find_first_of("/?#"));
  } else if (auto colon = url.find(':');
             colon != std::string_view::npos && url.find('/') > colon && url.find('@') < colon) {
    authority = url.substr(0, colon);  // git@github.com:owner/name.git
  } else {
    return "";
  }
  if (auto at = authority.rfind('@'); at != std::string_view::npos) authority = authority.substr(at + 1);
  if (!authority.empty() && authority.front() == '[') {
    authority = authority.substr(0, authority.find(']') + 1);  // [::1]:8080
  } else if (auto port = authority.rfind(':'); port != std::string_view::npos) {
    authority = authority.substr(0, port);
  }
  std::string host(authority);
  std::transform(host.begin(), host.end(), host.begin(), [](unsigned char c) { return std::tolower(c); });
  return host;
}

bool is_http_url(std::string_view url) {
  auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return false;
  std::string name(url.substr(0, scheme));
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return (name == "http" || name == "https") && !url_host(url).empty() &&
         url.find_first_of(" \t\r\n") == std::string_view::npos;
}

std::string redact_url(std::string_view url) {
  std::string text(url);
  for (auto scheme = text.find("://"); scheme != std::string::npos; scheme = text.find("://", scheme + 3)) {
    const auto host = scheme + 3;
    const auto end = text.find_first_of("/?# \t'\"", host);
    const auto authority = text.substr(host, end == std::string::npos ? end : end - host);
    if (const auto at = authority.rfind('@'); at != std::string::npos) text.erase(host, at + 1);
  }
  return text;
}

std::optional<std::string> local_repository_path(std::string_view url) {
  if (starts_with_ci(url, "file://")) return std::string(url.substr(7));
  const auto colon = url.find(':');
  const bool scp_like = colon != std::string_view::npos && colon < url.find('/');  // "host:path"
  if (url.find("://") != std::string_view::npos || scp_like) return std::nullopt;
  return std::string(url);
}

}  // namespace aaw
