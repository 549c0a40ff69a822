// The Sandbox port: the plain POSIX runner and bubblewrap (src/io/sandbox_posix.cpp,
// src/io/bwrap_sandbox.cpp).
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "aaw/core/config.hpp"
#include "aaw/core/log.hpp"
#include "aaw/core/sandbox.hpp"

namespace aaw {

// The sandbox chosen by `config.kind` with `root` as its writable directory (created when missing;
// HOME is root/home and TMPDIR root/tmp). auto: bubblewrap when it can create namespaces here, else
// the plain runner with one warning on `log`; bwrap: invalid_input when bubblewrap is missing or
// cannot run here; process: the plain runner. io when root cannot be created. root() is its
// canonical path (bwrap binds it at that path). `log` must outlive the sandbox (it gets the
// warnings about secrets dropped from a request's env). `hidden` are files no sandboxed command may
// read (github.token_file): bubblewrap binds /dev/null over each that exists; the plain runner
// cannot, and warns for each it could read.
Result<std::unique_ptr<Sandbox>> make_sandbox(const SandboxConfig& config, const std::filesystem::path& root,
                                              Logger& log,
                                              const std::vector<std::filesystem::path>& hidden = {});

}  // namespace aaw
