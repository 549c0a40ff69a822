// The consumer's side in Python: the scan of a consumer tree (src/python/aaw_consumer.py) and the
// binding of call shapes against signature states (src/python/aaw_binder.py), both run in the
// embedded interpreter. Nothing of the consumer is imported or executed.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/consumer/consumer.hpp"
#include "core/ports/python_host.hpp"

namespace aaw {

// Every import of `package` in the .py files under `root` and every call reached through them.
// invalid_input when `root` is not a directory; python when the scanner itself fails.
Result<ConsumerScan> scan_consumer(PythonHost& python, const std::filesystem::path& root,
                                   const std::string& package);

// CallBinder on aaw_binder.bind_all: inspect.Signature.bind on a stub made from each signature.
class PythonCallBinder : public CallBinder {
 public:
  explicit PythonCallBinder(PythonHost& python) : m_python(python) {}
  Result<std::vector<Binding>> bind(const std::vector<Request>& requests) override;

 private:
  PythonHost& m_python;
};

}  // namespace aaw
