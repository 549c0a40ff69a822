// The real PythonHost: the interpreter embedded with pybind11, with our helper modules
// (src/python/*.py, compiled into the binary) importable by their file names.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "aaw/python_host.hpp"

namespace aaw {

struct PythonSource {
  std::string module;  // "aaw_static"
  std::string text;
};

// Generated at build time from src/python/*.py (cmake/EmbedPython.cmake).
const std::vector<PythonSource>& embedded_python_sources();

class EmbeddedPython final : public PythonHost {
 public:
  // Starts the interpreter (at most one per process) and installs the embedded helper modules.
  // Throws std::runtime_error when the interpreter cannot start: nothing works without it.
  EmbeddedPython();
  ~EmbeddedPython() override;
  EmbeddedPython(const EmbeddedPython&) = delete;
  EmbeddedPython& operator=(const EmbeddedPython&) = delete;

  Result<Json> call(std::string_view module, std::string_view function, const Json& args,
                    const HostCallbacks& callbacks) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace aaw
