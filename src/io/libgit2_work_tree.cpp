// The real WorkTree: a non-bare repository in state_dir/work/ whose objects/info/alternates names
// the mirror's objects directory, so it reads the whole history without copying it. Each checkout
// is libgit2's forced checkout of the commit's tree against the previous HEAD: files that did not
// change keep their inode and mtime (an incremental build sees nothing to do), tracked files the
// commit dropped are removed, and untracked files (build outputs) are left alone.
#include "aaw/io/libgit2_work_tree.hpp"

#include <git2.h>
#include <spdlog/spdlog.h>

#include <array>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <utility>

#include "aaw/core/work_tree.hpp"
#include "aaw/util/files.hpp"
#include "aaw/util/url.hpp"
#include "libgit2_handles.hpp"

namespace aaw {
namespace {

namespace fs = std::filesystem;

using CommitPtr = std::unique_ptr<git_commit, GitFree<git_commit_free>>;
using DiffPtr = std::unique_ptr<git_diff, GitFree<git_diff_free>>;
using SubmodulePtr = std::unique_ptr<git_submodule, GitFree<git_submodule_free>>;
using ConfigPtr = std::unique_ptr<git_config, GitFree<git_config_free>>;

Error git_failure(ErrorCode code, const std::string& what) {
  return Error(code, what + ": " + redact_url(last_git_message()));
}

std::optional<git_oid> parse_oid(const ObjectId& id) {
  git_oid oid;
  if (id.hex.size() != GIT_OID_HEXSZ || git_oid_fromstrn(&oid, id.hex.data(), id.hex.size()) < 0)
    return std::nullopt;
  return oid;
}

class Libgit2WorkTree final : public WorkTree {
 public:
  // Absolute: the path goes to child processes that run elsewhere (a build's cwd, a sandbox).
  Libgit2WorkTree(const fs::path& directory, Logger& log, std::function<bool()> stop_requested)
      : m_directory(fs::absolute(directory).lexically_normal()),
        m_log(log),
        m_stop_requested(std::move(stop_requested)) {
    git_libgit2_init();
  }
  ~Libgit2WorkTree() override {
    m_repository.reset();
    git_libgit2_shutdown();
  }
  Libgit2WorkTree(const Libgit2WorkTree&) = delete;
  Libgit2WorkTree& operator=(const Libgit2WorkTree&) = delete;

  const fs::path& path() const override { return m_directory; }
  Result<void> checkout(const ObjectId& commit, bool submodules) override;
  std::optional<ObjectId> head() const override { return m_head; }
  Result<std::vector<std::string>> changed_paths(const ObjectId& from, const ObjectId& to) override;

  Result<void> open(const fs::path& mirror, const std::string& origin_url);
  bool stopping() const { return m_stop_requested && m_stop_requested(); }

 private:
  Result<CommitPtr> lookup_commit(const ObjectId& id) const;
  Result<TreePtr> commit_tree(const ObjectId& id) const;
  Result<void> update_submodules();
  Result<void> update_submodule(const std::string& name);

  fs::path m_directory;
  Logger& m_log;
  std::function<bool()> m_stop_requested;
  RepositoryPtr m_repository;
  std::optional<ObjectId> m_head;
};

Result<void> Libgit2WorkTree::open(const fs::path& mirror, const std::string& origin_url) {
  const std::string what = "cannot prepare the work tree '" + m_directory.string() + "'";
  std::error_code ec;
  fs::create_directories(m_directory, ec);
  if (ec) return Error(ErrorCode::io, what + ": " + ec.message());
  git_repository* raw = nullptr;
  const bool exists = fs::exists(m_directory / ".git" / "HEAD");
  const int rc =
      exists ? git_repository_open_ext(&raw, m_directory.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr)
             : git_repository_init(&raw, m_directory.c_str(), /*is_bare=*/0);
  if (rc < 0) return git_failure(ErrorCode::git, what);
  m_repository.reset(raw);

  // Borrow the mirror's objects: written every time, as the mirror is the one source of truth.
  const fs::path alternates = m_directory / ".git" / "objects" / "info" / "alternates";
  const std::string wanted = fs::absolute(mirror / "objects").lexically_normal().string() + "\n";
  if (read_file(alternates).value_or("") != wanted) {
    fs::create_directories(alternates.parent_path(), ec);
    std::ofstream(alternates, std::ios::binary | std::ios::trunc) << wanted;
    if (read_file(alternates).value_or("") != wanted)
      return Error(ErrorCode::io, what + ": cannot write '" + alternates.string() + "'");
    // The repository was opened before the alternates existed: reopen so that it reads them.
    m_repository.reset();
    if (git_repository_open_ext(&raw, m_directory.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) < 0)
      return git_failure(ErrorCode::git, what);
    m_repository.reset(raw);
  }

  // Relative submodule URLs ("../ck.git") are resolved against the origin remote's URL.
  git_config* config_raw = nullptr;
  if (git_repository_config(&config_raw, m_repository.get()) < 0) return git_failure(ErrorCode::git, what);
  const ConfigPtr config(config_raw);
  if (git_config_set_string(config.get(), "remote.origin.url", origin_url.c_str()) < 0)
    return git_failure(ErrorCode::git, what);

  // A previous run may have left the files at some commit; a checkout resumes from there.
  git_oid head;
  if (git_reference_name_to_id(&head, m_repository.get(), "HEAD") == 0) {
    std::array<char, GIT_OID_HEXSZ + 1> hex{};
    git_oid_tostr(hex.data(), hex.size(), &head);
    m_head = ObjectId{hex.data()};
  }
  git_error_clear();
  return {};
}

Result<CommitPtr> Libgit2WorkTree::lookup_commit(const ObjectId& id) const {
  auto oid = parse_oid(id);
  if (!oid) return Error(ErrorCode::invalid_input, "'" + id.hex + "' is not a commit id");
  git_commit* raw = nullptr;
  const int rc = git_commit_lookup(&raw, m_repository.get(), &*oid);
  if (rc == GIT_ENOTFOUND)
    return Error(ErrorCode::not_found, "commit " + id.hex + " is missing from the mirror");
  if (rc < 0) return git_failure(ErrorCode::git, "cannot read commit " + id.hex);
  return CommitPtr(raw);
}

Result<TreePtr> Libgit2WorkTree::commit_tree(const ObjectId& id) const {
  auto commit = lookup_commit(id);
  if (!commit) return commit.error();
  git_tree* raw = nullptr;
  if (git_commit_tree(&raw, commit->get()) < 0)
    return git_failure(ErrorCode::not_found, "cannot read the tree of " + id.hex);
  return TreePtr(raw);
}

Result<void> Libgit2WorkTree::checkout(const ObjectId& commit, bool submodules) {
  m_log.info("Checking out commit {}", commit.hex);
  auto target = lookup_commit(commit);
  if (!target) return target.error().context("checking out " + commit.hex);
  // FORCE makes the files match the commit whatever a build did to tracked files; without
  // REMOVE_UNTRACKED, build outputs survive. The baseline is the previous HEAD, so only the
  // entries that differ (or that were modified on disk) are written.
  git_checkout_options options = GIT_CHECKOUT_OPTIONS_INIT;
  options.checkout_strategy = GIT_CHECKOUT_FORCE;
  m_head.reset();
  const auto* object = reinterpret_cast<const git_object*>(target->get());
  if (git_checkout_tree(m_repository.get(), object, &options) < 0)
    return git_failure(ErrorCode::git,
                       "cannot check out " + commit.hex + " into '" + m_directory.string() + "'");
  if (git_repository_set_head_detached(m_repository.get(), git_commit_id(target->get())) < 0)
    return git_failure(ErrorCode::git, "cannot move HEAD of '" + m_directory.string() + "' to " + commit.hex);
  if (submodules) {
    m_log.info("Updating submodules");
    if (auto updated = update_submodules(); !updated)
      return updated.error().context("checking out " + commit.hex);
  }
  m_head = commit;
  return {};
}

// libgit2 progress callbacks: a negative return aborts the fetch (GIT_EUSER), so a stop request
// ends a long submodule clone instead of waiting for it.
int stop_on_transfer(const git_indexer_progress* /*progress*/, void* payload) {
  return static_cast<const Libgit2WorkTree*>(payload)->stopping() ? -1 : 0;
}

int stop_on_sideband(const char* /*text*/, int /*length*/, void* payload) {
  return static_cast<const Libgit2WorkTree*>(payload)->stopping() ? -1 : 0;
}

int collect_submodule(git_submodule* /*submodule*/, const char* name, void* payload) {
  static_cast<std::vector<std::string>*>(payload)->emplace_back(name);
  return 0;
}

Result<void> Libgit2WorkTree::update_submodules() {
  // Names first: updating inside git_submodule_foreach would change what it iterates over.
  std::vector<std::string> names;
  if (git_submodule_foreach(m_repository.get(), collect_submodule, &names) < 0)
    return git_failure(ErrorCode::git, "cannot list the submodules (.gitmodules)");
  for (const std::string& name : names) {
    if (auto updated = update_submodule(name); !updated) return updated;
  }
  return {};
}

Result<void> Libgit2WorkTree::update_submodule(const std::string& name) {
  git_submodule* raw = nullptr;
  if (git_submodule_lookup(&raw, m_repository.get(), name.c_str()) < 0)
    return git_failure(ErrorCode::git, "cannot read submodule '" + name + "'");
  const SubmodulePtr submodule(raw);
  const std::string path = git_submodule_path(submodule.get());
  unsigned int location = 0;
  // Only what this commit records: .git/config still names submodules of earlier commits.
  if (git_submodule_location(&location, submodule.get()) < 0 ||
      (location & GIT_SUBMODULE_STATUS_IN_INDEX) == 0) {
    git_error_clear();
    return {};
  }
  // overwrite = 1: a URL changed in .gitmodules since the last init is taken over.
  if (git_submodule_init(submodule.get(), /*overwrite=*/1) < 0)
    return git_failure(ErrorCode::git, "cannot initialise submodule '" + path + "'");
  const char* url_raw = git_submodule_url(submodule.get());
  const std::string url = redact_url(url_raw != nullptr ? url_raw : "");
  git_repository* sub_repository = nullptr;
  if (git_submodule_open(&sub_repository, submodule.get()) == 0) {
    git_repository_free(sub_repository);
    if (git_submodule_sync(submodule.get()) < 0)
      return git_failure(ErrorCode::git, "cannot set the URL of submodule '" + path + "' to '" + url + "'");
  }
  git_error_clear();
  git_submodule_update_options options = GIT_SUBMODULE_UPDATE_OPTIONS_INIT;
  options.checkout_opts.checkout_strategy = GIT_CHECKOUT_FORCE;
  options.allow_fetch = 1;
  // As git does: the proxy from http_proxy / https_proxy or the git config.
  options.fetch_opts.proxy_opts.type = GIT_PROXY_AUTO;
  options.fetch_opts.callbacks.transfer_progress = stop_on_transfer;
  options.fetch_opts.callbacks.sideband_progress = stop_on_sideband;
  options.fetch_opts.callbacks.payload = this;
  if (stopping()) return Error(ErrorCode::cancelled, "updating submodule '" + path + "': stop requested");
  if (git_submodule_update(submodule.get(), /*init=*/1, &options) < 0) {
    if (stopping()) return Error(ErrorCode::cancelled, "updating submodule '" + path + "': stop requested");
    return git_failure(ErrorCode::network, "cannot update submodule '" + path + "' from '" + url + "'");
  }
  return {};
}

Result<std::vector<std::string>> Libgit2WorkTree::changed_paths(const ObjectId& from, const ObjectId& to) {
  auto old_tree = commit_tree(from);
  if (!old_tree) return old_tree.error();
  auto new_tree = commit_tree(to);
  if (!new_tree) return new_tree.error();
  git_diff* raw = nullptr;
  git_diff_options options = GIT_DIFF_OPTIONS_INIT;
  if (git_diff_tree_to_tree(&raw, m_repository.get(), old_tree->get(), new_tree->get(), &options) < 0)
    return git_failure(ErrorCode::git, "cannot compare " + from.hex + " with " + to.hex);
  const DiffPtr diff(raw);
  std::set<std::string> paths;
  for (std::size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
    const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
    if (delta->old_file.path != nullptr) paths.emplace(delta->old_file.path);
    if (delta->new_file.path != nullptr) paths.emplace(delta->new_file.path);
  }
  return std::vector<std::string>(paths.begin(), paths.end());
}

}  // namespace

Result<std::unique_ptr<WorkTree>> open_work_tree(const fs::path& directory, const fs::path& mirror,
                                                 const std::string& origin_url, Logger& log,
                                                 std::function<bool()> stop_requested) {
  auto tree = std::make_unique<Libgit2WorkTree>(directory, log, std::move(stop_requested));
  if (auto opened = tree->open(mirror, origin_url); !opened) return opened.error();
  return std::unique_ptr<WorkTree>(std::move(tree));
}

}  // namespace aaw
