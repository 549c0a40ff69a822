// A GitMirror wrapper that injects faults into the calls that reach the remote, letting the
// others through to the real mirror (as leveldb's ErrorEnv does for files).
#pragma once

#include <memory>

#include "core/ports/git_mirror.hpp"

namespace aaw::test {

class FaultyMirror final : public GitMirror {
 public:
  explicit FaultyMirror(GitMirror& inner) : m_inner(inner) {}

  // The next `count` remote_head()/fetch() calls fail with a network error (or `code`'s: io for a
  // full disk).
  void fail_remote(int count, ErrorCode code = ErrorCode::network) {
    m_failures = count;
    m_code = code;
  }
  int remote_calls() const { return m_remote_calls; }
  int fetches() const { return m_fetches; }

  std::string display_url() const override { return m_inner.display_url(); }
  std::filesystem::path path() const override { return m_inner.path(); }
  Result<std::optional<std::string>> maintain() override { return m_inner.maintain(); }
  Result<void> fetch() override {
    ++m_fetches;
    if (auto e = injected()) return *e;
    return m_inner.fetch();
  }
  Result<ObjectId> resolve(std::string_view revision) override { return m_inner.resolve(revision); }
  Result<CommitInfo> commit_info(const ObjectId& commit) override { return m_inner.commit_info(commit); }
  Result<std::unique_ptr<SourceTree>> tree(const ObjectId& commit) override { return m_inner.tree(commit); }
  Result<ObjectId> remote_head(std::string_view branch) override {
    ++m_remote_calls;
    if (auto e = injected()) return *e;
    return m_inner.remote_head(branch);
  }
  Result<std::vector<ObjectId>> first_parent_range(const ObjectId& since, const ObjectId& tip) override {
    return m_inner.first_parent_range(since, tip);
  }
  Result<bool> is_ancestor(const ObjectId& a, const ObjectId& d) override {
    return m_inner.is_ancestor(a, d);
  }
  Result<std::optional<ObjectId>> merge_base(const ObjectId& a, const ObjectId& b) override {
    return m_inner.merge_base(a, b);
  }

 private:
  std::optional<Error> injected() {
    if (m_failures <= 0) return std::nullopt;
    --m_failures;
    if (m_code != ErrorCode::network) return Error(m_code, "injected failure");
    return Error(ErrorCode::network, "cannot reach '" + display_url() + "': injected failure");
  }

  GitMirror& m_inner;
  int m_failures = 0;
  ErrorCode m_code = ErrorCode::network;
  int m_remote_calls = 0;
  int m_fetches = 0;
};

}  // namespace aaw::test
