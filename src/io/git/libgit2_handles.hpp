// What the two libgit2 adapters (the mirror and the work tree) share: RAII for libgit2 handles and
// the text of libgit2's last error. Internal to src/io/git/.
#pragma once

#include <git2.h>

#include <memory>
#include <string>

namespace aaw {

template <auto Free>
struct GitFree {
  template <class T>
  void operator()(T* handle) const {
    Free(handle);
  }
};
using RepositoryPtr = std::unique_ptr<git_repository, GitFree<git_repository_free>>;
using TreePtr = std::unique_ptr<git_tree, GitFree<git_tree_free>>;

// libgit2's message for the last failure on this thread.
inline std::string last_git_message() {
  const git_error* error = git_error_last();
  return error != nullptr && error->message != nullptr ? error->message : "unknown libgit2 error";
}

}  // namespace aaw
