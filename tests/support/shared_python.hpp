// The one embedded interpreter of a test process: Python cannot be restarted safely, so every
// test that needs the real interpreter shares this instance (started on first use).
#pragma once

#include "io/python/embedded_python.hpp"

namespace aaw::test {

inline EmbeddedPython& shared_python() {
  static EmbeddedPython python;
  return python;
}

}  // namespace aaw::test
