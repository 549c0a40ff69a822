// The GitMirror port on libgit2 (src/io/git/libgit2_mirror.cpp).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "core/ports/git_mirror.hpp"

namespace aaw {

// Opens the mirror of `url` under `mirrors_dir`, cloning it first when it does not exist yet (a
// failed first clone leaves nothing behind), or at the first fetch() with
// options.clone_on_first_fetch. `url` may be a local path, file://, git:// or http(s)://. Does not
// fetch an existing mirror: call fetch() for that. With options.network_helper every clone, fetch
// and ls-remote runs in that helper (git_helper_posix.hpp), with the stall timeout and stop predicate.
Result<std::unique_ptr<GitMirror>> open_mirror(const std::string& url,
                                               const std::filesystem::path& mirrors_dir,
                                               const MirrorOptions& options);

// A repository on disk read as it is, in place of a mirror (`compare --repo .`: a checkout of a
// pull request's branch, or a bare repository): its objects and refs are read, nothing is written
// into it (no fetch, no index, no refs); fetch() and remote_head() fail with invalid_input. not_found
// naming `path` when no repository is there.
Result<std::unique_ptr<GitMirror>> open_checkout(const std::filesystem::path& path);

// The directory name a URL's mirror gets: readable, and distinct for distinct URLs.
std::string mirror_directory_name(std::string_view url);

// Whether `url` has a mirror under `mirrors_dir` already (open_mirror would not clone).
bool mirror_exists(const std::string& url, const std::filesystem::path& mirrors_dir);

// The existing mirror of `url` under `mirrors_dir`, opened without cloning, fetching or writing;
// nullptr when there is none (queries such as `status` never clone).
std::unique_ptr<GitMirror> open_existing_mirror(const std::string& url,
                                                const std::filesystem::path& mirrors_dir);

}  // namespace aaw
