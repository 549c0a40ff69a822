// Which function of the package a `torch.ops.<package>.<op>` call reaches at a commit: the
// registration of the op among the modules importing the package loads. The port; the static
// resolver implements it (extract/static/static_function_finder, src/python/aaw_ops.py).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model/signature.hpp"
#include "core/ports/source_tree.hpp"
#include "util/result.hpp"

namespace aaw {

struct RegisteredOp {
  MonitoredFunction function;  // the function registered: "from aiter.ops.sampling import f", "f"
  std::string target;          // its dotted name in the package: "aiter.ops.sampling.f"
  std::string how;             // "direct_register_custom_op at aiter/ops/sampling.py:30"
  // The op's schema starts with a tensor the function does not declare (aiter's compile_ops and
  // torch_compile_guard add one when the first parameter is not a tensor): calls do not bind
  // as against the function.
  bool prepends_tensor = false;
};

struct OpRegistrations {
  std::map<std::string, std::optional<RegisteredOp>> ops;  // every op asked; nullopt: no registration found
  std::size_t modules_searched = 0;
  std::string unknown;  // why the modules searched cannot be told (then nothing is found), or ""
};

class OpRegistry {
 public:
  virtual ~OpRegistry() = default;
  // The registration of each of `ops` in the modules that importing `package` and each of
  // `modules` (what the consumer imports) loads at `commit`. An Error when the commit cannot be read.
  virtual Result<OpRegistrations> registered_ops(const ObjectId& commit, const std::string& package,
                                                 const std::vector<std::string>& modules,
                                                 const std::vector<std::string>& ops) = 0;
};

}  // namespace aaw
