// One bare mirror of a remote repository, kept under state_dir/mirrors/: cloned on first use,
// then fetched incrementally (all branches and tags: a compare pair may sit on any branch).
// Everything the core needs from git goes through this interface; the real implementation is
// libgit2 (src/io/git/libgit2_mirror.cpp), and no libgit2 type crosses it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ports/source_tree.hpp"
#include "util/result.hpp"

namespace aaw {

struct CommitInfo {
  ObjectId id;
  std::vector<ObjectId> parents;  // first parent first
  std::string author_name;
  std::string author_email;
  std::int64_t author_time = 0;   // seconds since the epoch
  int author_offset_minutes = 0;  // the author's UTC offset
  std::string subject;            // first line of the message
  std::string message;            // whole message
};

struct MirrorOptions {
  // Sent as HTTP basic credentials to http(s) remotes only, and only to the configured URL's host
  // (never where a redirect leads); never logged, never stored.
  std::string https_token;
  // The program run as `PROGRAM __git` for every operation that talks to the remote (clone, fetch,
  // ls-remote): this binary. libgit2 cannot be interrupted while it waits for a server; a child
  // process can be killed. Empty: they run in this process, without a deadline or a way to stop.
  std::filesystem::path network_helper;
  // With a network helper: a remote that sends nothing for this long (no answer, no object, no
  // progress message) is given up on, as a network error. Not applied to local paths and file://.
  std::chrono::seconds stall_timeout{120};
  // With a network helper: polled while it runs; once true the helper is killed at once and the
  // operation ends as cancelled. Empty: never.
  std::function<bool()> stop_requested;
  // open_mirror leaves a missing mirror to the first fetch() instead of cloning it at once: what a
  // daemon wants, whose first start must retry an unreachable remote like any later outage. Until
  // then every read is not_found ("has not been cloned yet") and remote_head() works.
  bool clone_on_first_fetch = false;
  // maintain() repacks the mirror once it holds more packs than this (each fetch adds one), or
  // sooner when the fetched packs together weigh half the largest.
  std::size_t repack_after_packs = 50;
};

class GitMirror {
 public:
  virtual ~GitMirror() = default;

  // The remote URL as configured, with any user:password@ part removed (safe to print).
  virtual std::string display_url() const = 0;
  // The directory of the bare mirror.
  virtual std::filesystem::path path() const = 0;

  // Keeps the mirror small over months of fetches: once the fetches have piled up packs (many, or
  // heavy: libgit2 stores fetched trees without deltas), every object the refs reach goes into one
  // pack and the rest (what force-pushes abandoned) is dropped. What it did in a line for the log ("Repacked the mirror: 51 packs, 12 loose objects, 48.2 MB ->
  // 1 pack, 41.9 MB in 3.1 s"), nullopt when nothing needed doing. Reads stay valid afterwards.
  virtual Result<std::optional<std::string>> maintain() { return std::optional<std::string>(); }

  // Fetch all branches and tags from the remote, pruning deleted ones.
  // network with the remote's message when it is unreachable or refuses us.
  virtual Result<void> fetch() = 0;

  // What `git rev-parse` accepts for one commit -> the commit: a full or unambiguous short SHA
  // (>= 4 hex digits), a branch or tag name, HEAD, "origin/<branch>", and expressions such as
  // "main~5", "HEAD^2", "v1.0^{}" or ":/message". invalid_input for an empty, option-like or
  // malformed revision, a range, or an object that is no commit; not_found for an unknown one;
  // ambiguous for a short SHA matching several objects.
  virtual Result<ObjectId> resolve(std::string_view revision) = 0;

  // Author, date and message of a commit; not_found when the object is missing.
  virtual Result<CommitInfo> commit_info(const ObjectId& commit) = 0;

  // The files of a commit, read straight from the object database (no checkout).
  virtual Result<std::unique_ptr<SourceTree>> tree(const ObjectId& commit) = 0;

  // The commit `branch` points to on the remote now, asked without fetching anything (what
  // `git ls-remote` does). network when the remote cannot be reached; not_found when it has no
  // such branch.
  virtual Result<ObjectId> remote_head(std::string_view branch) = 0;

  // The first-parent commits of `tip` that `since` does not reach, oldest first: what
  // `git rev-list --first-parent --reverse tip ^since` prints. not_found when either is missing.
  virtual Result<std::vector<ObjectId>> first_parent_range(const ObjectId& since, const ObjectId& tip) = 0;

  // True when `ancestor` is `descendant` or one of its ancestors.
  virtual Result<bool> is_ancestor(const ObjectId& ancestor, const ObjectId& descendant) = 0;

  // The best common ancestor of two commits; nullopt when their histories are unrelated.
  virtual Result<std::optional<ObjectId>> merge_base(const ObjectId& a, const ObjectId& b) = 0;
};

}  // namespace aaw
