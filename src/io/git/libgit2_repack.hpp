// Mirror maintenance, with libgit2 alone (no git program at run time): every object reachable from
// the mirror's refs written into one new pack, then every other pack and every loose object
// removed, which is what `git repack -a -d` and `git prune` leave. Each fetch adds a pack (libgit2
// keeps what it fetches packed) and a force-push leaves the abandoned commits' objects behind, so a
// daemon polling for months would otherwise pile up both. Internal to src/io/git/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "util/result.hpp"

namespace aaw::detail {

// What the objects directory of a repository holds.
struct ObjectStoreUse {
  std::size_t packs = 0;  // pack files (.pack)
  std::size_t loose = 0;  // loose object files
  std::uint64_t bytes = 0;
  std::uint64_t pack_bytes = 0;    // of the .pack files
  std::uint64_t largest_pack = 0;  // bytes of the largest .pack
};

// `repository`'s objects directory as it is now; zeros where it cannot be read.
ObjectStoreUse object_store_use(const std::filesystem::path& repository);

// Whether `use` is worth a repack: more than `max_packs` packs, or packs besides the largest that
// together weigh more than half of it. libgit2 stores what it fetches without deltas against what
// the mirror has (a commit touching one file of aiter/ costs a whole copy of that directory's
// tree, about 100 kB), so the fetched packs outgrow the history long before they are many.
bool repack_pays(const ObjectStoreUse& use, std::size_t max_packs);

// Repacks the bare repository at `repository` as said above. Objects nothing reaches (what a
// force-push abandoned) are dropped; a pack with a .keep file is kept. The new pack is complete
// before anything is removed, so a failure leaves the repository as it was, or with one pack more.
// git or io naming the repository otherwise.
Result<void> repack_repository(const std::filesystem::path& repository);

}  // namespace aaw::detail
