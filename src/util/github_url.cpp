// Which GitHub repository a remote URL names, for the forms people paste: https and http (with or
// without credentials, a port, ".git" or a final slash), scp-like "git@host:o/n.git", and
// ssh://git@host[:port]/o/n.git. Anything else, another host included, is not a GitHub remote.
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>

#include "util/url.hpp"

namespace aaw {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool valid_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

std::string_view without_dot_git(std::string_view path) {
  return path.size() > 4 && path.substr(path.size() - 4) == ".git" ? path.substr(0, path.size() - 4) : path;
}

// "o/n", "o/n.git", "o/n/" -> "o/n"; nullopt for any other shape.
std::optional<std::string> owner_and_name(std::string_view path) {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  if (!path.empty() && path.back() == '/') path.remove_suffix(1);
  path = without_dot_git(path);
  const auto slash = path.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto owner = path.substr(0, slash);
  const auto name = path.substr(slash + 1);
  if (!valid_name(owner) || !valid_name(name)) return std::nullopt;
  return std::string(owner) + "/" + std::string(name);
}

// "user:pw@host:port" -> "host".
std::string_view host_of(std::string_view authority) {
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  if (const auto colon = authority.find(':'); colon != std::string_view::npos)
    authority = authority.substr(0, colon);
  return authority;
}

}  // namespace

std::optional<std::string> github_repo_of(std::string_view url, std::string_view host) {
  if (const auto scheme_end = url.find("://"); scheme_end != std::string_view::npos) {
    const auto scheme = url.substr(0, scheme_end);
    if (!iequals(scheme, "https") && !iequals(scheme, "http") && !iequals(scheme, "ssh") &&
        !iequals(scheme, "git"))
      return std::nullopt;
    const auto rest = url.substr(scheme_end + 3);
    const auto slash = rest.find('/');
    if (slash == std::string_view::npos || !iequals(host_of(rest.substr(0, slash)), host))
      return std::nullopt;
    auto path = rest.substr(slash);
    if (path.find_first_of("?#") != std::string_view::npos) return std::nullopt;
    return owner_and_name(path);
  }
  // scp-like: [user@]host:owner/name(.git)
  const auto colon = url.find(':');
  if (colon == std::string_view::npos || !iequals(host_of(url.substr(0, colon)), host)) return std::nullopt;
  return owner_and_name(url.substr(colon + 1));
}

bool is_github_repo_name(std::string_view text) {
  auto repo = owner_and_name(text);
  return repo && *repo == text;
}

std::optional<std::string> watched_github_repo(std::string_view repository_url, std::string_view api_url) {
  if (auto repo = github_repo_of(repository_url)) return repo;
  std::string api_host = url_host(api_url);
  if (api_host.empty() || api_host == "api.github.com") return std::nullopt;
  return github_repo_of(repository_url, api_host);
}

std::optional<std::string> commit_url(std::string_view repository_url, std::string_view sha) {
  auto repo = github_repo_of(repository_url);
  if (!repo || sha.empty()) return std::nullopt;
  return "https://github.com/" + *repo + "/commit/" + std::string(sha);
}

namespace {

// The digits at `text[at]` onwards, or "" when there are none.
std::string digits_at(std::string_view text, std::size_t at) {
  std::size_t end = at;
  while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
  return std::string(text.substr(at, end - at));
}

// The last component of a repository's path or URL without ".git": "aiter" for
// "git://host/x/aiter.git/" or "/srv/aiter".
std::string repository_name(std::string_view url) {
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  if (auto slash = url.find_last_of("/:"); slash != std::string_view::npos) url.remove_prefix(slash + 1);
  return std::string(without_dot_git(url));
}

std::string pull_request_number(std::string_view subject) {
  constexpr std::string_view merge = "Merge pull request #";
  if (subject.substr(0, merge.size()) == merge) return digits_at(subject, merge.size());
  while (!subject.empty() && subject.back() == ' ') subject.remove_suffix(1);
  if (subject.empty() || subject.back() != ')') return "";
  auto open = subject.rfind("(#");
  if (open == std::string_view::npos) return "";
  std::string number = digits_at(subject, open + 2);
  return open + 2 + number.size() + 1 == subject.size() ? number : "";
}

}  // namespace

std::optional<std::string> pull_request_of_subject(std::string_view repository_url, std::string_view subject,
                                                   std::string_view web_url) {
  std::string number = pull_request_number(subject);
  if (number.empty()) return std::nullopt;
  if (auto repo = github_repo_of(repository_url)) return "https://github.com/" + *repo + "/pull/" + number;
  while (!web_url.empty() && web_url.back() == '/') web_url.remove_suffix(1);
  if (!web_url.empty()) return std::string(web_url) + "/pull/" + number;
  return repository_name(repository_url) + "#" + number;
}

}  // namespace aaw
