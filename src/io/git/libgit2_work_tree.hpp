// The WorkTree port on libgit2 (src/io/git/libgit2_work_tree.cpp).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "core/ports/sandbox.hpp"
#include "core/ports/work_tree.hpp"
#include "core/report/log.hpp"

namespace aaw {

struct WorkTreeOptions {
  // Polled during a checkout; once true it ends as cancelled (a submodule fetch is aborted, a
  // confined checkout killed). Empty: never.
  std::function<bool()> stop_requested;
  // When set, every checkout runs as `program __checkout REQUEST RESULT` in this sandbox, which may
  // write the work tree only: a build's leftovers in the tree (a link to a file elsewhere, a
  // .git/config naming another work tree, a FIFO) cannot make the checkout write outside it or
  // hang (under bubblewrap; the plain runner confines nothing, and neither does it confine builds).
  // A checkout the child cannot complete that way is tried once more in a tree made afresh.
  // nullptr: checkouts run in this process.
  Sandbox* sandbox = nullptr;
  std::filesystem::path program;       // this binary, for __checkout
  std::chrono::seconds timeout{3600};  // of one confined checkout, submodule fetches included
};

// Opens the work tree in `directory`, creating it on first use, borrowing the objects of the bare
// repository `mirror` (its objects/ directory, through objects/info/alternates). Relative
// submodule URLs are resolved against `origin_url`. changed_paths() reads the mirror, never the
// work tree's own .git. io or git when it cannot be created.
Result<std::unique_ptr<WorkTree>> open_work_tree(const std::filesystem::path& directory,
                                                 const std::filesystem::path& mirror,
                                                 const std::string& origin_url, Logger& log,
                                                 WorkTreeOptions options = {});

// The checkout child's side, for `__checkout REQUEST RESULT`: reads the request the work tree wrote,
// checks out in this process, and writes {"ok": ...} to RESULT (helper_report.hpp). Returns what it
// reported; io when RESULT cannot be written.
Result<void> run_checkout_child(const std::filesystem::path& request, const std::filesystem::path& result);

}  // namespace aaw
