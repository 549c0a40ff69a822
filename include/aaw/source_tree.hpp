// A read-only view of the files of one commit, as the static extractor needs them: find a path's
// blob (cheap, no content read), then read a blob's content only when it is not cached already.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "aaw/result.hpp"

namespace aaw {

// A git object id as 40 lowercase hex digits (or, in fakes, any stable content key).
struct ObjectId {
  std::string hex;
  std::string short_hex() const { return hex.substr(0, 12); }
  bool operator==(const ObjectId&) const = default;
  auto operator<=>(const ObjectId&) const = default;
};

class SourceTree {
 public:
  virtual ~SourceTree() = default;

  // The blob at `path` ("a/b/c.py", no leading slash); nullopt when no file is there (absent, or a
  // directory). An error only when the tree itself cannot be read (a missing object).
  virtual Result<std::optional<ObjectId>> find_blob(std::string_view path) = 0;

  // True when `path` is a directory of this tree (a namespace package, say).
  virtual Result<bool> is_directory(std::string_view path) = 0;

  // The content of a blob returned by find_blob; not_found when the object is missing.
  virtual Result<std::string> read_blob(const ObjectId& blob) = 0;
};

}  // namespace aaw
