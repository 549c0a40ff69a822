// InMemoryGitMirror: the GitMirror port over commits made in memory, for tests of the core that
// need a history but not libgit2 (tests/support/faulty_mirror.hpp wraps it to make the remote
// fail). The remote's branches are where commit() and set_branch() leave them; fetch() makes the
// mirror's own branches equal to them, remote_head() reads them without fetching. Each commit's
// tree is a FakeSourceTree of its files. Ids are 40 hex digits, stable for the same history.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ports/git_mirror.hpp"

namespace aaw::test {

class InMemoryGitMirror final : public GitMirror {
 public:
  explicit InMemoryGitMirror(std::string url = "https://example.com/pkg.git") : m_url(std::move(url)) {}

  // A commit on the remote's `branch`, whose first parent is the branch's head (none for a new
  // branch): its files are the parent's with `changes` applied (no content: the file is removed).
  ObjectId commit(const std::map<std::string, std::optional<std::string>>& changes,
                  const std::string& subject, const std::string& branch = "main");
  // Moves the remote's `branch` to `commit` (a force-push when it does not descend from the old head).
  void set_branch(const std::string& branch, const ObjectId& commit);
  // The files of `commit`, as its tree reads them.
  const std::map<std::string, std::string>& files(const ObjectId& commit) const;
  int fetches() const { return m_fetches; }

  std::string display_url() const override { return m_url; }
  std::filesystem::path path() const override { return "/in-memory/mirror.git"; }
  Result<void> fetch() override;
  Result<ObjectId> resolve(std::string_view revision) override;
  Result<CommitInfo> commit_info(const ObjectId& commit) override;
  Result<std::unique_ptr<SourceTree>> tree(const ObjectId& commit) override;
  Result<ObjectId> remote_head(std::string_view branch) override;
  Result<std::vector<ObjectId>> first_parent_range(const ObjectId& since, const ObjectId& tip) override;
  Result<bool> is_ancestor(const ObjectId& ancestor, const ObjectId& descendant) override;
  Result<std::optional<ObjectId>> merge_base(const ObjectId& a, const ObjectId& b) override;

 private:
  struct Commit {
    CommitInfo info;
    std::map<std::string, std::string> files;
  };
  Result<const Commit*> find(const ObjectId& commit) const;
  Result<ObjectId> resolve_name(const std::string& name) const;
  std::vector<ObjectId> ancestors(const ObjectId& commit) const;  // itself first, then every ancestor

  std::string m_url;
  std::map<std::string, Commit> m_commits;     // by id
  std::map<std::string, ObjectId> m_remote;    // branch -> head, on the remote
  std::map<std::string, ObjectId> m_branches;  // branch -> head, in the mirror (as of the last fetch)
  int m_fetches = 0;
};

}  // namespace aaw::test
