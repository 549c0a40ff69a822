// The real GitMirror: a bare, mirror-style clone (every remote branch and tag is a local ref of the
// same name) driven by libgit2. The mirror is the only place libgit2 failures are translated into
// aaw::Error, with the remote named by its redacted URL and the HTTPS token scrubbed from every
// message.
//
// What talks to the remote (clone, fetch, ls-remote) is libgit2_remote.cpp, run in the git helper
// process when MirrorOptions names one (git_helper_posix.hpp), so that a silent remote or a stop request
// never holds the daemon.
//
// Objects are read straight from the object database; nothing is ever checked out. Real
// snapshots of ROCm/aiter miss objects on some side branches, so every lookup treats a missing
// object as an ordinary not_found rather than a reason to stop.
#include "io/git/libgit2_mirror.hpp"

#include <git2.h>
#include <git2/sys/repository.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "io/git/git_helper_posix.hpp"
#include "io/git/libgit2_handles.hpp"
#include "io/git/libgit2_remote.hpp"
#include "io/git/libgit2_repack.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"
#include "util/url.hpp"

namespace aaw {
namespace {

namespace fs = std::filesystem;

using detail::git_failure;
using detail::in_quotes;
using detail::is_local_path;
using detail::scrub;

constexpr const char* k_remote = "origin";
constexpr std::size_t k_readable_name_max = 64;
// Small: what libgit2's object cache holds outgrows the sizes it counts against its bound, so a
// larger one let the heap grow with the commits replayed, and a replay is as fast without it
// (CommitView keeps each commit's trees). docs/performance.md, "libgit2's caches".
constexpr std::size_t k_object_cache_bytes = std::size_t{1} << 20;
constexpr std::size_t k_pack_window_bytes = std::size_t{1} << 20;
constexpr std::size_t k_pack_mapped_bytes = std::size_t{8} << 20;
// Trees handed out between two openings of the object database (renew_object_database).
constexpr std::size_t k_trees_per_object_database = 256;

// ---- libgit2 handles -------------------------------------------------------------------------

using RemotePtr = std::unique_ptr<git_remote, GitFree<git_remote_free>>;
using ObjectPtr = std::unique_ptr<git_object, GitFree<git_object_free>>;
using RevwalkPtr = std::unique_ptr<git_revwalk, GitFree<git_revwalk_free>>;
using OdbPtr = std::unique_ptr<git_odb, GitFree<git_odb_free>>;

// libgit2's global state is reference counted, so each owner of handles may hold one count; the
// mirror and every tree it hands out share one Session, whose repository is freed before the
// count is dropped. Trees may outlive their mirror.
struct Session {
  Session() {
    git_libgit2_init();
    // libgit2 keeps recently read objects (trees, blobs) in a process-wide cache of 256 MiB by
    // default; a long replay reads thousands of trees, so bound it: RSS must not grow with commits.
    git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, static_cast<ssize_t>(k_object_cache_bytes));
    // Pack files are read through mapped windows, by default of 1 GiB each up to 8 GiB in all:
    // every page of the packs a long replay touches would stay resident, and a mirror's packs grow
    // with every fetch. Smaller windows, and few of them, are unmapped least recently used first.
    git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, static_cast<size_t>(k_pack_window_bytes));
    git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, static_cast<size_t>(k_pack_mapped_bytes));
    // libgit2 hashes every object it reads again (collision-detecting SHA-1) to compare with its
    // id, a visible share of a replay. git itself checks on fetch and fsck, not on each read; the
    // fetch into the mirror still checks what arrives.
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
  }
  ~Session() {
    repository.reset();
    git_libgit2_shutdown();
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  RepositoryPtr repository;
};

// ---- text ------------------------------------------------------------------------------------

ObjectId to_object_id(const git_oid* oid) {
  std::array<char, GIT_OID_HEXSZ + 1> hex{};
  git_oid_tostr(hex.data(), hex.size(), oid);
  return ObjectId{hex.data()};
}

bool is_hex(std::string_view text) {
  return text.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;
}

std::optional<git_oid> parse_full_id(std::string_view hex) {
  git_oid oid;
  if (hex.size() != GIT_OID_HEXSZ || !is_hex(hex)) return std::nullopt;
  if (git_oid_fromstrn(&oid, hex.data(), hex.size()) < 0) return std::nullopt;
  return oid;
}

Result<void> without_value(const Result<std::optional<ObjectId>>& result) {
  if (!result) return result.error();
  return {};
}

Error missing_object(const ObjectId& id) {
  return Error(ErrorCode::not_found, "object " + id.hex + " is missing from the mirror");
}

// ---- URLs ------------------------------------------------------------------------------------

// A relative path is anchored once, here: the daemon may later run from another directory, and
// the mirror's name must not depend on how the user spelled the path.
std::string normalized_url(const std::string& url) {
  if (!is_local_path(url)) return url;
  std::string path = fs::absolute(url).lexically_normal().string();
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string_view without_suffix(std::string_view text, std::string_view suffix) {
  if (text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix) {
    text.remove_suffix(suffix.size());
  }
  return text;
}

// "https://github.com/ROCm/aiter.git" -> "github.com-ROCm-aiter".
std::string readable_name(std::string_view url) {
  if (const auto scheme = url.find("://"); scheme != std::string_view::npos) url.remove_prefix(scheme + 3);
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  url = without_suffix(url, ".git");
  std::string name;
  for (const char c : url) {
    const bool safe = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    name += safe ? c : (c == '/' || c == ':' || c == '@' ? '-' : '_');
  }
  // The tail names the repository; the head (a long path prefix) is what can go.
  if (name.size() > k_readable_name_max) name.erase(0, name.size() - k_readable_name_max);
  // No hidden directories, nothing that reads as an option or as "..".
  name.erase(0, name.find_first_not_of(".-_"));
  return name.empty() ? "repository" : name;
}

// ---- the source tree -------------------------------------------------------------------------

class Libgit2SourceTree final : public SourceTree {
 public:
  Libgit2SourceTree(std::shared_ptr<Session> session, TreePtr tree)
      : m_session(std::move(session)), m_tree(std::move(tree)) {}

  // Trees are directories and commits are submodules: neither is a file we could read.
  Result<std::optional<ObjectId>> find_blob(std::string_view path) override {
    return id_of_entry(path, GIT_OBJECT_BLOB);
  }

  Result<bool> is_directory(std::string_view path) override {
    auto tree = directory(std::string(path));
    if (!tree) return tree.error();
    return *tree != nullptr;
  }

  Result<bool> is_link(std::string_view path) override {
    auto entry = entry_of_type(path, GIT_OBJECT_BLOB);
    if (!entry) return entry.error();
    return *entry != nullptr && git_tree_entry_filemode(*entry) == GIT_FILEMODE_LINK;
  }

  Result<std::string> read_blob(const ObjectId& blob) override;

  bool has_directory_ids() const override { return true; }

  // Read from the parent's entry: the directory's own tree is not loaded (a replay asks the id
  // of every watched directory at every commit, and most are not descended into).
  Result<std::optional<ObjectId>> directory_id(std::string_view dir) override {
    if (dir.empty()) return std::optional<ObjectId>(to_object_id(git_tree_id(m_tree.get())));
    return id_of_entry(dir, GIT_OBJECT_TREE);
  }

  Result<std::vector<std::string>> changed_entries(const ObjectId& before, const ObjectId& after) override;

 private:
  // The tree at `dir` ("" is the root), nullptr when no directory is there. Subtrees are cached
  // for the life of this commit's view: a replay asks for the same few directories thousands of
  // times, and git_tree_entry_bypath would parse every tree on the way each time. An error only
  // when a tree object on the way is missing.
  Result<const git_tree*> directory(const std::string& dir) {
    if (dir.empty()) return static_cast<const git_tree*>(m_tree.get());
    if (auto it = m_directories.find(dir); it != m_directories.end())
      return static_cast<const git_tree*>(it->second.get());
    auto found = entry_of_type(dir, GIT_OBJECT_TREE);
    if (!found) return found.error();
    const git_tree_entry* entry = *found;
    TreePtr subtree;
    if (entry != nullptr) {
      git_tree* raw = nullptr;
      if (git_tree_lookup(&raw, git_tree_owner(m_tree.get()), git_tree_entry_id(entry)) < 0) {
        return git_failure(ErrorCode::not_found, "cannot read " + in_quotes(dir) + " from tree " +
                                                     to_object_id(git_tree_id(m_tree.get())).hex);
      }
      subtree.reset(raw);
    }
    return static_cast<const git_tree*>(m_directories.emplace(dir, std::move(subtree)).first->second.get());
  }

  // The entry at `path` when it is of `type`; nullptr when nothing, or something else, is there.
  Result<const git_tree_entry*> entry_of_type(std::string_view path, git_object_t type) {
    auto [dir, name] = split_tree_path(path);
    auto parent = directory(dir);
    if (!parent) return parent.error();
    const git_tree_entry* entry = *parent ? git_tree_entry_byname(*parent, name.c_str()) : nullptr;
    return entry != nullptr && git_tree_entry_type(entry) == type ? entry : nullptr;
  }

  Result<std::optional<ObjectId>> id_of_entry(std::string_view path, git_object_t type) {
    auto entry = entry_of_type(path, type);
    if (!entry) return entry.error();
    if (*entry == nullptr) return std::optional<ObjectId>();
    return std::optional<ObjectId>(to_object_id(git_tree_entry_id(*entry)));
  }

  std::shared_ptr<Session> m_session;  // first: outlives the trees
  TreePtr m_tree;
  std::unordered_map<std::string, TreePtr> m_directories;
};

// An object of the expected type; not_found when it is missing, invalid_input for another type.
Result<ObjectPtr> lookup_object(git_repository* repository, const ObjectId& id, git_object_t type) {
  const auto oid = parse_full_id(id.hex);
  if (!oid) return Error(ErrorCode::invalid_input, in_quotes(id.hex) + " is not an object id");
  git_object* raw = nullptr;
  const int rc = git_object_lookup(&raw, repository, &*oid, GIT_OBJECT_ANY);
  if (rc == GIT_ENOTFOUND) return missing_object(id);
  if (rc < 0) return git_failure(ErrorCode::git, "cannot read object " + id.hex);
  ObjectPtr object(raw);
  if (git_object_type(object.get()) != type) {
    return Error(ErrorCode::invalid_input, in_quotes(id.hex) + " is not a " + git_object_type2string(type));
  }
  return object;
}

// The repository's object database opened anew. libgit2 keeps, for as long as a pack file is open,
// a cache of the delta bases it inflated (a fixed size per pack in libgit2 1.5, with no option to
// bound it); a long replay fills it slowly, so RSS rose with the commits replayed. Pack
// files are shared by path across object databases and freed with their last user, so the old
// database goes first (an empty one stands in), then the new one opens the packs afresh. Objects
// already read (the trees a CommitView holds) keep their own data and stay valid.
Result<void> renew_object_database(git_repository* repository) {
  git_buf objects{};
  const int found = git_repository_item_path(&objects, repository, GIT_REPOSITORY_ITEM_OBJECTS);
  const std::string directory = found == 0 ? std::string(objects.ptr, objects.size) : std::string();
  git_buf_dispose(&objects);
  if (found < 0) return git_failure(ErrorCode::git, "cannot find the object directory of the mirror");
  git_odb* raw = nullptr;
  if (git_odb_new(&raw) < 0) return git_failure(ErrorCode::git, "cannot make an object database");
  OdbPtr empty(raw);
  git_repository_set_odb(repository, empty.get());
  if (git_odb_open(&raw, directory.c_str()) < 0)
    return git_failure(ErrorCode::git, "cannot open the objects in " + in_quotes(directory));
  OdbPtr fresh(raw);
  git_repository_set_odb(repository, fresh.get());
  return {};
}

Result<std::string> Libgit2SourceTree::read_blob(const ObjectId& blob) {
  auto object = lookup_object(git_tree_owner(m_tree.get()), blob, GIT_OBJECT_BLOB);
  if (!object) return object.error();
  const auto* handle = reinterpret_cast<const git_blob*>(object->get());
  const auto* data = static_cast<const char*>(git_blob_rawcontent(handle));
  return std::string(data, static_cast<std::size_t>(git_blob_rawsize(handle)));
}

Result<std::vector<std::string>> Libgit2SourceTree::changed_entries(const ObjectId& before,
                                                                    const ObjectId& after) {
  git_repository* repository = git_tree_owner(m_tree.get());
  auto old_tree = lookup_object(repository, before, GIT_OBJECT_TREE);
  if (!old_tree) return old_tree.error();
  auto new_tree = lookup_object(repository, after, GIT_OBJECT_TREE);
  if (!new_tree) return new_tree.error();
  const auto* a = reinterpret_cast<const git_tree*>(old_tree->get());
  const auto* b = reinterpret_cast<const git_tree*>(new_tree->get());
  std::unordered_map<std::string_view, const git_tree_entry*> old_entries;
  for (size_t i = 0; i < git_tree_entrycount(a); ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(a, i);
    old_entries.emplace(git_tree_entry_name(e), e);
  }
  std::vector<std::string> changed;
  for (size_t i = 0; i < git_tree_entrycount(b); ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(b, i);
    auto it = old_entries.find(git_tree_entry_name(e));
    bool still_directory = it != old_entries.end() && git_tree_entry_filemode(e) == GIT_FILEMODE_TREE &&
                           git_tree_entry_filemode(it->second) == GIT_FILEMODE_TREE;
    if (it == old_entries.end() ||
        (!still_directory && (!git_oid_equal(git_tree_entry_id(it->second), git_tree_entry_id(e)) ||
                              git_tree_entry_filemode(it->second) != git_tree_entry_filemode(e)))) {
      changed.emplace_back(git_tree_entry_name(e));
    }
    if (it != old_entries.end()) old_entries.erase(it);
  }
  for (const auto& [name, entry] : old_entries) changed.emplace_back(name);
  return changed;
}

// ---- the mirror ------------------------------------------------------------------------------

class Libgit2Mirror final : public GitMirror {
 public:
  Libgit2Mirror(std::string url, fs::path directory, MirrorOptions options)
      : m_session(std::make_shared<Session>()),
        m_url(std::move(url)),
        m_directory(std::move(directory)),
        m_options(std::move(options)) {}

  std::string display_url() const override { return redact_url(m_url); }
  fs::path path() const override { return m_directory; }

  Result<void> fetch() override;
  Result<std::optional<std::string>> maintain() override;
  Result<ObjectId> resolve(std::string_view revision) override;
  Result<CommitInfo> commit_info(const ObjectId& commit) override;
  Result<std::unique_ptr<SourceTree>> tree(const ObjectId& commit) override;
  Result<ObjectId> remote_head(std::string_view branch) override;
  Result<std::vector<ObjectId>> first_parent_range(const ObjectId& since, const ObjectId& tip) override;
  Result<bool> is_ancestor(const ObjectId& ancestor, const ObjectId& descendant) override;
  Result<std::optional<ObjectId>> merge_base(const ObjectId& a, const ObjectId& b) override;

  Result<void> open_existing();
  Result<void> open_checkout();
  Result<void> clone();

 private:
  git_repository* repository() const { return m_session->repository.get(); }

  std::string staging_prefix() const;
  void remove_abandoned_staging() const;
  Result<fs::path> make_staging_directory() const;
  Result<void> move_into_place(const fs::path& staging);
  Result<void> adopt_url();
  // The remote operation, in the helper process when one is configured.
  Result<std::optional<ObjectId>> on_remote(detail::RemoteOp op, const fs::path& repository,
                                            std::string_view branch = {});
  // not_found naming the mirror while it has not been cloned (clone_on_first_fetch).
  Result<void> require_clone() const;
  Result<git_oid> commit_oid(const ObjectId& id) const;
  Result<ObjectId> peel_to_commit(git_object* object, const std::string& revision);

  std::shared_ptr<Session> m_session;  // first: libgit2 is initialised before anything else
  std::string m_url;
  fs::path m_directory;
  MirrorOptions m_options;
  bool m_checkout = false;             // a repository read as it is (open_checkout): never fetched or written
  std::size_t m_trees_handed_out = 0;  // since the object database was last opened
};

namespace {

// This process's umask, read without changing it (umask(2) would, for every thread).
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("Umask:")) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  }
  return 022;
}

// mkdtemp makes the staging directory 0700; the mirror gets the mode `git clone` would give it, so
// that a sandbox's checkout running as another user (sandbox.run_as) can read its objects. A
// mirror left 0700 is opened up the same way; one with any other mode is left as its owner set it.
void give_clone_mode(const fs::path& directory) {
  struct stat st {};
  if (::stat(directory.c_str(), &st) != 0 || (st.st_mode & 07777) != 0700) return;
  ::chmod(directory.c_str(), 0777 & ~current_umask());
}

}  // namespace

Result<void> Libgit2Mirror::open_existing() {
  give_clone_mode(m_directory);
  git_repository* raw = nullptr;
  if (git_repository_open_bare(&raw, m_directory.c_str()) < 0) {
    return git_failure(ErrorCode::git, "cannot open the mirror " + in_quotes(m_directory.string()));
  }
  m_session->repository.reset(raw);
  return adopt_url();
}

// The directory name ignores credentials, so a changed user:password@ part reuses the mirror:
// it must then be the URL we fetch from.
Result<void> Libgit2Mirror::adopt_url() {
  const std::string what = "cannot set the URL of " + in_quotes(m_directory.string());
  git_remote* raw = nullptr;
  if (git_remote_lookup(&raw, repository(), k_remote) < 0) return git_failure(ErrorCode::git, what);
  const RemotePtr remote(raw);
  const char* current = git_remote_url(remote.get());
  if (current != nullptr && m_url == current) return {};
  if (git_remote_set_url(repository(), k_remote, m_url.c_str()) == 0) return {};
  return git_failure(ErrorCode::git, what, m_options.https_token);
}

// Cloned into a hidden sibling and renamed into place: a mirror directory that exists is always
// complete, and a failed clone leaves nothing behind.
Result<void> Libgit2Mirror::clone() {
  remove_abandoned_staging();
  auto staging = make_staging_directory();
  if (!staging) return staging.error();
  Result<void> cloned = without_value(on_remote(detail::RemoteOp::clone, *staging));
  if (cloned) cloned = move_into_place(*staging);
  std::error_code ignored;
  fs::remove_all(*staging, ignored);  // gone already after a successful move
  if (!cloned) return cloned;
  return open_existing();
}

std::string Libgit2Mirror::staging_prefix() const { return "." + m_directory.filename().string() + ".tmp-"; }

// A clone killed before its end (SIGKILL, a power cut) cannot remove its staging directory: the
// next clone of the URL does, once the process that made it is gone. Its name holds that process's
// id; a name without one, or of a process still running, is left alone.
void Libgit2Mirror::remove_abandoned_staging() const {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(m_directory.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(staging_prefix(), 0) != 0) continue;
    const std::string rest = name.substr(staging_prefix().size());
    const std::size_t dash = rest.find('-');
    if (dash == 0 || dash == std::string::npos || rest.find_first_not_of("0123456789") != dash) continue;
    const long pid = std::strtol(rest.c_str(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code ignored;
    fs::remove_all(entry.path(), ignored);
  }
}

Result<fs::path> Libgit2Mirror::make_staging_directory() const {
  const fs::path parent = m_directory.parent_path();
  std::error_code ec;
  fs::create_directories(parent, ec);
  std::string staging = (parent / (staging_prefix() + std::to_string(::getpid()) + "-XXXXXX")).string();
  if (!ec && ::mkdtemp(staging.data()) != nullptr) return fs::path(staging);
  const std::string cause = ec ? ec.message() : std::generic_category().message(errno);
  return Error(ErrorCode::io, "cannot create a directory in " + in_quotes(parent.string()) + ": " + cause);
}

Result<void> Libgit2Mirror::move_into_place(const fs::path& staging) {
  std::error_code ec;
  fs::rename(staging, m_directory, ec);
  // Another process may have cloned the same URL meanwhile: its mirror is as good as ours.
  if (!ec || fs::exists(m_directory / "HEAD")) return {};
  return Error(ErrorCode::io,
               "cannot create the mirror " + in_quotes(m_directory.string()) + ": " + ec.message());
}

namespace {

// A checkout is the user's: reading it never writes, and fetching it is theirs to do.
Result<void> refuse_remote(const fs::path& directory) {
  return Error(ErrorCode::invalid_input, "repository " + in_quotes(directory.string()) +
                                             " is read as it is (--repo): fetch it yourself");
}

}  // namespace

Result<void> Libgit2Mirror::open_checkout() {
  git_repository* raw = nullptr;
  if (git_repository_open_ext(&raw, m_directory.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) < 0)
    return git_failure(ErrorCode::not_found, "cannot open the repository " + in_quotes(m_directory.string()));
  m_session->repository.reset(raw);
  m_checkout = true;
  return {};
}

Result<void> Libgit2Mirror::fetch() {
  if (m_checkout) return refuse_remote(m_directory);
  if (!repository()) return clone();  // clone_on_first_fetch: the first fetch makes the mirror
  return without_value(on_remote(detail::RemoteOp::fetch, m_directory));
}

Result<std::optional<std::string>> Libgit2Mirror::maintain() {
  if (m_checkout || !repository()) return std::optional<std::string>();
  const detail::ObjectStoreUse before = detail::object_store_use(m_directory);
  if (!detail::repack_pays(before, m_options.repack_after_packs)) return std::optional<std::string>();
  const auto started = std::chrono::steady_clock::now();
  if (auto repacked = on_remote(detail::RemoteOp::repack, m_directory); !repacked) return repacked.error();
  // The packs this process had open are gone: what it reads next comes from the new one.
  if (auto renewed = renew_object_database(repository()); !renewed) return renewed.error();
  const detail::ObjectStoreUse after = detail::object_store_use(m_directory);
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  char line[200];
  std::snprintf(line, sizeof line,
                "Repacked the mirror: %zu packs, %zu loose objects, %.1f MB -> %zu pack%s, %.1f MB in %.1f s",
                before.packs, before.loose, static_cast<double>(before.bytes) / 1e6, after.packs,
                after.packs == 1 ? "" : "s", static_cast<double>(after.bytes) / 1e6, seconds);
  return std::optional<std::string>(line);
}

Result<void> Libgit2Mirror::require_clone() const {
  if (repository()) return {};
  return Error(ErrorCode::not_found,
               "the mirror of " + in_quotes(display_url()) + " has not been cloned yet (nothing fetched)");
}

Result<std::optional<ObjectId>> Libgit2Mirror::on_remote(detail::RemoteOp op, const fs::path& repository,
                                                         std::string_view branch) {
  detail::RemoteRequest request{op, m_url, repository, std::string(branch), m_options.https_token};
  if (m_options.network_helper.empty()) return detail::run_remote(request, {});
  detail::HelperOptions helper{m_options.network_helper, std::nullopt, m_options.stop_requested};
  // A copy from this machine has no remote to go silent, and libgit2 says nothing while it copies.
  const bool local = is_local_path(m_url) || starts_with_ci(m_url, "file://");
  if (!local) helper.stall_timeout = m_options.stall_timeout;
  return detail::run_remote_in_helper(request, helper);
}

// ---- resolving revisions --------------------------------------------------------------------

// Text that must not reach git as a revision: empty, option-like (it may travel to a git command
// line or a log), with control characters or blanks, or a range where one commit is meant.
std::optional<std::string> revision_refusal(const std::string& revision) {
  if (revision.empty()) return "an empty revision names no commit";
  if (revision.front() == '-') return in_quotes(revision) + " looks like an option, not a commit";
  const bool message_search = revision.rfind(":/", 0) == 0;  // ":/fix the build" may hold blanks
  for (const char c : revision) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f || (byte == 0x20 && !message_search))
      return in_quotes(revision) + " is not a commit id, branch or tag";
  }
  if (!message_search && revision.find("..") != std::string::npos)
    return in_quotes(revision) + " is a range; give one commit";
  return std::nullopt;
}

// Whether `revision` is more than a name (an id, a branch, a tag): "main~3", "v1^{}", ":/fix".
bool is_expression(const std::string& revision) {
  return revision.find_first_of("~^:@{") != std::string::npos;
}

// Everything `git rev-parse` accepts for one commit (libgit2's revparse): ids and short ids,
// branches, tags, HEAD, and expressions ("main~5", "HEAD^2", "v1.0^{}", ":/message"), peeled to
// the commit. What is not a commit (a tree, a blob) is refused.
Result<ObjectId> Libgit2Mirror::resolve(std::string_view revision) {
  if (auto cloned = require_clone(); !cloned) return cloned.error();
  const std::string text(revision);
  if (auto refusal = revision_refusal(text)) return Error(ErrorCode::invalid_input, *refusal);
  git_object* raw = nullptr;
  int rc = git_revparse_single(&raw, repository(), text.c_str());
  // The mirror's branches are the remote's, so "origin/main" means "main" here.
  if (rc == GIT_ENOTFOUND && text.rfind("origin/", 0) == 0)
    rc = git_revparse_single(&raw, repository(), text.c_str() + 7);
  if (rc == GIT_EAMBIGUOUS)
    return Error(ErrorCode::ambiguous, "short commit id " + in_quotes(text) + " is ambiguous");
  if (rc == GIT_ENOTFOUND && !is_expression(text))
    return Error(ErrorCode::not_found, "unknown commit, branch or tag " + in_quotes(text));
  if (rc == GIT_ENOTFOUND && git_error_last() == nullptr)  // ":/message" that no commit matches
    return Error(ErrorCode::not_found, "cannot resolve " + in_quotes(text) + ": no commit matches it");
  if (rc == GIT_ENOTFOUND) return git_failure(ErrorCode::not_found, "cannot resolve " + in_quotes(text));
  if (rc == GIT_EINVALIDSPEC)
    return git_failure(ErrorCode::invalid_input, in_quotes(text) + " is not a valid revision");
  if (rc < 0) return git_failure(ErrorCode::git, "cannot resolve " + in_quotes(text));
  const ObjectPtr object(raw);
  return peel_to_commit(object.get(), text);
}

// Annotated tags point at their commit; a tag of a tree or a blob is no commit at all.
Result<ObjectId> Libgit2Mirror::peel_to_commit(git_object* object, const std::string& revision) {
  git_object* raw = nullptr;
  const int rc = git_object_peel(&raw, object, GIT_OBJECT_COMMIT);
  if (rc == GIT_ENOTFOUND) {
    return git_failure(ErrorCode::not_found, "cannot resolve " + in_quotes(revision));
  }
  if (rc < 0) return Error(ErrorCode::invalid_input, in_quotes(revision) + " is not a commit");
  const ObjectPtr commit(raw);
  return to_object_id(git_object_id(commit.get()));
}

// ---- commits ---------------------------------------------------------------------------------

std::string first_line(std::string_view message) {
  std::string_view line = message.substr(0, message.find('\n'));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return std::string(line);
}

Result<CommitInfo> Libgit2Mirror::commit_info(const ObjectId& commit) {
  if (auto cloned = require_clone(); !cloned) return cloned.error();
  auto object = lookup_object(repository(), commit, GIT_OBJECT_COMMIT);
  if (!object) return object.error();
  const auto* handle = reinterpret_cast<const git_commit*>(object->get());
  CommitInfo info;
  info.id = to_object_id(git_commit_id(handle));  // lowercase, whatever the caller passed
  for (unsigned int i = 0; i < git_commit_parentcount(handle); ++i) {
    info.parents.push_back(to_object_id(git_commit_parent_id(handle, i)));
  }
  const git_signature* author = git_commit_author(handle);
  info.author_name = author->name;
  info.author_email = author->email;
  info.author_time = author->when.time;
  info.author_offset_minutes = author->when.offset;
  info.message = git_commit_message(handle);
  info.subject = first_line(info.message);
  return info;
}

Result<std::unique_ptr<SourceTree>> Libgit2Mirror::tree(const ObjectId& commit) {
  if (auto cloned = require_clone(); !cloned) return cloned.error();
  // A failed renewal is tried again with the next tree, and meanwhile every read says why.
  if (m_trees_handed_out >= k_trees_per_object_database) {
    if (auto renewed = renew_object_database(repository()); !renewed)
      return renewed.error().context("reading the files of commit " + commit.hex);
    m_trees_handed_out = 0;
  }
  ++m_trees_handed_out;
  auto object = lookup_object(repository(), commit, GIT_OBJECT_COMMIT);
  if (!object) return object.error();
  const auto* handle = reinterpret_cast<const git_commit*>(object->get());
  git_tree* raw = nullptr;
  if (git_commit_tree(&raw, handle) < 0) {
    const ObjectId tree_id = to_object_id(git_commit_tree_id(handle));
    return missing_object(tree_id).context("reading the files of commit " + commit.hex);
  }
  return std::unique_ptr<SourceTree>(std::make_unique<Libgit2SourceTree>(m_session, TreePtr(raw)));
}

}  // namespace

// ---- the public functions --------------------------------------------------------------------

Result<std::unique_ptr<GitMirror>> open_mirror(const std::string& url,
                                               const std::filesystem::path& mirrors_dir,
                                               const MirrorOptions& options) {
  if (url.empty()) return Error(ErrorCode::invalid_input, "the repository URL is empty");
  const std::string remote_url = normalized_url(url);
  auto mirror =
      std::make_unique<Libgit2Mirror>(remote_url, mirrors_dir / mirror_directory_name(remote_url), options);
  const bool exists = std::filesystem::exists(mirror->path());
  if (!exists && options.clone_on_first_fetch) return std::unique_ptr<GitMirror>(std::move(mirror));
  Result<void> opened = exists ? mirror->open_existing() : mirror->clone();
  if (!opened) return opened.error();
  return std::unique_ptr<GitMirror>(std::move(mirror));
}

// Readable for the operator who lists the mirrors directory, and a hash of the whole
// (credential-free) URL so that "a/b/x" and "a-b/x" never share a mirror.
std::string mirror_directory_name(std::string_view url) {
  const std::string safe = redact_url(url);
  return readable_name(safe) + "-" + hex8(fnv1a_32(safe)) + ".git";
}

Result<std::unique_ptr<GitMirror>> open_checkout(const std::filesystem::path& path) {
  auto mirror = std::make_unique<Libgit2Mirror>(
      path.string(), std::filesystem::absolute(path).lexically_normal(), MirrorOptions{});
  auto opened = mirror->open_checkout();
  if (!opened) return opened.error();
  return std::unique_ptr<GitMirror>(std::move(mirror));
}

bool mirror_exists(const std::string& url, const std::filesystem::path& mirrors_dir) {
  return !url.empty() && std::filesystem::exists(mirrors_dir / mirror_directory_name(normalized_url(url)));
}

std::unique_ptr<GitMirror> open_existing_mirror(const std::string& url,
                                                const std::filesystem::path& mirrors_dir) {
  if (url.empty()) return nullptr;
  const std::string remote_url = normalized_url(url);
  auto mirror = std::make_unique<Libgit2Mirror>(remote_url, mirrors_dir / mirror_directory_name(remote_url),
                                                MirrorOptions{});
  if (!std::filesystem::exists(mirror->path()) || !mirror->open_existing()) return nullptr;
  return mirror;
}

}  // namespace aaw

namespace aaw {
namespace {}  // namespace

Result<git_oid> Libgit2Mirror::commit_oid(const ObjectId& id) const {
  if (auto cloned = require_clone(); !cloned) return cloned.error();
  auto oid = parse_full_id(id.hex);
  if (!oid) return Error(ErrorCode::invalid_input, "'" + id.hex + "' is not a full commit id");
  auto object = lookup_object(repository(), id, GIT_OBJECT_COMMIT);
  if (!object) return object.error();
  return *oid;
}

Result<ObjectId> Libgit2Mirror::remote_head(std::string_view branch) {
  if (m_checkout) return refuse_remote(m_directory).error();
  auto head = on_remote(detail::RemoteOp::ls_remote, m_directory, branch);
  if (!head) return head.error();
  if (!*head) return Error(ErrorCode::internal, "no head from ls-remote of " + in_quotes(display_url()));
  return **head;
}

Result<std::vector<ObjectId>> Libgit2Mirror::first_parent_range(const ObjectId& since, const ObjectId& tip) {
  auto since_oid = commit_oid(since);
  if (!since_oid) return since_oid.error();
  auto tip_oid = commit_oid(tip);
  if (!tip_oid) return tip_oid.error();
  git_revwalk* raw = nullptr;
  if (git_revwalk_new(&raw, repository()) < 0) return git_failure(ErrorCode::git, "cannot walk the history");
  RevwalkPtr walk(raw);
  git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
  git_revwalk_simplify_first_parent(walk.get());
  if (git_revwalk_push(walk.get(), &*tip_oid) < 0 || git_revwalk_hide(walk.get(), &*since_oid) < 0) {
    return git_failure(ErrorCode::git, "cannot walk from " + tip.hex + " to " + since.hex);
  }
  std::vector<ObjectId> out;
  git_oid oid;
  int status = 0;
  while ((status = git_revwalk_next(&oid, walk.get())) == 0) out.push_back(to_object_id(&oid));
  // A missing object half-way (real snapshots have them) ends the walk with an error, not a crash.
  if (status != GIT_ITEROVER) return git_failure(ErrorCode::not_found, "cannot walk from " + tip.hex);
  return out;
}

Result<bool> Libgit2Mirror::is_ancestor(const ObjectId& ancestor, const ObjectId& descendant) {
  auto a = commit_oid(ancestor);
  if (!a) return a.error();
  auto d = commit_oid(descendant);
  if (!d) return d.error();
  if (git_oid_equal(&*a, &*d)) return true;
  int result = git_graph_descendant_of(repository(), &*d, &*a);
  if (result < 0)
    return git_failure(ErrorCode::git, "cannot compare " + ancestor.hex + " with " + descendant.hex);
  return result == 1;
}

Result<std::optional<ObjectId>> Libgit2Mirror::merge_base(const ObjectId& a, const ObjectId& b) {
  auto first = commit_oid(a);
  if (!first) return first.error();
  auto second = commit_oid(b);
  if (!second) return second.error();
  git_oid base;
  int result = git_merge_base(&base, repository(), &*first, &*second);
  if (result == GIT_ENOTFOUND) {
    git_error_clear();
    return std::optional<ObjectId>();
  }
  if (result < 0)
    return git_failure(ErrorCode::git, "cannot find the merge base of " + a.hex + " and " + b.hex);
  return std::optional<ObjectId>(to_object_id(&base));
}

}  // namespace aaw
