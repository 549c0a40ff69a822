#include "io/runtime.hpp"

#include "io/python/embedded_python.hpp"

namespace aaw {

Runtime::Runtime() = default;
Runtime::~Runtime() = default;

PythonHost& Runtime::python() {
  if (!m_python) m_python = std::make_unique<EmbeddedPython>();
  return *m_python;
}

}  // namespace aaw
