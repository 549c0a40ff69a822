// A small non-bare git repository built with the git CLI, for tests of code that reads git
// history. Commits get deterministic dates (one minute apart from a fixed epoch), so their ids
// are the same on every run for the same sequence of calls.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "support/process.hpp"

namespace aaw::test {

class GitFixture {
 public:
  // Creates `dir` (and its parents) and runs `git init -b main` there with a local user.
  // Every method throws std::runtime_error with git's stderr when a git command fails.
  explicit GitFixture(std::filesystem::path dir);

  const std::filesystem::path& path() const { return m_dir; }
  // "file:///abs/path" of the working repository.
  std::string file_url() const;

  // Writes `content` to `relative_path`, creating parent directories.
  void write_file(const std::string& relative_path, std::string_view content);
  void remove_file(const std::string& relative_path);
  // Commits every change, new files included (empty commits allowed); returns the full sha.
  std::string commit(const std::string& message);
  // The same through `git add -A` and `git commit` (what commit() falls back to, and what
  // GitFixtureTest holds it to).
  std::string commit_with_git(const std::string& message);
  // A commit per text on the current branch, each setting `relative_path` to it (the rest of the
  // tree as it is at HEAD, which must exist), messages "<subject> 0", "<subject> 1", ...; returns
  // their full shas, oldest first, and leaves the work tree at the last. As commit() each would be,
  // dated a minute apart, but made by one `git fast-import`: hundreds in a fraction of a second.
  std::vector<std::string> commit_versions(const std::string& relative_path,
                                           const std::vector<std::string>& texts, const std::string& subject);

  void branch(const std::string& name);  // at HEAD, without switching to it
  void checkout(const std::string& name);
  void delete_branch(const std::string& name);
  void tag(const std::string& name);  // lightweight, at HEAD
  void annotated_tag(const std::string& name, const std::string& message);
  void delete_tag(const std::string& name);
  // `git rev-parse --verify`: the full id (an annotated tag gives the tag object: "v1^{commit}").
  std::string rev_parse(const std::string& revision) const;

  // `git clone --bare` of this repository into `dest`; returns `dest`.
  std::filesystem::path bare_clone(const std::filesystem::path& dest) const;
  // `git push --mirror dest`: makes a bare clone's refs equal to ours again (deletions too).
  void push_mirror(const std::filesystem::path& dest) const;

  // Runs `git <args>` in the repository with the fixture's environment; returns stdout.
  std::string git(const std::vector<std::string>& args) const;

 private:
  long long next_date();
  std::string commit_with_git_at(const std::string& message, long long when);

  std::filesystem::path m_dir;
  int m_commits = 0;
};

// The environment every git command of the test support runs with: no system or global config
// (the developer's ~/.gitconfig must not change what tests see), no inherited GIT_DIR.
RunOptions isolated_git_options();

}  // namespace aaw::test
