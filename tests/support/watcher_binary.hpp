// The built aiter-api-watcher (AAW_BINARY, defined for the targets that run it) run as a user
// would, in `cwd`, without a GITHUB_TOKEN from the environment the tests run in.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "support/process.hpp"

namespace aaw::test {

inline ProcessResult run_watcher(const std::filesystem::path& cwd, const std::vector<std::string>& args,
                                 RunOptions options = {}) {
  std::vector<std::string> argv = {AAW_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  options.cwd = cwd;
  options.unset_env.push_back("GITHUB_TOKEN");
  return run_process(argv, options);
}

}  // namespace aaw::test
