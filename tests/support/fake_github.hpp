// A GitHub client for the notifier's unit tests: issues and pull requests in memory, every call
// counted, and errors on demand.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "core/ports/github_client.hpp"

namespace aaw::test {

class FakeGithub final : public GithubClient {
 public:
  struct Issue {
    std::string repo;
    std::string title;
    std::string body;
    std::vector<std::string> labels;
    IssueRef ref;
  };

  std::vector<Issue> issues;
  std::map<std::string, PullRequest> pulls;  // by commit SHA
  // Errors the next calls of each kind return, in order (then they succeed).
  std::deque<Error> find_errors, create_errors, pull_errors;
  int find_calls = 0;
  int create_calls = 0;
  int pull_calls = 0;

  Result<HeadPoll> branch_head(std::string_view, std::string_view, std::string_view) override {
    return Error(ErrorCode::internal, "FakeGithub: branch_head is not faked");
  }

  Result<std::optional<PullRequest>> pull_request_for(std::string_view, std::string_view sha) override {
    ++pull_calls;
    if (auto error = next(pull_errors)) return *error;
    auto found = pulls.find(std::string(sha));
    if (found == pulls.end()) return std::optional<PullRequest>();
    return std::optional<PullRequest>(found->second);
  }

  Result<std::optional<IssueRef>> find_issue(std::string_view repo, std::string_view marker) override {
    ++find_calls;
    if (auto error = next(find_errors)) return *error;
    for (const Issue& issue : issues)
      if (issue.repo == repo && issue.body.find(marker) != std::string::npos)
        return std::optional<IssueRef>(issue.ref);
    return std::optional<IssueRef>();
  }

  Result<IssueRef> create_issue(std::string_view repo, std::string_view title, std::string_view body,
                                const std::vector<std::string>& labels) override {
    ++create_calls;
    if (auto error = next(create_errors)) return *error;
    auto number = static_cast<std::int64_t>(issues.size() + 1);
    IssueRef ref{number, "https://github.com/" + std::string(repo) + "/issues/" + std::to_string(number)};
    issues.push_back(Issue{std::string(repo), std::string(title), std::string(body), labels, ref});
    return ref;
  }

 private:
  static std::optional<Error> next(std::deque<Error>& errors) {
    if (errors.empty()) return std::nullopt;
    Error error = errors.front();
    errors.pop_front();
    return error;
  }
};

}  // namespace aaw::test
