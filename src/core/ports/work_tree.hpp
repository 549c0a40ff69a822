// One persistent checkout of the watched repository (state_dir/work/), moved from commit to commit
// so that a build can be incremental: only the files that differ are rewritten, files the new
// commit no longer tracks disappear, and untracked build outputs stay. Its objects are the
// mirror's (no second copy of the history). The real implementation is libgit2
// (src/io/git/libgit2_work_tree.cpp); no libgit2 type crosses this interface.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ports/git_mirror.hpp"
#include "core/report/log.hpp"
#include "util/result.hpp"

namespace aaw {

class WorkTree {
 public:
  virtual ~WorkTree() = default;

  // The directory holding the files (its .git/ is ours).
  virtual const std::filesystem::path& path() const = 0;

  // Makes the files those of `commit` (detached HEAD), logging "Checking out commit <sha>".
  // With `submodules`, every submodule of the commit is initialised and moved to its recorded
  // commit too ("Updating submodules"), cloning or fetching it when that commit is not here yet.
  // not_found when the commit is missing from the mirror; network naming the submodule and its
  // URL when a submodule cannot be fetched; cancelled when the stop predicate given to
  // open_work_tree turned true during a submodule fetch; git or io otherwise.
  virtual Result<void> checkout(const ObjectId& commit, bool submodules) = 0;

  // The commit the files are at, when a checkout has completed.
  virtual std::optional<ObjectId> head() const = 0;

  // The paths that differ between the trees of two commits (added, removed, modified; a changed
  // submodule is its path), in no particular order. not_found when a commit is missing.
  virtual Result<std::vector<std::string>> changed_paths(const ObjectId& from, const ObjectId& to) = 0;
};

}  // namespace aaw
