// A small Python package, fixpkg, written into a git repository over several commits for the
// runtime extractor: its setup.py builds a real C extension (fixpkg._native, compiled by
// setuptools in about a second), its wrappers' signatures change across commits, one function is
// made by a factory at import time (only an import can see it), and some commits break the
// machinery: a build that fails, an import that segfaults, an import that hangs, each followed by
// a good commit. Every setup.py refuses to build when a *_TOKEN, *_KEY or *_SECRET variable is in
// its environment, so a build that succeeds proves none leaked.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/model/signature.hpp"
#include "support/git_fixture.hpp"

namespace aaw::test {

struct RuntimeFixtureCommits {
  std::string base;           // scale(x: float, factor: float = 2.0) -> float; combine(a, b, *, mode='sum');
                              // clamp(x, lo=0, hi=1); fused (factory): (x, y, *, scale=1.0)
  std::string param_added;    // scale gains `offset: Optional[float] = None` (fixpkg/api.py only)
  std::string param_removed;  // combine loses `b`
  std::string default_changed;   // clamp: hi=1 -> hi=10
  std::string build_fails;       // setup.py exits 1 ("planted build failure")
  std::string build_fixed;       // setup.py restored; API unchanged
  std::string import_segfaults;  // fixpkg/__init__.py calls ctypes.string_at(0) at import
  std::string segfault_fixed;    // removed again; API unchanged
  std::string import_hangs;      // fixpkg/__init__.py sleeps an hour at import
  std::string hang_fixed;        // removed again; API unchanged
  std::string native_changed;    // csrc/native.c gains mul(); fixpkg.product(a, b) appears
  std::string docs_changed;      // README.md only

  std::vector<std::string> in_order() const;
};

class RuntimeFixture {
 public:
  // scale, combine, clamp, fused and product, through several import forms.
  static std::vector<MonitoredFunction> functions();

  // Writes the history into `repo` (on main).
  static RuntimeFixtureCommits build(GitFixture& repo);

  // One more commit on top of the current branch: fixpkg as in `docs_changed` with an atexit
  // handler that segfaults (ctypes.string_at(0)), as a GPU runtime's teardown does; setup.py
  // and csrc unchanged. Returns its sha.
  static std::string add_exit_crash(GitFixture& repo);

  // A config for `repository_url` with extractor runtime, state and log under `work_dir`, build
  // paths setup.py and csrc (Python-only commits reuse the last build), the plain process sandbox
  // and a 3 s extraction timeout.
  static std::string config_json(const std::string& repository_url, const std::filesystem::path& work_dir,
                                 const std::string& extra_keys = "");
};

}  // namespace aaw::test
