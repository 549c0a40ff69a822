#include "io/git/libgit2_repack.hpp"

#include <git2.h>

#include <algorithm>
#include <memory>
#include <string>
#include <system_error>

#include "io/git/libgit2_handles.hpp"
#include "io/git/libgit2_remote.hpp"

namespace aaw::detail {
namespace {

namespace fs = std::filesystem;

using PackbuilderPtr = std::unique_ptr<git_packbuilder, GitFree<git_packbuilder_free>>;
using RevwalkPtr = std::unique_ptr<git_revwalk, GitFree<git_revwalk_free>>;

bool is_hex_pair(const std::string& name) {
  return name.size() == 2 && name.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Every ref's target, annotated tags included (a revwalk reaches commits only).
int insert_ref(git_reference* ref, void* payload) {
  auto* builder = static_cast<git_packbuilder*>(payload);
  git_reference* resolved = nullptr;
  int rc = git_reference_resolve(&resolved, ref);
  if (rc == 0) {
    rc = git_packbuilder_insert_recur(builder, git_reference_target(resolved), git_reference_name(ref));
    git_reference_free(resolved);
  }
  git_reference_free(ref);
  return rc == GIT_ENOTFOUND ? 0 : rc;  // a dangling ref holds nothing to keep
}

Result<std::string> write_reachable_pack(git_repository* repository, const fs::path& pack_dir) {
  git_packbuilder* raw_builder = nullptr;
  if (git_packbuilder_new(&raw_builder, repository) < 0)
    return git_failure(ErrorCode::git, "cannot start a pack");
  PackbuilderPtr builder(raw_builder);
  // Every core for the delta search: the daemon waits on the repack between two polls.
  git_packbuilder_set_threads(builder.get(), 0);
  git_revwalk* raw_walk = nullptr;
  if (git_revwalk_new(&raw_walk, repository) < 0)
    return git_failure(ErrorCode::git, "cannot walk the history");
  RevwalkPtr walk(raw_walk);
  if (git_revwalk_push_glob(walk.get(), "refs/*") < 0 ||
      git_packbuilder_insert_walk(builder.get(), walk.get()) < 0)
    return git_failure(ErrorCode::git, "cannot collect the objects the branches reach");
  if (git_reference_foreach(repository, insert_ref, builder.get()) < 0)
    return git_failure(ErrorCode::git, "cannot collect the objects the refs reach");
  if (git_packbuilder_write(builder.get(), pack_dir.c_str(), 0, nullptr, nullptr) < 0)
    return git_failure(ErrorCode::git, "cannot write the new pack");
  return std::string("pack-") + git_packbuilder_name(builder.get());
}

// Everything in objects/ but the pack named `kept` and packs with a .keep file.
void remove_all_but(const fs::path& objects, const std::string& kept) {
  std::error_code ec;
  for (fs::directory_iterator it(objects / "pack", ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path path = it->path();
    const std::string stem = path.stem().string();
    if (stem == kept || stem.rfind("pack-", 0) != 0) continue;
    if (fs::exists(objects / "pack" / (stem + ".keep"))) continue;
    std::error_code ignored;
    fs::remove(path, ignored);
  }
  for (fs::directory_iterator it(objects, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory() || !is_hex_pair(it->path().filename().string())) continue;
    std::error_code ignored;
    fs::remove_all(it->path(), ignored);
  }
}

}  // namespace

ObjectStoreUse object_store_use(const fs::path& repository) {
  ObjectStoreUse use;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(repository / "objects", ec), end; !ec && it != end;
       it.increment(ec)) {
    std::error_code entry_ec;
    if (!it->is_regular_file(entry_ec)) continue;
    const auto size = it->file_size(entry_ec);
    if (!entry_ec) use.bytes += size;
    const fs::path& path = it->path();
    if (path.extension() == ".pack") {
      ++use.packs;
      if (!entry_ec) {
        use.pack_bytes += size;
        use.largest_pack = std::max<std::uint64_t>(use.largest_pack, size);
      }
    } else if (is_hex_pair(path.parent_path().filename().string()))
      ++use.loose;
  }
  return use;
}

bool repack_pays(const ObjectStoreUse& use, std::size_t max_packs) {
  if (use.packs > max_packs) return true;
  return use.packs > 1 && use.pack_bytes - use.largest_pack > use.largest_pack / 2;
}

Result<void> repack_repository(const fs::path& repository) {
  git_repository* raw = nullptr;
  if (git_repository_open_bare(&raw, repository.c_str()) < 0)
    return git_failure(ErrorCode::git,
                       "cannot open the mirror " + in_quotes(repository.string()) + " to repack it");
  RepositoryPtr repo(raw);
  auto pack = write_reachable_pack(repo.get(), repository / "objects" / "pack");
  if (!pack) return pack.error().context("repacking " + in_quotes(repository.string()));
  remove_all_but(repository / "objects", *pack);
  return {};
}

}  // namespace aaw::detail
