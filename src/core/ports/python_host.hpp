// The one door into Python. The real host (embedded_python.hpp) owns the interpreter and the GIL;
// only one thread calls into it.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace aaw {

using Json = nlohmann::json;

// A C++ function Python may call during one call(): takes the positional arguments as a JSON
// array, returns a JSON value; an Error becomes a Python exception (aaw_host.HostError) there.
using HostCallback = std::function<Result<Json>(const Json& args)>;
using HostCallbacks = std::map<std::string, HostCallback, std::less<>>;

class PythonHost {
 public:
  virtual ~PythonHost() = default;

  // Calls module.function(args, host) where `args` is `args` converted to Python objects and
  // `host` an object whose attributes are the callbacks. Returns the result converted to JSON;
  // python with the exception's type, message and traceback when the function raises.
  virtual Result<Json> call(std::string_view module, std::string_view function, const Json& args,
                            const HostCallbacks& callbacks) = 0;
};

}  // namespace aaw
