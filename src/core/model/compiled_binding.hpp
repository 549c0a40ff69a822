// A compile_ops stub against its compiled binding: where they disagree (drift), and how a binding
// changed between two commits. The stub is what Python shows; the binding is what a call reaches,
// since compile_ops forwards every argument unchanged: a keyword the binding names otherwise, an
// argument it orders otherwise, or a default only the stub gives fails or misbehaves at run time.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/model/diff.hpp"
#include "core/model/signature.hpp"

namespace aaw {

// name: a parameter the binding calls otherwise; order: one at another position; count: more or
// fewer parameters; default: a default only the stub gives, or another value; unnamed: a pybind11
// binding that names no argument (a keyword call fails).
enum class DriftKind { name, order, count, default_value, unnamed };

std::string_view to_string(DriftKind kind);

struct Drift {
  DriftKind kind;
  std::string parameter;  // the stub's parameter concerned; empty for count and unnamed
  std::string sentence;   // for people: what differs and what a caller meets
  bool operator==(const Drift&) const = default;
};

Json to_json(const Drift& drift);

// Where `stub` (the def's signature) and `binding` disagree, empty when they agree or when the
// binding could not be read. With overloads, the closest one counts (pybind11 tries each).
std::vector<Drift> binding_drift(const Signature& stub, const CompiledBinding& binding);

// What people read of a stub's binding: one line naming it ("binding: pybind11 grouped_topk(...) at
// csrc/include/rocm_ops.hpp:1373, module module_moe_asm") or why it could not be read, then one
// line per drift ("drift (name): ...").
std::vector<std::string> describe_binding(const Signature& stub, const CompiledBinding& binding);

// When `changes` hold one of the binding facet: the two bindings as people read them ("old
// binding: pybind11 f(a, b) at csrc/include/rocm_ops.hpp:12"), else nothing. Printed under a
// change's old and new signatures, which do not show the binding.
std::vector<std::string> binding_sides(const SignatureState& before, const SignatureState& after,
                                       const std::vector<Change>& changes);
// The same of a recorded change or a compare document's function: {"old", "new", "changes"}.
std::vector<std::string> binding_sides(const Json& function_change);

// The changes of the binding facet from `before` to `after` (both ok states): the binding's own
// parameters changed (except what the stub's `signature_changes` already say), it became readable
// or not, drift appeared or went away. Empty when either state has no binding (a record made
// before bindings were read, or a function that is no stub).
std::vector<Change> diff_bindings(const SignatureState& before, const SignatureState& after,
                                  const std::vector<Change>& signature_changes);

}  // namespace aaw
