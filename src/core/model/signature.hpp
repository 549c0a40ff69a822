// The model of what we watch and what we saw: a monitored function, the parameters of its call
// signature, and its state at one commit (a signature, or why there is none).
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace aaw {

using Json = nlohmann::json;

// Canonical text of a JSON value (no spaces; nlohmann sorts object keys); invalid UTF-8 (a commit
// subject can hold any bytes) is replaced rather than thrown on.
std::string compact(const Json& json);

// One entry of functions_to_monitor: how a caller imports it and the expression it calls.
struct MonitoredFunction {
  std::string import_statement;  // e.g. "import aiter.fused_moe_bf16_asm as rocm_aiter_asm_fmoe"
  std::string function_path;     // e.g. "rocm_aiter_asm_fmoe.asm_moe"
  bool operator==(const MonitoredFunction&) const = default;
};

// As inspect.Parameter.kind; to_string gives inspect's names ("POSITIONAL_OR_KEYWORD").
enum class ParameterKind {
  positional_only,
  positional_or_keyword,
  var_positional,
  keyword_only,
  var_keyword
};

std::string_view to_string(ParameterKind kind);
std::optional<ParameterKind> parse_parameter_kind(std::string_view text);

struct Parameter {
  std::string name;
  ParameterKind kind = ParameterKind::positional_or_keyword;
  std::optional<std::string> default_value;  // source text (ast.unparse) or repr; nullopt: none
  std::optional<std::string> annotation;     // source text; nullopt: none
  // What a default spelled as a name refers to, as static extraction followed it: the qualified
  // name of a function, class or module ("time.monotonic"), or "= <expression>" for a name bound
  // to a value at module level ("= sys.maxsize / 2"). Defaults are compared by it when both sides
  // have one (a respelling is no change; a constant changed behind the same name is). nullopt:
  // not a name, or not followed.
  std::optional<std::string> default_refers_to = std::nullopt;

  // As Python prints one parameter: "a", "a=1", "a: int", "a: int = 1", "*args", "**kw: Any".
  std::string text() const;
  bool operator==(const Parameter&) const = default;
};

// One item of a printed parameter list: a parameter, or a "/" or "*" separator.
struct SignaturePart {
  const Parameter* parameter = nullptr;  // null for a separator; points into the Signature
  std::string text;                      // Parameter::text(), or "/" or "*"
};

struct Signature {
  std::vector<Parameter> parameters;
  std::optional<std::string> return_annotation;

  // As Python prints an inspect.Signature: "(a, /, b: int = 1, *, c, **kw) -> None".
  std::string text() const;
  // The items text() joins with ", ", in order; valid while this Signature lives.
  std::vector<SignaturePart> parts() const;
  const Parameter* find(std::string_view name) const;
  bool operator==(const Signature&) const = default;
};

// What a call of an aiter `compile_ops` stub really reaches: the compiled function the stub's
// decorator forwards every argument to (read by src/python/aaw_bindings.py). Its parameters are
// those pybind11's py::arg list names, or a ctypes entry point's C parameters (without the stream
// aiter appends); core/model/compiled_binding.hpp compares them with the stub's.
enum class BindingKind { pybind11, ctypes };

std::string_view to_string(BindingKind kind);

struct CompiledBinding {
  BindingKind kind = BindingKind::pybind11;
  std::string name;    // the compiled function's name (compile_ops' fc_name, or the def's)
  std::string module;  // the compiled module (compile_ops' first argument)
  bool resolved = true;
  std::string detail;  // why it could not be read, when not resolved
  std::string file;    // where the binding is written (a macro's header, a pybind or C source)
  int line = 0;
  bool named = true;    // false: an m.def without py::arg, whose arguments pybind11 takes by position only
  Signature signature;  // parameters with their kind and default text; no annotations
  std::vector<Signature> overloads;  // further m.defs of the same name, in order
  bool operator==(const CompiledBinding&) const = default;
};

// Statements about the code (ok, missing, unresolved, syntax_error) are diffed; failures of our
// machinery (build_failed, import_error, extract_failed) are recorded but never diffed.
enum class Status { ok, missing, unresolved, syntax_error, build_failed, import_error, extract_failed };

std::string_view to_string(Status status);
std::optional<Status> parse_status(std::string_view text);
bool is_machinery_failure(Status status);

struct SignatureState {
  Status status = Status::missing;
  Signature signature;  // meaningful only when status is ok
  std::string detail;   // why, for every status but ok; for ok, an optional note (a decorator
                        // that may replace the function, a functools.partial)
  std::optional<CompiledBinding> binding;  // for ok: the compiled binding of a compile_ops stub
  // For ok: why the tool cannot vouch for this signature (a decorator it cannot follow: what
  // callers meet may differ); empty when it can. Shown beside the signature everywhere and
  // counted; its text is never diffed, only its appearing or going (diff_states).
  std::string unverified;
  // For ok: read by importing the commit's tree (inspect.signature) where static extraction could
  // not vouch for the signature (`extractor: static+import`), not from source: defaults are as
  // Python prints them and annotations as it formats them, so diff_states compares it with a
  // state read from source as the cross-check does (core/model/cross_check.hpp).
  bool by_import = false;

  static SignatureState ok(Signature signature);
  static SignatureState failed(Status status, std::string detail);

  bool is_ok() const { return status == Status::ok; }
  bool is_unverified() const { return is_ok() && !unverified.empty(); }
  // One line: the signature text when ok (with "  [unverified: <why>]" when it is), else
  // "<status>: <detail>".
  std::string summary() const;
  bool operator==(const SignatureState&) const = default;
};

// How many of some states the tool cannot vouch for: `show`, a replay's closing line (ChangeTally)
// count them.
struct Doubts {
  std::size_t unverified = 0;  // ok, but read through something the resolver cannot follow
  std::size_t unresolved = 0;
  void add(const SignatureState& state) {
    if (state.is_unverified()) ++unverified;
    if (state.status == Status::unresolved) ++unresolved;
  }
};

// The contract's STATE object: {"status", "text", "signature": {...}, "detail", "unverified",
// "binding", "binding_drift"} (the last two for a compile_ops stub; the drift is computed, never
// read back).
Json to_json(const SignatureState& state);
Json to_json(const Signature& signature);
// Reads a STATE object; invalid_input naming the bad field when it does not fit the contract.
Result<SignatureState> state_from_json(const Json& json);
// The text of a STATE object as the log shows it (SignatureState::summary), or the object as JSON
// when it does not fit the contract.
std::string state_summary(const Json& state);
Result<Signature> signature_from_json(const Json& json);
Json to_json(const CompiledBinding& binding);
Result<CompiledBinding> binding_from_json(const Json& json);

}  // namespace aaw
