"""Binds a consumer's call shapes against signatures, as Python itself would.

Each call site gets one verdict against the STATE of its function at a commit: `breaks` (with
the message inspect.Signature.bind raises on a stub made from the signature), `guarded` (it would
break, but sits behind a probe or fallback that takes the consumer another way), `unknown` (the
call passes *args/**kwargs, the name it calls through may stand for something else, or the
signature cannot be read) or `binds`. A call reached indirectly (`self.fn`, an alias, a helper's
return, importlib) is bound like a direct one; its failures say how it was reached.
Called from C++ (src/extract/consumer/consumer_scanner.cpp). Pure standard library, Python 3.9+.
"""

import inspect
from typing import Any, Dict, List

_KINDS = {"POSITIONAL_ONLY": inspect.Parameter.POSITIONAL_ONLY,
          "POSITIONAL_OR_KEYWORD": inspect.Parameter.POSITIONAL_OR_KEYWORD,
          "VAR_POSITIONAL": inspect.Parameter.VAR_POSITIONAL,
          "KEYWORD_ONLY": inspect.Parameter.KEYWORD_ONLY,
          "VAR_KEYWORD": inspect.Parameter.VAR_KEYWORD}
# What guards a call whose import fails, and what guards one whose arguments no longer bind.
_IMPORT_GUARDS = {"import fallback", "hasattr probe", "catches TypeError", "find_spec probe"}
_BINDING_GUARDS = {"signature probe", "hasattr probe", "catches TypeError"}
_MACHINERY = {"build_failed", "import_error", "extract_failed"}


def bind_all(args: Dict[str, Any], host: Any = None) -> List[Dict[str, str]]:
    """args = {"calls": [{"state": STATE, "shape": SHAPE}]} -> one {"verdict", "reason"} per call,
    and for unknown a "cause": forwards, ambiguous, unreadable or extraction.
    SHAPE = {"positional": n, "keywords": [...], "star_args", "star_kwargs", "guards": [...],
    "indirect": how or null, "ambiguous": why or null, and optionally "import_statement",
    "import_line" and "import_module_level" (the import that binds the name called)}."""
    return [bind(call["state"], call["shape"]) for call in args.get("calls", [])]


def bind(state: Dict[str, Any], shape: Dict[str, Any]) -> Dict[str, str]:
    if shape.get("ambiguous"):
        return _unknown(shape["ambiguous"], "ambiguous")
    verdict = _bind_direct(state, shape)
    if shape.get("indirect") and verdict["verdict"] in ("breaks", "guarded"):
        verdict["reason"] += "; " + shape["indirect"]
    return verdict


def _bind_direct(state: Dict[str, Any], shape: Dict[str, Any]) -> Dict[str, str]:
    guards = shape.get("guards") or []
    status = state.get("status")
    if status == "missing":
        verdict = _broken("no longer importable: %s" % state.get("detail", ""), guards, _IMPORT_GUARDS)
        if verdict["verdict"] == "breaks" and shape.get("import_module_level") and shape.get("import_line"):
            verdict["reason"] += "; its import at line %d (%s) runs at module level: importing the file fails" \
                % (shape["import_line"], shape.get("import_statement") or "the import")
        return verdict
    if status != "ok":
        why, cause = ("extraction failed", "extraction") if status in _MACHINERY else \
            ("signature not readable statically", "unreadable")
        return _unknown("%s (%s: %s)" % (why, status, state.get("detail", "")), cause)
    try:
        signature = stub_signature(state["signature"]["parameters"])
    except (ValueError, TypeError, KeyError) as error:
        return _unknown("cannot build a stub of the signature: %s" % error, "unreadable")
    keywords = shape.get("keywords") or []
    arguments = [None] * int(shape.get("positional", 0))
    unexpected = _unexpected_keyword(signature, keywords)
    if unexpected is not None:
        # Python reports a missing argument first, but a keyword the function no longer accepts
        # is the cause (a renamed parameter): say that, as Python does once the rest is given.
        return _broken("got an unexpected keyword argument '%s'" % unexpected, guards, _BINDING_GUARDS)
    try:
        signature.bind(*arguments, **{name: None for name in keywords})
    except TypeError as error:
        if _fails_whatever_is_forwarded(str(error), shape):
            return _broken(str(error), guards, _BINDING_GUARDS)
        return _unknown(_forwarding(shape) + "; without it: " + str(error), "forwards")
    compiled = _bind_compiled(state, shape, arguments, keywords, guards)
    if compiled is not None:
        return compiled
    if shape.get("star_args") or shape.get("star_kwargs"):
        return _unknown(_forwarding(shape), "forwards")
    return {"verdict": "binds", "reason": ""}


def _bind_compiled(state, shape, arguments, keywords, guards):
    """A call that binds to a compile_ops stub reaches the compiled binding with the same arguments
    (compile_ops forwards them unchanged): the verdict when the binding refuses them, else None."""
    binding = state.get("binding")
    if not isinstance(binding, dict) or binding.get("status") != "ok" or binding.get("kind") != "pybind11":
        return None
    where = "its compiled binding %s (%s:%s)" % (binding.get("name"), binding.get("file"), binding.get("line"))
    if not binding.get("named", True):
        if keywords:
            return _broken("binds to the stub, but %s names no arguments: pybind11 refuses keyword '%s'"
                           % (where, keywords[0]), guards, _BINDING_GUARDS)
        return None
    failures = []
    for parameters in [binding.get("parameters") or []] + list(binding.get("overloads") or []):
        message = _refusal(stub_signature(parameters), arguments, keywords, shape)
        if message is None:
            return None
        failures.append((message, parameters))
    message, parameters = failures[0]
    return _broken("binds to the stub, but not to %s: %s%s" % (where, message, _named_otherwise(
        state["signature"]["parameters"], parameters, keywords)), guards, _BINDING_GUARDS)


def _refusal(signature, arguments, keywords, shape):
    """Why `signature` refuses the call, or None when it binds (or forwarded arguments may cure it)."""
    unexpected = _unexpected_keyword(signature, keywords)
    if unexpected is not None:
        return "got an unexpected keyword argument '%s'" % unexpected
    try:
        signature.bind(*arguments, **{name: None for name in keywords})
    except TypeError as error:
        return str(error) if _fails_whatever_is_forwarded(str(error), shape) else None
    return None


def _named_otherwise(stub, compiled, keywords):
    """" (the binding names it 'x')" for the first keyword the binding calls otherwise at its place."""
    names = [p["name"] for p in compiled]
    for position, parameter in enumerate(stub):
        if parameter["name"] in keywords and parameter["name"] not in names and position < len(names):
            return " (the stub's '%s' is '%s' in the binding)" % (parameter["name"], names[position])
    return ""


def stub_signature(parameters: List[Dict[str, Any]]) -> inspect.Signature:
    """An inspect.Signature with the parameters' names and kinds; a parameter with a default gets
    one (its value does not matter to binding)."""
    return inspect.Signature([
        inspect.Parameter(p["name"], _KINDS[p["kind"]],
                          default=None if p.get("default") is not None else inspect.Parameter.empty)
        for p in parameters])


def _unexpected_keyword(signature: inspect.Signature, keywords: List[str]):
    """The first keyword no parameter takes (a **kwargs takes all), else None."""
    parameters = signature.parameters
    if any(p.kind == inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return None
    for name in keywords:
        parameter = parameters.get(name)
        # A positional-only one is left to bind(), whose own message for it is clearer.
        if parameter is None or parameter.kind == inspect.Parameter.VAR_POSITIONAL:
            return name
    return None


def _fails_whatever_is_forwarded(message: str, shape: Dict[str, Any]) -> bool:
    """Whether a failure of the explicit arguments stays a failure whatever *args/**kwargs add:
    extra arguments never cure an unexpected keyword, a keyword given twice or a positional-only
    passed by keyword, nor too many positionals; only a missing argument may be supplied by them."""
    if not (shape.get("star_args") or shape.get("star_kwargs")):
        return True
    return not message.startswith("missing a required")


def _forwarding(shape: Dict[str, Any]) -> str:
    forwarded = [f for f, on in (("*args", shape.get("star_args")), ("**kwargs", shape.get("star_kwargs"))) if on]
    return "the call forwards %s, whose contents are not known statically" % " and ".join(forwarded)


def _unknown(reason: str, cause: str) -> Dict[str, str]:
    return {"verdict": "unknown", "reason": reason, "cause": cause}


def _broken(reason: str, guards: List[str], relevant: set) -> Dict[str, str]:
    protecting = [g for g in guards if g in relevant]
    if protecting:
        return {"verdict": "guarded", "reason": "%s (behind %s)" % (reason, ", ".join(protecting))}
    return {"verdict": "breaks", "reason": reason}
