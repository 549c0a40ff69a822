// The half of the mirror that talks to the remote: clone, fetch and ls-remote on libgit2, with the
// token offered only to the configured remote's host. Internal to src/io/git/. libgit2 1.5 has no
// network timeout and cannot be interrupted while it waits for a server, so the mirror runs these
// in a child process it can abandon (git_helper_posix.hpp); they also run in-process where no helper is
// configured.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/ports/source_tree.hpp"
#include "util/result.hpp"

namespace aaw::detail {

// repack: the mirror's maintenance (libgit2_repack.hpp), which needs no remote but runs in the
// helper all the same: it can take a minute, and a child can be stopped.
enum class RemoteOp { clone, fetch, ls_remote, repack };

struct RemoteRequest {
  RemoteOp op = RemoteOp::fetch;
  std::string url;  // as configured (credentials included), a local path made absolute
  // clone: an empty directory that becomes the bare mirror; fetch, repack: the mirror; ls_remote:
  // unused.
  std::filesystem::path repository;
  std::string branch;  // ls_remote: the branch whose head is wanted
  std::string token;   // sent as Basic credentials to http(s) remotes on the URL's host only
};

// Called whenever the remote sent something (objects, a progress message): the caller's sign of
// life. May be empty.
using RemoteProgress = std::function<void()>;

// Runs `request` here, in this process. ls_remote: the head of the branch (not_found when the
// remote has no such branch); clone and fetch: nullopt. network (naming the redacted URL) when the
// remote cannot be reached, refuses us, or redirects an authenticated request to another host;
// git or io for local failures. The token never appears in a message.
Result<std::optional<ObjectId>> run_remote(const RemoteRequest& request, const RemoteProgress& progress);

// "clone", "fetch", "ls-remote", "repack": the operation's name in the helper's request.
std::string_view op_name(RemoteOp op);
// "cannot clone|fetch|reach '<redacted URL>'": how a failure of `request` begins.
std::string what_failed(const RemoteRequest& request);

// ---- text and URL helpers the mirror shares ----------------------------------------------------

// 'text' in quotes, control characters escaped (\x1b): user input quoted back into messages.
std::string in_quotes(std::string_view text);
// libgit2 may echo URLs (with their credentials) or, in theory, what a callback gave it.
std::string scrub(std::string text, std::string_view secret);
// `what` failed: libgit2's last message, scrubbed, after it.
Error git_failure(ErrorCode code, std::string_view what, std::string_view secret = {});
bool is_http(std::string_view url);
// Neither a URL with a scheme nor scp-like "host:path": a path on this machine.
bool is_local_path(std::string_view url);

}  // namespace aaw::detail
