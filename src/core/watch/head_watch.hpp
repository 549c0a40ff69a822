// Where each poll learns the watched branch's head. `git ls-remote` works with any remote; on
// GitHub the REST API with an ETag is cheaper still: an unchanged head answers 304, which costs no
// rate limit and no pack negotiation. Either way the mirror is fetched only when the head moved.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/model/config.hpp"
#include "core/ports/git_mirror.hpp"
#include "core/ports/github_client.hpp"
#include "core/ports/state_store.hpp"
#include "core/report/log.hpp"
#include "util/result.hpp"

namespace aaw {

class HeadWatch {
 public:
  virtual ~HeadWatch() = default;
  // The branch's head on the remote now; an Error when the remote cannot be asked.
  virtual Result<ObjectId> head(std::string_view branch) = 0;
  virtual std::string_view method() const = 0;  // "git" or "api", for the log
};

// `git ls-remote` through the mirror.
class GitHeadWatch final : public HeadWatch {
 public:
  explicit GitHeadWatch(GitMirror& mirror) : m_mirror(mirror) {}
  Result<ObjectId> head(std::string_view branch) override { return m_mirror.remote_head(branch); }
  std::string_view method() const override { return "git"; }

 private:
  GitMirror& m_mirror;
};

// GET /repos/{repo}/commits/{branch} with If-None-Match. The ETag and the head it stands for are
// kept in the state store, so a restart still polls with a 304. When the API fails (rate limit,
// outage) the poll asks git instead, logged once per outage: the API is an optimisation, never a
// single point of failure.
class GithubHeadWatch final : public HeadWatch {
 public:
  GithubHeadWatch(std::string repo, GithubClient& client, GitMirror& mirror, StateStore& store, Logger& log)
      : m_repo(std::move(repo)), m_client(client), m_git(mirror), m_store(store), m_log(log) {}
  Result<ObjectId> head(std::string_view branch) override;
  std::string_view method() const override { return "api"; }

 private:
  Result<ObjectId> ask_api(std::string_view branch);

  std::string m_repo;
  GithubClient& m_client;
  GitHeadWatch m_git;
  StateStore& m_store;
  Logger& m_log;
  bool m_api_failing = false;
};

// The repository's "owner/name" when polling should use the API for `config`, nullopt when git:
// github.poll "git" → git; "api" → the API (invalid_input when the remote is not on GitHub's host
// or the host of github.api_url); "auto" → the API when the remote is there and a token is set.
Result<std::optional<std::string>> api_poll_repo(const Config& config, bool have_token);

}  // namespace aaw
