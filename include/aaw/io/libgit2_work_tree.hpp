// The WorkTree port on libgit2 (src/io/libgit2_work_tree.cpp).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "aaw/core/log.hpp"
#include "aaw/core/work_tree.hpp"

namespace aaw {

// Opens the work tree in `directory`, creating it on first use, borrowing the objects of the bare
// repository `mirror` (its objects/ directory, through objects/info/alternates). Relative
// submodule URLs are resolved against `origin_url`. `stop_requested` (empty: never) is polled
// while a submodule is fetched, which then ends as cancelled. io or git when it cannot be created.
Result<std::unique_ptr<WorkTree>> open_work_tree(const std::filesystem::path& directory,
                                                 const std::filesystem::path& mirror,
                                                 const std::string& origin_url, Logger& log,
                                                 std::function<bool()> stop_requested = {});

}  // namespace aaw
