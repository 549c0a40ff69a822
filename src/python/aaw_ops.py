"""Which function of the package a `torch.ops.<package>.<op>` call reaches: the registration of
the op in the modules importing the package (and the modules the consumer imports) loads.

aiter registers its ops two ways, both read here statically:
- `direct_register_custom_op("op", function, ...)` (or op_name=/op_func= keywords): the op's schema
  is the function's signature (torch.library.infer_schema), so a call binds as against it;
- a def decorated with `compile_ops(...)` or `torch_compile_guard(...)`: the op is named after the
  def. Its schema gains a leading dummy tensor when the first parameter is not annotated as a
  tensor; such an op is reported with `prepends_tensor`, and its calls are not bound.
Called from C++ (src/extract/static/static_extractor.cpp) with the same host as aaw_static.
Pure standard library, Python 3.9+.
"""

import ast
from typing import Any, Dict, Optional

import aaw_resolver
from aaw_values import HostFailure, SyntaxFailure, TooDeep

_REGISTERING_CALLS = ("direct_register_custom_op",)
_REGISTERING_DECORATORS = ("compile_ops", "torch_compile_guard")
_TENSOR_ANNOTATIONS = ("torch.Tensor", "Tensor")


def find_ops(args: Dict[str, Any], host: Any) -> Dict[str, Any]:
    """args = {"package": "aiter", "modules": [names the consumer imports], "ops": [op, ...], and
    aaw_static.resolve_all's source_roots/module_aliases} -> {"ops": {op: REGISTRATION or None},
    "searched": n modules, "unknown": why the modules loaded cannot be told, or None}.
    REGISTRATION = {"import_statement", "function_path", "target", "file", "line", "how",
    "prepends_tensor"}."""
    package = args.get("package") or "aiter"
    wanted = set(args.get("ops") or [])
    session = aaw_resolver.Session(host, args.get("source_roots"), args.get("module_aliases"))
    found = {op: None for op in wanted}
    unknown = "the modules importing %s loads cannot be told statically" % package
    try:
        loaded = session.modules_loaded_by(
            {package} | {m for m in args.get("modules") or [] if m.split(".")[0] == package})
    except (SyntaxFailure, HostFailure, TooDeep, RecursionError) as failure:
        # A module on the way that does not parse, cannot be read or is reached through a link.
        return {"ops": found, "searched": 0, "unknown": "%s: %s" % (unknown, failure)}
    if loaded is None:
        return {"ops": found, "searched": 0, "unknown": unknown}
    searched = 0
    for name in sorted(loaded):
        try:
            module = session.finder.find_module(name)
        except (HostFailure, TooDeep, RecursionError):
            continue  # not readable here: its registrations are not found, and the op says so
        if module is None or module.blob is None or not module.path.endswith(".py"):
            continue
        searched += 1
        text = session.tree.text(module)
        if not any(word in text for word in _REGISTERING_CALLS + _REGISTERING_DECORATORS):
            continue
        for op, registration in _registrations(text, module):
            if op in wanted and found[op] is None:
                found[op] = registration
    return {"ops": found, "searched": searched, "unknown": None}


def _registrations(text, module):
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            found = _registered_by_call(node.value, module)
            if found is not None:
                yield found
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decorator = _registering_decorator(node)
            if decorator is not None:
                yield node.name, _registration(module, node.name, decorator.lineno, "@%s" % _name(
                    decorator.func if isinstance(decorator, ast.Call) else decorator), not _first_is_tensor(node))


def _registered_by_call(call, module):
    if _name(call.func) not in _REGISTERING_CALLS:
        return None
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    op = call.args[0] if call.args else keywords.get("op_name")
    function = call.args[1] if len(call.args) > 1 else keywords.get("op_func")
    if not (isinstance(op, ast.Constant) and isinstance(op.value, str) and isinstance(function, ast.Name)):
        return None
    return op.value, _registration(module, function.id, call.lineno, "direct_register_custom_op", False)


def _registration(module, function, line, how, prepends_tensor):
    return {"import_statement": "from %s import %s" % (module.name, function), "function_path": function,
            "target": "%s.%s" % (module.name, function), "file": module.path, "line": line, "how": "%s at %s:%d" % (how, module.path, line),
            "prepends_tensor": prepends_tensor}


def _registering_decorator(function) -> Optional[ast.expr]:
    for decorator in function.decorator_list:
        if _name(decorator.func if isinstance(decorator, ast.Call) else decorator) in _REGISTERING_DECORATORS:
            return decorator
    return None


def _first_is_tensor(function) -> bool:
    arguments = function.args.posonlyargs + function.args.args
    if not arguments or arguments[0].annotation is None:
        return False
    return ast.unparse(arguments[0].annotation) in _TENSOR_ANNOTATIONS


def _name(node) -> str:
    """The last part of a dotted name: `aiter.jit.core.compile_ops` -> `compile_ops`."""
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""
