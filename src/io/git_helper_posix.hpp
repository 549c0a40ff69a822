// The parent's side of the git helper (include/aaw/io/git_helper.hpp). Internal to src/io.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>

#include "libgit2_remote.hpp"

namespace aaw::detail {

struct HelperOptions {
  std::filesystem::path program;                      // run as `PROGRAM __git`
  std::optional<std::chrono::seconds> stall_timeout;  // none: as long as it takes
  std::function<bool()> stop_requested;               // empty: never
};

// run_remote(request) in a helper process: the same results, plus network ("... sent nothing for
// N s") when the remote is silent past the stall timeout, cancelled when stop_requested() turned
// true (the helper is killed in both cases, at once), and io when the helper cannot be started or
// dies without a result.
Result<std::optional<ObjectId>> run_remote_in_helper(const RemoteRequest& request,
                                                     const HelperOptions& options);

}  // namespace aaw::detail
