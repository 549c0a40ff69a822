// Clone, fetch and ls-remote on libgit2. Credentials: the token goes only to http(s) remotes, and
// only to the host of the configured URL. libgit2 follows a server's redirect of the first request
// to wherever it points; the credential callback refuses any other host, and with a token an https
// connection to another host is refused before anything is sent (the certificate check names the
// host), so a redirect never carries the token away.
#include "io/git/libgit2_remote.hpp"

#include <git2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/git/libgit2_handles.hpp"
#include "io/git/libgit2_repack.hpp"
#include "util/strings.hpp"
#include "util/url.hpp"

namespace aaw::detail {
namespace fs = std::filesystem;

std::string in_quotes(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      out += c;
      continue;
    }
    std::array<char, 5> escaped{};
    std::snprintf(escaped.data(), escaped.size(), "\\x%02x", byte);
    out += escaped.data();
  }
  return out + "'";
}

std::string scrub(std::string text, std::string_view secret) {
  text = redact_url(text);
  if (secret.empty()) return text;
  for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at)) {
    text.replace(at, secret.size(), "<token>");
  }
  return text;
}

Error git_failure(ErrorCode code, std::string_view what, std::string_view secret) {
  return Error(code, std::string(what) + ": " + scrub(last_git_message(), secret));
}

bool is_http(std::string_view url) {
  return starts_with_ci(url, "http://") || starts_with_ci(url, "https://");
}

bool is_local_path(std::string_view url) {
  return local_repository_path(url).has_value() && !starts_with_ci(url, "file://");
}

std::string_view op_name(RemoteOp op) {
  switch (op) {
    case RemoteOp::clone:
      return "clone";
    case RemoteOp::fetch:
      return "fetch";
    case RemoteOp::ls_remote:
      return "ls-remote";
    case RemoteOp::repack:
      return "repack";
  }
  return "fetch";
}

std::string what_failed(const RemoteRequest& request) {
  const std::string verb = request.op == RemoteOp::ls_remote ? "reach" : std::string(op_name(request.op));
  return "cannot " + verb + " " + in_quotes(redact_url(request.url));
}

namespace {

// Mirror-style refspecs: the mirror's refs are the remote's refs, so a compare pair may name a
// branch or tag of any kind, and pruning removes exactly what the remote removed.
constexpr const char* k_branches_refspec = "+refs/heads/*:refs/heads/*";
constexpr const char* k_tags_refspec = "+refs/tags/*:refs/tags/*";
constexpr const char* k_remote = "origin";
constexpr const char* k_token_user = "x-access-token";  // what GitHub expects with a token

using RemotePtr = std::unique_ptr<git_remote, GitFree<git_remote_free>>;

// Everything libgit2's callbacks need, as their payload.
struct CallbackState {
  const RemoteRequest* request = nullptr;
  const RemoteProgress* progress = nullptr;
  std::string host;  // of the configured URL: the only one the token may go to
  int token_offers = 0;
};

int provide_token(git_credential** out, const char* url, const char* /*username_from_url*/,
                  unsigned int allowed_types, void* payload) {
  auto* state = static_cast<CallbackState*>(payload);
  if ((allowed_types & GIT_CREDENTIAL_USERPASS_PLAINTEXT) == 0) return GIT_PASSTHROUGH;
  // Instead of libgit2's "remote authentication required but no callback set".
  if (state->request->token.empty()) {
    git_error_set_str(GIT_ERROR_NET, "authentication required: no token configured");
    return GIT_EAUTH;
  }
  const std::string asking = url_host(url != nullptr ? url : "");
  if (asking != state->host) {
    const std::string message = "not sending the token to " + in_quotes(asking) +
                                ", where the remote redirected: the token is for " + in_quotes(state->host);
    git_error_set_str(GIT_ERROR_NET, message.c_str());
    return GIT_EAUTH;
  }
  // libgit2 asks again after every 401. A second request means the token was refused: failing
  // now makes a bad token an error instead of an endless loop.
  if (state->token_offers++ > 0) {
    git_error_set_str(GIT_ERROR_NET, "authentication failed: the token was rejected");
    return GIT_EAUTH;
  }
  return git_credential_userpass_plaintext_new(out, k_token_user, state->request->token.c_str());
}

// With a token, an https connection to any other host than the configured one (a redirect) is
// refused before a request is sent: libgit2 may present credentials it already holds without
// asking again. Otherwise libgit2's own verdict on the certificate stands.
int check_host(git_cert* /*cert*/, int /*valid*/, const char* host, void* payload) {
  auto* state = static_cast<CallbackState*>(payload);
  const std::string connecting = url_host(std::string("https://") + (host != nullptr ? host : ""));
  if (state->request->token.empty() || connecting == state->host) return GIT_PASSTHROUGH;
  const std::string message = "refusing to follow the remote to " + in_quotes(connecting) +
                              " with the token for " + in_quotes(state->host);
  git_error_set_str(GIT_ERROR_NET, message.c_str());
  return GIT_ECERTIFICATE;
}

int on_transfer(const git_indexer_progress* /*progress*/, void* payload) {
  const auto* state = static_cast<const CallbackState*>(payload);
  if (*state->progress) (*state->progress)();
  return 0;
}

int on_sideband(const char* /*text*/, int /*length*/, void* payload) { return on_transfer(nullptr, payload); }

git_remote_callbacks callbacks_for(CallbackState& state) {
  git_remote_callbacks callbacks = GIT_REMOTE_CALLBACKS_INIT;
  if (is_http(state.request->url)) {  // never offer the token to anything else
    callbacks.credentials = provide_token;
    callbacks.certificate_check = check_host;
  }
  callbacks.transfer_progress = on_transfer;
  callbacks.sideband_progress = on_sideband;
  callbacks.payload = &state;
  return callbacks;
}

// A fresh bare repository's HEAD names refs/heads/master; make "HEAD" mean what it means on the
// remote. Best effort: the remote may not say, and nothing else depends on it.
void point_head_at_default_branch(git_repository* repository, git_remote* remote) {
  git_buf branch = GIT_BUF_INIT;
  if (git_remote_default_branch(&branch, remote) == 0) git_repository_set_head(repository, branch.ptr);
  git_buf_dispose(&branch);
  git_error_clear();
}

Result<void> fetch_into(git_repository* repository, CallbackState& state) {
  const RemoteRequest& request = *state.request;
  git_remote* raw = nullptr;
  if (git_remote_lookup(&raw, repository, k_remote) < 0)
    return git_failure(ErrorCode::git, what_failed(request), request.token);
  const RemotePtr remote(raw);
  // The URL of this run, whatever the mirror's config says: the config is a file on disk.
  if (git_remote_set_instance_url(remote.get(), request.url.c_str()) < 0)
    return git_failure(ErrorCode::git, what_failed(request), request.token);
  git_fetch_options options = GIT_FETCH_OPTIONS_INIT;
  options.prune = GIT_FETCH_PRUNE;
  options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
  options.update_fetchhead = 0;  // nobody reads FETCH_HEAD in a mirror
  options.callbacks = callbacks_for(state);
  if (git_remote_fetch(remote.get(), nullptr, &options, "aiter-api-watcher: fetch") < 0)
    return git_failure(ErrorCode::network, what_failed(request), request.token);
  point_head_at_default_branch(repository, remote.get());
  return {};
}

Result<RepositoryPtr> open_bare(const RemoteRequest& request) {
  git_repository* raw = nullptr;
  if (git_repository_open_bare(&raw, request.repository.c_str()) < 0)
    return git_failure(ErrorCode::git, "cannot open the mirror " + in_quotes(request.repository.string()),
                       request.token);
  return RepositoryPtr(raw);
}

// The remote of a mirror: every branch and tag as a local ref of the same name.
int create_mirror_remote(git_remote** out, git_repository* repository, const char* name, const char* url,
                         void* /*payload*/) {
  int rc = git_remote_create_with_fetchspec(out, repository, name, url, k_branches_refspec);
  if (rc < 0 || (rc = git_remote_add_fetch(repository, name, k_tags_refspec)) < 0) return rc;
  git_remote_free(*out);  // reloaded, so that the clone's fetch uses the tags refspec too
  return git_remote_lookup(out, repository, name);
}

// A repository on this machine is copied file by file (objects and packs as they are) instead
// of being packed and indexed again through a transport: seconds instead of minutes for a large
// history. Copies, not hard links, so the mirror never shares files with the user's repository.
Result<void> clone_local(const RemoteRequest& request) {
  if (is_local_path(request.url) && !fs::is_directory(request.url))
    return Error(ErrorCode::network, what_failed(request) + ": no such directory");
  git_clone_options options = GIT_CLONE_OPTIONS_INIT;
  options.bare = 1;
  options.local = GIT_CLONE_LOCAL_NO_LINKS;
  options.remote_cb = create_mirror_remote;
  options.fetch_opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
  git_repository* raw = nullptr;
  if (git_clone(&raw, request.url.c_str(), request.repository.c_str(), &options) < 0)
    return git_failure(ErrorCode::network, what_failed(request), request.token);
  const RepositoryPtr clone(raw);
  // As after a fetch: "HEAD" names the branch the source's HEAD names. Best effort.
  git_repository* source = nullptr;
  git_reference* head = nullptr;
  const std::string& url = request.url;
  const std::string source_path = starts_with_ci(url, "file://") ? url.substr(7) : url;
  if (git_repository_open_ext(&source, source_path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) == 0 &&
      git_reference_lookup(&head, source, "HEAD") == 0 &&
      git_reference_type(head) == GIT_REFERENCE_SYMBOLIC) {
    git_repository_set_head(clone.get(), git_reference_symbolic_target(head));
  }
  git_reference_free(head);
  git_repository_free(source);
  git_error_clear();
  return {};
}

Result<void> clone_remote(CallbackState& state) {
  const RemoteRequest& request = *state.request;
  if (is_local_path(request.url) || starts_with_ci(request.url, "file://")) return clone_local(request);
  git_repository* raw = nullptr;
  if (git_repository_init(&raw, request.repository.c_str(), /*is_bare=*/1) < 0)
    return git_failure(ErrorCode::git, "cannot create a mirror in " + in_quotes(request.repository.string()),
                       request.token);
  const RepositoryPtr repository(raw);
  git_remote* remote = nullptr;
  const int created =
      git_remote_create_with_fetchspec(&remote, raw, k_remote, request.url.c_str(), k_branches_refspec);
  git_remote_free(remote);
  if (created < 0 || git_remote_add_fetch(raw, k_remote, k_tags_refspec) < 0)
    return git_failure(ErrorCode::git, "cannot configure the remote " + in_quotes(redact_url(request.url)),
                       request.token);
  return fetch_into(raw, state);
}

Result<void> fetch(CallbackState& state) {
  const RemoteRequest& request = *state.request;
  // libgit2 would call a missing directory an "unsupported URL protocol".
  if (is_local_path(request.url) && !fs::is_directory(request.url))
    return Error(ErrorCode::network, what_failed(request) + ": no such directory");
  auto repository = open_bare(request);
  if (!repository) return repository.error();
  return fetch_into(repository->get(), state);
}

// The remote's advertisement: disconnect() before the remote is freed, as libgit2 asks.
struct Disconnect {
  void operator()(git_remote* remote) const {
    git_remote_disconnect(remote);
    git_remote_free(remote);
  }
};

ObjectId to_object_id(const git_oid* oid) {
  std::array<char, GIT_OID_HEXSZ + 1> hex{};
  git_oid_tostr(hex.data(), hex.size(), oid);
  return ObjectId{hex.data()};
}

// "; its branches are: 'dev', 'main' (did you mean 'main'?)", or that it has none.
std::string branch_hint(std::string_view branch, std::vector<std::string> branches) {
  if (branches.empty()) return "; it has no branches";
  std::sort(branches.begin(), branches.end());
  constexpr std::size_t k_listed = 20;
  std::string listed;
  for (std::size_t i = 0; i < branches.size() && i < k_listed; ++i)
    listed += (i ? ", " : "") + in_quotes(branches[i]);
  if (branches.size() > k_listed) listed += ", ... (" + std::to_string(branches.size()) + " in all)";
  std::string best = closest_match(branch, branches);
  return "; its branches are: " + listed + (best.empty() ? "" : " (did you mean " + in_quotes(best) + "?)");
}

Result<ObjectId> ls_remote(CallbackState& state) {
  const RemoteRequest& request = *state.request;
  const std::string display = in_quotes(redact_url(request.url));
  if (is_local_path(request.url) && !fs::is_directory(request.url))
    return Error(ErrorCode::network, "cannot reach " + display + ": no such directory");
  git_remote* raw = nullptr;
  if (git_remote_create_detached(&raw, request.url.c_str()) < 0)
    return git_failure(ErrorCode::git, "cannot reach " + display, request.token);
  std::unique_ptr<git_remote, Disconnect> remote(raw);
  git_remote_callbacks callbacks = callbacks_for(state);
  if (git_remote_connect(remote.get(), GIT_DIRECTION_FETCH, &callbacks, nullptr, nullptr) < 0)
    return git_failure(ErrorCode::network, "cannot reach " + display, request.token);
  const git_remote_head** heads = nullptr;
  size_t count = 0;
  if (git_remote_ls(&heads, &count, remote.get()) < 0)
    return git_failure(ErrorCode::network, "cannot list the refs of " + display, request.token);
  const std::string wanted = "refs/heads/" + request.branch;
  std::vector<std::string> branches;
  for (size_t i = 0; i < count; ++i) {
    if (wanted == heads[i]->name) return to_object_id(&heads[i]->oid);
    const std::string_view name = heads[i]->name;
    if (name.rfind("refs/heads/", 0) == 0) branches.emplace_back(name.substr(11));
  }
  return Error(ErrorCode::not_found, "branch " + in_quotes(request.branch) + " not found on " + display +
                                         branch_hint(request.branch, std::move(branches)));
}

// libgit2's global state is reference counted: each run holds one count.
struct Libgit2Session {
  Libgit2Session() { git_libgit2_init(); }
  ~Libgit2Session() { git_libgit2_shutdown(); }
  Libgit2Session(const Libgit2Session&) = delete;
  Libgit2Session& operator=(const Libgit2Session&) = delete;
};

}  // namespace

Result<std::optional<ObjectId>> run_remote(const RemoteRequest& request, const RemoteProgress& progress) {
  const Libgit2Session session;
  CallbackState state{&request, &progress, url_host(request.url)};
  switch (request.op) {
    case RemoteOp::ls_remote: {
      auto head = ls_remote(state);
      if (!head) return head.error();
      return std::optional<ObjectId>(*head);
    }
    case RemoteOp::clone:
      if (auto cloned = clone_remote(state); !cloned) return cloned.error();
      return std::optional<ObjectId>();
    case RemoteOp::repack:
      if (auto repacked = repack_repository(request.repository); !repacked) return repacked.error();
      return std::optional<ObjectId>();
    case RemoteOp::fetch:
      break;
  }
  if (auto fetched = fetch(state); !fetched) return fetched.error();
  return std::optional<ObjectId>();
}

}  // namespace aaw::detail
