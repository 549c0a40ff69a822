// The CallBinder port in the embedded interpreter (src/python/aaw_binder.py): a call shape bound by
// inspect.Signature.bind against a stub made from each signature state.
#pragma once

#include <vector>

#include "core/consumer/consumer.hpp"
#include "core/ports/python_host.hpp"

namespace aaw {

class PythonCallBinder : public CallBinder {
 public:
  explicit PythonCallBinder(PythonHost& python) : m_python(python) {}
  Result<std::vector<Binding>> bind(const std::vector<Request>& requests) override;

 private:
  PythonHost& m_python;
};

}  // namespace aaw
