// Values unit tests build their inputs from, shared so that two tests compiled in one batch (a
// unity build) never define the same name twice.
#pragma once

#include <chrono>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/model/diff.hpp"
#include "core/model/signature.hpp"
#include "core/ports/source_tree.hpp"
#include "util/result.hpp"
#include "util/time.hpp"

namespace aaw::test {

// A fixed "now" for tests that compute ages and deadlines.
inline const TimePoint k_fixed_now = TimePoint(std::chrono::seconds(1'800'000'000));

// A positional-or-keyword parameter, as most signatures in tests are made of.
inline Parameter param(std::string name, std::optional<std::string> default_value = std::nullopt,
                       std::optional<std::string> annotation = std::nullopt) {
  return Parameter{std::move(name), ParameterKind::positional_or_keyword, std::move(default_value),
                   std::move(annotation)};
}

// A pybind11 binding of `f` in module_f at csrc/include/rocm_ops.hpp:`line`, taking `signature`.
inline CompiledBinding binding_of(Signature signature, int line) {
  CompiledBinding binding;
  binding.name = "f";
  binding.module = "module_f";
  binding.file = "csrc/include/rocm_ops.hpp";
  binding.line = line;
  binding.signature = std::move(signature);
  return binding;
}

// Parameter 'b' removed: a breaking change.
inline const Change k_b_removed{ChangeKind::parameter_removed, Severity::breaking, "b", "b", std::nullopt};

// A commit id made of `n` ("000...02a" for 42): distinct, stable ids for fakes.
inline ObjectId sha(int n) {
  char hex[41];
  std::snprintf(hex, sizeof hex, "%040x", n);
  return ObjectId{hex};
}

// A well-formed commit id that names nothing.
inline constexpr const char* k_sample_sha = "0123456789abcdef0123456789abcdef01234567";

// The value of `result`; an exception naming its error when it has none.
template <class T>
T value_of(Result<T> result) {
  if (!result) throw std::runtime_error("unexpected error: " + result.error().message());
  return std::move(result).value();
}

}  // namespace aaw::test
