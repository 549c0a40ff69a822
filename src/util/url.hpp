// Small facts about URLs the daemon needs without a URL library: hosts, credentials to hide, and
// which GitHub repository a remote names.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace aaw {

// The host of "scheme://[user@]host[:port]/..." in lower case, or of scp-like "user@host:path";
// empty when there is none (a local path).
std::string url_host(std::string_view url);

// `url` without the user:password@ part of every URL in it, for messages and logs.
std::string redact_url(std::string_view url);

// The directory a repository URL names on this machine: the URL itself when it is neither a URL
// with a scheme nor scp-like "host:path", the path of a file:// URL; nullopt for a remote.
std::optional<std::string> local_repository_path(std::string_view url);

// True for "http://host..." or "https://host..." (scheme in any case) with a host.
bool is_http_url(std::string_view url);

// True for a repository as GitHub's API names it: "owner/name" (letters, digits, '-', '_', '.').
bool is_github_repo_name(std::string_view text);

// "owner/name" of a GitHub repository URL (https://github.com/o/n(.git), git@github.com:o/n.git,
// ssh://...), or nullopt when the URL is not on `host` (default github.com).
std::optional<std::string> github_repo_of(std::string_view url, std::string_view host = "github.com");

// "owner/name" of the watched repository on github.com, or on the GitHub Enterprise host that
// `api_url` names (https://ghe.example.com/api/v3); nullopt when it is on neither.
std::optional<std::string> watched_github_repo(std::string_view repository_url, std::string_view api_url);

// "https://github.com/<owner>/<name>/commit/<sha>" when the repository is on github.com.
std::optional<std::string> commit_url(std::string_view repository_url, std::string_view sha);

// The pull request a commit's subject names, as GitHub writes it when it merges one: "... (#123)"
// (squash) or "Merge pull request #123 from ..." (merge commit); nullopt when the subject names
// none. Its URL when the repository is on github.com, else under `web_url` (report.web_url) when
// given, else qualified by the repository's name ("aiter#123" for /srv/aiter.git): a bare "#123"
// pasted into another project's issue would link that project's own #123.
std::optional<std::string> pull_request_of_subject(std::string_view repository_url, std::string_view subject,
                                                   std::string_view web_url = {});

}  // namespace aaw
