// Process-wide setup, created once in main(): the embedded interpreter (started on first use, as
// check-config and other commands never need it). libgit2's global state is reference-counted by
// each mirror itself.
#pragma once

#include <memory>

#include "core/ports/python_host.hpp"

namespace aaw {

class EmbeddedPython;

class Runtime {
 public:
  Runtime();
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // The interpreter; throws std::runtime_error when it cannot start.
  PythonHost& python();

 private:
  std::unique_ptr<EmbeddedPython> m_python;
};

}  // namespace aaw
