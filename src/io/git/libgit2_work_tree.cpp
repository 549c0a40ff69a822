// The real WorkTree: a non-bare repository in state_dir/work/ whose objects/info/alternates names
// the mirror's objects directory, so it reads the whole history without copying it. Each checkout
// is libgit2's forced checkout of the commit's tree against the previous HEAD: files that did not
// change keep their inode and mtime (an incremental build sees nothing to do), tracked files the
// commit dropped are removed, and untracked files (build outputs) are left alone.
#include "io/git/libgit2_work_tree.hpp"

#include <git2.h>
#include <spdlog/spdlog.h>

#include <array>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>

#include "core/ports/sandbox.hpp"
#include "core/ports/work_tree.hpp"
#include "io/git/helper_report.hpp"
#include "io/git/libgit2_handles.hpp"
#include "io/git/libgit2_remote.hpp"
#include "util/files.hpp"
#include "util/url.hpp"

namespace aaw {
namespace {

using detail::git_failure;

namespace fs = std::filesystem;
using Json = nlohmann::json;

using CommitPtr = std::unique_ptr<git_commit, GitFree<git_commit_free>>;
using DiffPtr = std::unique_ptr<git_diff, GitFree<git_diff_free>>;
using SubmodulePtr = std::unique_ptr<git_submodule, GitFree<git_submodule_free>>;
using ConfigPtr = std::unique_ptr<git_config, GitFree<git_config_free>>;

std::optional<git_oid> parse_oid(const ObjectId& id) {
  git_oid oid;
  if (id.hex.size() != GIT_OID_HEXSZ || git_oid_fromstrn(&oid, id.hex.data(), id.hex.size()) < 0)
    return std::nullopt;
  return oid;
}

// The checkout itself, with libgit2, in whatever process runs it: the confined checkout child
// (`__checkout`), or the daemon when no sandbox is given.
class Checkout {
 public:
  Checkout(const fs::path& directory, std::function<bool()> stop_requested)
      : m_directory(fs::absolute(directory).lexically_normal()), m_stop_requested(std::move(stop_requested)) {
    git_libgit2_init();
  }
  ~Checkout() {
    m_repository.reset();
    git_libgit2_shutdown();
  }
  Checkout(const Checkout&) = delete;
  Checkout& operator=(const Checkout&) = delete;

  Result<void> open(const fs::path& mirror, const std::string& origin_url);
  // REQUIRES: open() succeeded.
  Result<void> checkout(const ObjectId& commit, bool submodules, Logger* log);
  bool stopping() const { return m_stop_requested && m_stop_requested(); }

 private:
  Result<CommitPtr> lookup_commit(const ObjectId& id) const;
  Result<void> update_submodules();
  Result<void> update_submodule(const std::string& name);

  fs::path m_directory;
  std::function<bool()> m_stop_requested;
  RepositoryPtr m_repository;
};

Result<void> Checkout::open(const fs::path& mirror, const std::string& origin_url) {
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

  return {};
}

Result<CommitPtr> Checkout::lookup_commit(const ObjectId& id) const {
  auto oid = parse_oid(id);
  if (!oid) return Error(ErrorCode::invalid_input, "'" + id.hex + "' is not a commit id");
  git_commit* raw = nullptr;
  const int rc = git_commit_lookup(&raw, m_repository.get(), &*oid);
  if (rc == GIT_ENOTFOUND)
    return Error(ErrorCode::not_found, "commit " + id.hex + " is missing from the mirror");
  if (rc < 0) return git_failure(ErrorCode::git, "cannot read commit " + id.hex);
  return CommitPtr(raw);
}

// FIFOs, sockets and device nodes a build left in the tree, .git included: libgit2 would open one
// where it writes or reads a file, and a FIFO with no reader blocks it until the checkout's
// timeout. Nothing of git's is one of these; links are left alone (libgit2 replaces a link, and
// this walk follows none).
void remove_special_files(const fs::path& directory) {
  std::error_code ec;
  fs::recursive_directory_iterator it(directory, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::file_status status = it->symlink_status(ec);
    if (ec) break;
    if (fs::is_fifo(status) || fs::is_socket(status) || fs::is_block_file(status) ||
        fs::is_character_file(status))
      fs::remove(it->path(), ec);
    ec.clear();
  }
}

Result<void> Checkout::checkout(const ObjectId& commit, bool submodules, Logger* log) {
  auto target = lookup_commit(commit);
  if (!target) return target.error().context("checking out " + commit.hex);
  remove_special_files(m_directory);
  // FORCE makes the files match the commit whatever a build did to tracked files; without
  // REMOVE_UNTRACKED, build outputs survive. The baseline is the previous HEAD, so only the
  // entries that differ (or that were modified on disk) are written.
  git_checkout_options options = GIT_CHECKOUT_OPTIONS_INIT;
  options.checkout_strategy = GIT_CHECKOUT_FORCE;
  const auto* object = reinterpret_cast<const git_object*>(target->get());
  if (git_checkout_tree(m_repository.get(), object, &options) < 0)
    return git_failure(ErrorCode::git,
                       "cannot check out " + commit.hex + " into '" + m_directory.string() + "'");
  if (git_repository_set_head_detached(m_repository.get(), git_commit_id(target->get())) < 0)
    return git_failure(ErrorCode::git, "cannot move HEAD of '" + m_directory.string() + "' to " + commit.hex);
  if (submodules) {
    if (log) log->info("Updating submodules");
    if (auto updated = update_submodules(); !updated)
      return updated.error().context("checking out " + commit.hex);
  }
  return {};
}

// libgit2 progress callbacks: a negative return aborts the fetch (GIT_EUSER), so a stop request
// ends a long submodule clone instead of waiting for it.
int stop_on_transfer(const git_indexer_progress* /*progress*/, void* payload) {
  return static_cast<const Checkout*>(payload)->stopping() ? -1 : 0;
}

int stop_on_sideband(const char* /*text*/, int /*length*/, void* payload) {
  return static_cast<const Checkout*>(payload)->stopping() ? -1 : 0;
}

int collect_submodule(git_submodule* /*submodule*/, const char* name, void* payload) {
  static_cast<std::vector<std::string>*>(payload)->emplace_back(name);
  return 0;
}

Result<void> Checkout::update_submodules() {
  // Names first: updating inside git_submodule_foreach would change what it iterates over.
  std::vector<std::string> names;
  if (git_submodule_foreach(m_repository.get(), collect_submodule, &names) < 0)
    return git_failure(ErrorCode::git, "cannot list the submodules (.gitmodules)");
  for (const std::string& name : names) {
    if (auto updated = update_submodule(name); !updated) return updated;
  }
  return {};
}

Result<void> Checkout::update_submodule(const std::string& name) {
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

// ---- the port -----------------------------------------------------------------------------------

std::optional<ObjectId> oid_text(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (text.size() != GIT_OID_HEXSZ || text.find_first_not_of("0123456789abcdef") != std::string::npos)
    return std::nullopt;
  return ObjectId{text};
}

// The proxy settings a submodule fetch follows (GIT_PROXY_AUTO), passed into the sandbox.
std::map<std::string, std::string> proxy_environment() {
  std::map<std::string, std::string> env;
  for (const char* name : {"http_proxy", "https_proxy", "no_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY",
                           "NO_PROXY", "ALL_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR"}) {
    if (const char* value = std::getenv(name); value && *value) env[name] = value;
  }
  return env;
}

class Libgit2WorkTree final : public WorkTree {
 public:
  // Absolute: the path goes to child processes that run elsewhere (a build's cwd, a sandbox).
  Libgit2WorkTree(const fs::path& directory, fs::path mirror, std::string origin_url, Logger& log,
                  WorkTreeOptions options)
      : m_directory(fs::absolute(directory).lexically_normal()),
        m_mirror(fs::absolute(mirror).lexically_normal()),
        m_origin_url(std::move(origin_url)),
        m_log(log),
        m_options(std::move(options)) {
    git_libgit2_init();
  }
  ~Libgit2WorkTree() override {
    m_mirror_repository.reset();
    m_here.reset();
    git_libgit2_shutdown();
  }
  Libgit2WorkTree(const Libgit2WorkTree&) = delete;
  Libgit2WorkTree& operator=(const Libgit2WorkTree&) = delete;

  const fs::path& path() const override { return m_directory; }
  Result<void> checkout(const ObjectId& commit, bool submodules) override;
  std::optional<ObjectId> head() const override { return m_head; }
  Result<std::vector<std::string>> changed_paths(const ObjectId& from, const ObjectId& to) override;

  Result<void> open();

 private:
  Result<void> checkout_confined(const ObjectId& commit, bool submodules);
  Result<git_repository*> mirror_repository();
  Result<TreePtr> commit_tree(const ObjectId& id);

  fs::path m_directory;
  fs::path m_mirror;
  std::string m_origin_url;
  Logger& m_log;
  WorkTreeOptions m_options;
  std::unique_ptr<Checkout> m_here;   // without a sandbox: the checkout, in this process
  RepositoryPtr m_mirror_repository;  // read-only, for changed_paths
  std::optional<ObjectId> m_head;
};

Result<void> Libgit2WorkTree::open() {
  std::error_code ec;
  fs::create_directories(m_directory, ec);
  if (ec)
    return Error(ErrorCode::io,
                 "cannot prepare the work tree '" + m_directory.string() + "': " + ec.message());
  if (!m_options.sandbox) {
    m_here = std::make_unique<Checkout>(m_directory, m_options.stop_requested);
    if (auto opened = m_here->open(m_mirror, m_origin_url); !opened) return opened;
  }
  // A previous run may have left the files at some commit. Read as a file a build may have
  // replaced: neither a link nor a FIFO is followed.
  m_head = oid_text(read_regular_file(m_directory / ".git" / "HEAD").value_or(""));
  return {};
}

Result<void> Libgit2WorkTree::checkout(const ObjectId& commit, bool submodules) {
  m_log.info("Checking out commit {}", commit.hex);
  m_head.reset();
  if (m_here) {
    auto done = m_here->checkout(commit, submodules, &m_log);
    if (done) m_head = commit;
    return done;
  }
  auto done = checkout_confined(commit, submodules);
  // A tree the last build broke (its .git replaced, a directory made a file it cannot remove) is
  // made again from the mirror: build outputs are lost, the results are not.
  if (!done && (done.error().code() == ErrorCode::git || done.error().code() == ErrorCode::io)) {
    m_log.warn("The work tree {} cannot be checked out ({}); making it afresh", m_directory.string(),
               done.error().message());
    if (auto made = make_fresh_directory(m_directory); !made) return made;
    done = checkout_confined(commit, submodules);
  }
  if (done) m_head = commit;
  return done;
}

// The checkout child: `PROGRAM __checkout REQUEST RESULT` in the sandbox, with the work tree the one
// place it may write (the sandbox's own directory aside). Whatever a build left in the tree (a link
// to a file elsewhere, a .git/config pointing the checkout at another directory, a FIFO) can then
// only make this checkout fail or write inside the tree, never write elsewhere or hang the daemon.
Result<void> Libgit2WorkTree::checkout_confined(const ObjectId& commit, bool submodules) {
  Sandbox& sandbox = *m_options.sandbox;
  const fs::path dir = sandbox.root() / "checkout";
  const fs::path request_file = dir / "request.json";
  const fs::path result_file = dir / "result.json";
  if (auto made = make_fresh_directory(dir); !made) return made.error();
  const Json request = {{"work_tree", m_directory.string()},
                        {"mirror", m_mirror.string()},
                        {"origin_url", m_origin_url},
                        {"commit", commit.hex},
                        {"submodules", submodules}};
  if (auto written = write_file_atomically(request_file, request.dump()); !written) return written.error();
  if (submodules) m_log.info("Updating submodules");
  SandboxRequest run;
  run.argv = {m_options.program.string(), "__checkout", request_file.string(), result_file.string()};
  run.cwd = m_directory;
  run.env = proxy_environment();
  run.timeout = m_options.timeout;
  run.log_file = dir / "checkout.log";
  run.writable = {m_directory};
  run.readable = {m_mirror};  // the mirror lives in the state directory, which sandboxes hide
  run.network = true;         // submodules are fetched whatever the builds may do
  run.stop_requested = m_options.stop_requested;
  const std::string what = "checking out " + commit.hex;
  auto result = sandbox.run(run);
  if (!result) return result.error().context(what);
  if (result->outcome == SandboxResult::Outcome::cancelled)
    return Error(ErrorCode::cancelled, what + ": stop requested");
  const Json report = Json::parse(read_regular_file(result_file).value_or(""), nullptr, false);
  if (report.is_discarded()) {
    std::string tail = log_tail(run.log_file, 2000);
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    return Error(ErrorCode::git, what + ": the checkout child " + result->describe() +
                                     (tail.empty() ? std::string() : ": " + tail));
  }
  if (auto error = detail::error_in_report(report, "the checkout child")) return *error;
  return {};
}

Result<git_repository*> Libgit2WorkTree::mirror_repository() {
  if (!m_mirror_repository) {
    git_repository* raw = nullptr;
    if (git_repository_open_bare(&raw, m_mirror.c_str()) < 0)
      return git_failure(ErrorCode::git, "cannot open the mirror '" + m_mirror.string() + "'");
    m_mirror_repository.reset(raw);
  }
  return m_mirror_repository.get();
}

// From the mirror, never from the work tree's .git, which a build can write.
Result<TreePtr> Libgit2WorkTree::commit_tree(const ObjectId& id) {
  auto repository = mirror_repository();
  if (!repository) return repository.error();
  auto oid = parse_oid(id);
  if (!oid) return Error(ErrorCode::invalid_input, "'" + id.hex + "' is not a commit id");
  git_commit* commit = nullptr;
  const int rc = git_commit_lookup(&commit, *repository, &*oid);
  if (rc == GIT_ENOTFOUND)
    return Error(ErrorCode::not_found, "commit " + id.hex + " is missing from the mirror");
  if (rc < 0) return git_failure(ErrorCode::git, "cannot read commit " + id.hex);
  const CommitPtr owned(commit);
  git_tree* raw = nullptr;
  if (git_commit_tree(&raw, owned.get()) < 0)
    return git_failure(ErrorCode::not_found, "cannot read the tree of " + id.hex);
  return TreePtr(raw);
}

Result<std::vector<std::string>> Libgit2WorkTree::changed_paths(const ObjectId& from, const ObjectId& to) {
  auto old_tree = commit_tree(from);
  if (!old_tree) return old_tree.error();
  auto new_tree = commit_tree(to);
  if (!new_tree) return new_tree.error();
  git_diff* raw = nullptr;
  git_diff_options options = GIT_DIFF_OPTIONS_INIT;
  if (git_diff_tree_to_tree(&raw, git_tree_owner(old_tree->get()), old_tree->get(), new_tree->get(),
                            &options) < 0)
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
                                                 WorkTreeOptions options) {
  auto tree = std::make_unique<Libgit2WorkTree>(directory, mirror, origin_url, log, std::move(options));
  if (auto opened = tree->open(); !opened) return opened.error();
  return std::unique_ptr<WorkTree>(std::move(tree));
}

Result<void> run_checkout_child(const fs::path& request_file, const fs::path& result_file) {
  auto done = [&]() -> Result<void> {
    const Json request = Json::parse(read_file(request_file).value_or(""), nullptr, false);
    if (request.is_discarded() || !request.is_object())
      return Error(ErrorCode::invalid_input, "unreadable checkout request '" + request_file.string() + "'");
    Checkout checkout(request.value("work_tree", ""), {});
    if (auto opened = checkout.open(request.value("mirror", ""), request.value("origin_url", "")); !opened)
      return opened;
    return checkout.checkout(ObjectId{request.value("commit", "")}, request.value("submodules", false),
                             nullptr);
  }();
  const Json report = done ? Json{{"ok", true}} : detail::error_report(done.error());
  if (auto written = write_file_atomically(result_file, report.dump()); !written) return written;
  return done;
}

}  // namespace aaw
