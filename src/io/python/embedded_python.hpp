// The real PythonHost: the interpreter embedded with pybind11, with our helper modules
// (src/python/*.py, compiled into the binary) importable by their file names.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/ports/python_host.hpp"

namespace aaw {

struct PythonSource {
  std::string module;  // "aaw_static"
  std::string text;
  // Its code, compiled when the binary was built: the compiling Python's magic number, then the
  // marshalled code object. Run instead of compiling `text` when the magic is the running
  // interpreter's; empty when there is none.
  std::string compiled = {};
};

// The interpreter this binary embeds: its executable (what runtime venvs are made from, so that
// extensions built in them import here) and its "X.Y".
std::filesystem::path embedded_python_executable();
std::string embedded_python_version();
// 16 hex digits naming the embedded helpers' sources and the interpreter's exact version: what
// answers computed by them are kept under (io/sqlite/sqlite_result_cache.hpp).
std::string embedded_python_digest();

// Generated at build time from src/python/*.py (cmake/embed_python.py).
const std::vector<PythonSource>& embedded_python_sources();

class EmbeddedPython final : public PythonHost {
 public:
  // Starts the interpreter (at most one per process, ever: Python cannot be restarted safely)
  // isolated from PYTHON* variables and the user's site-packages, writing no bytecode and leaving
  // SIGINT/SIGTERM to the daemon; then installs aaw_host (HostError) and the embedded helpers.
  // Throws std::runtime_error when the interpreter cannot start or a helper does not load:
  // nothing works without them. Calls must come from the constructing thread.
  EmbeddedPython();
  ~EmbeddedPython() override;
  EmbeddedPython(const EmbeddedPython&) = delete;
  EmbeddedPython& operator=(const EmbeddedPython&) = delete;

  Result<Json> call(std::string_view module, std::string_view function, const Json& args,
                    const HostCallbacks& callbacks) override;

  // Compiles `source` as module `name` (tracebacks name it "<aaw>/NAME.py"), runs it and puts it
  // in sys.modules, replacing any module of that name. python with the exception when it does
  // not compile or raises; sys.modules then keeps what it had under that name. `compiled`
  // (PythonSource::compiled) is run instead of compiling `source` when its magic number is this
  // interpreter's and it unmarshals to code.
  Result<void> install_module(std::string_view name, std::string_view source, std::string_view compiled = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace aaw
