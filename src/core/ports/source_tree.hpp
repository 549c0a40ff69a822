// A read-only view of the files of one commit, as the static extractor needs them: find a path's
// blob (cheap, no content read), then read a blob's content only when it is not cached already.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.hpp"

namespace aaw {

// A git object id as 40 lowercase hex digits (or, in fakes, any stable content key).
struct ObjectId {
  std::string hex;
  std::string short_hex() const { return hex.substr(0, 12); }
  bool operator==(const ObjectId&) const = default;
  auto operator<=>(const ObjectId&) const = default;
};

// "a/b/c.py" -> {"a/b", "c.py"}; "c.py" -> {"", "c.py"}: a tree path's directory and entry name.
inline std::pair<std::string, std::string> split_tree_path(std::string_view path) {
  auto slash = path.rfind('/');
  if (slash == std::string_view::npos) return {"", std::string(path)};
  return {std::string(path.substr(0, slash)), std::string(path.substr(slash + 1))};
}

class SourceTree {
 public:
  virtual ~SourceTree() = default;

  // The blob at `path` ("a/b/c.py", no leading slash); nullopt when no file is there (absent, or a
  // directory). An error only when the tree itself cannot be read (a missing object).
  virtual Result<std::optional<ObjectId>> find_blob(std::string_view path) = 0;

  // True when `path` is a directory of this tree (a namespace package, say).
  virtual Result<bool> is_directory(std::string_view path) = 0;

  // True when `path` is a symbolic link. find_blob gives a link's own blob (its text is the path it
  // points to) and is_directory says false even when it points to a directory: a reader that
  // would follow it, as Python's import system does, asks this first. The default: no links.
  virtual Result<bool> is_link(std::string_view /*path*/) { return false; }

  // The content of a blob returned by find_blob; not_found when the object is missing.
  virtual Result<std::string> read_blob(const ObjectId& blob) = 0;

  // Optional, for trees that can name their directories by content (git trees): when a
  // directory's id is the same at two commits, nothing under it changed. Callers check
  // has_directory_ids() first; the defaults say nothing is known.
  virtual bool has_directory_ids() const { return false; }
  // The id of the directory `dir` ("" is the root); nullopt when there is no directory there.
  virtual Result<std::optional<ObjectId>> directory_id(std::string_view /*dir*/) {
    return std::optional<ObjectId>();
  }
  // The names of the entries that differ between two versions of one directory (added, removed,
  // or changed content or mode), given their directory ids. A subdirectory on both sides is not
  // one, whatever changed under it: at its own path it is still a directory and still no file,
  // and what changed under it shows in its own directory id.
  virtual Result<std::vector<std::string>> changed_entries(const ObjectId& /*before*/,
                                                           const ObjectId& /*after*/) {
    return Error(ErrorCode::internal, "changed_entries: this tree has no directory ids");
  }
};

}  // namespace aaw
