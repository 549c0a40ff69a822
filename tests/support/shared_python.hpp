// The one embedded interpreter of a test process: Python cannot be restarted safely, so every
// test that needs the real interpreter shares this instance (started on first use).
#pragma once

#include "io/python/embedded_python.hpp"

namespace aaw::test {

inline EmbeddedPython& shared_python() {
  static EmbeddedPython python;
  return python;
}

// Forgets every module summary the shared interpreter parsed (aaw_summary's cache outlives calls by
// design), so that a test starts cold and its read counts are exact.
inline Result<Json> clear_python_cache() {
  static const Result<void> installed = shared_python().install_module("aaw_test_cache", R"(
import aaw_summary


def clear(args, host):
    aaw_summary.clear_cache()
)");
  if (!installed) return installed.error();
  return shared_python().call("aaw_test_cache", "clear", nullptr, {});
}

}  // namespace aaw::test
