"""STATE and PARAMETER objects (docs/design.md, "The contract") made from `ast` definitions, or
from an inspect.Signature (runtime extraction; built-in methods the static resolver meets).

Kinds as inspect names them, defaults and annotations as ast.unparse writes them (from a live
signature: as repr() and inspect.formatannotation print them). The signature's text is rendered
on the C++ side only (Signature::text), from these parameters.
Pure standard library, Python 3.9+.
"""

import ast
import inspect
import re
from typing import List, Optional, Tuple

import aaw_lru


def failed(status: str, detail: str) -> dict:
    """A STATE that is not ok."""
    return {"status": status, "detail": detail}


# What ok() renders of a def (its parameters and return annotation), by its header's text and the
# class that mangles its private names: a burst of resolutions mostly meets the defs met before.
_RENDERED = aaw_lru.Lru(1 << 12)


def ok(definition, drop_first: bool, note: Optional[str] = None) -> dict:
    """The STATE of a def (an aaw_model.Def): its parameters as inspect.signature lists them,
    without the first one (self, cls) when `drop_first`. The C++ side renders the text. `note`
    becomes the state's detail (what a reader should know of an ok signature)."""
    parameters, returns = _rendered_def(definition)
    state = with_parameters(parameters, returns, note)
    return dropped_first(state, definition.name) if drop_first else state


def dropped_first(state: dict, name: str) -> dict:
    """An ok STATE without its first parameter (self, cls), as a bound method shows it."""
    if state.get("status") != "ok":
        return state
    parameters = state["signature"]["parameters"]
    if not parameters or parameters[0]["kind"] in ("KEYWORD_ONLY", "VAR_KEYWORD"):
        return failed("unresolved", "invalid method signature for '%s'" % name)
    if parameters[0]["kind"] == "VAR_POSITIONAL":
        return state
    state = dict(state)
    state["signature"] = dict(state["signature"], parameters=parameters[1:])
    return state


def _rendered_def(definition):
    """(parameters_of the def, its return annotation unparsed or None), each parameter a new dict."""
    header = getattr(definition, "header", None)
    key = (header, definition.mangle)
    known = _RENDERED.get(key) if header is not None else None
    if known is None:
        returns = None if definition.returns is None else source_text(definition.returns)
        known = (parameters_of(definition.args, definition.mangle), returns)
        if header is not None:
            _RENDERED.put(key, known)
    return [dict(p) for p in known[0]], known[1]


def with_parameters(parameters: List[dict], returns: Optional[str] = None, note: Optional[str] = None) -> dict:
    """An ok STATE of these parameters."""
    state = {"status": "ok", "signature": {"parameters": parameters, "return_annotation": returns}}
    if note:
        state["detail"] = note
    return state


def bind_partial(parameters: List[dict], positional: int, keywords: List[Tuple[str, str]]):
    """The parameters of functools.partial(f, <positional args>, **keywords) as inspect.signature
    shows them: the first positional parameters are consumed; a keyword gives its parameter a new
    default, and makes it and every positional-or-keyword one after it keyword-only. Returns
    (parameters, None), or (None, why) when Python itself would refuse the partial's signature."""
    out = [dict(p) for p in parameters]
    for _ in range(positional):
        if not out or out[0]["kind"] not in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD"):
            if out and out[0]["kind"] == "VAR_POSITIONAL":
                break
            return None, "partial binds more positional arguments than the function takes"
        out.pop(0)
    by_name = {p["name"]: p for p in out}
    keyword_only_from = None
    for name, default in keywords:
        parameter = by_name.get(name)
        if parameter is None:
            if any(p["kind"] == "VAR_KEYWORD" for p in out):
                continue
            return None, "partial binds keyword '%s', which the function does not take" % name
        if parameter["kind"] == "POSITIONAL_ONLY":
            return None, "partial binds positional-only parameter '%s' by keyword" % name
        parameter["default"] = default
        if parameter["kind"] == "POSITIONAL_OR_KEYWORD":
            position = out.index(parameter)
            keyword_only_from = position if keyword_only_from is None else min(keyword_only_from, position)
    if keyword_only_from is not None:
        for parameter in out[keyword_only_from:]:
            if parameter["kind"] == "POSITIONAL_OR_KEYWORD":
                parameter["kind"] = "KEYWORD_ONLY"
            elif parameter["kind"] == "VAR_POSITIONAL":
                return None, "partial makes a parameter before *%s keyword-only" % parameter["name"]
    # inspect moves *args before the keyword-only ones it made.
    out.sort(key=lambda p: _KIND_ORDER[p["kind"]])
    return out, None


_KIND_ORDER = {"POSITIONAL_ONLY": 0, "POSITIONAL_OR_KEYWORD": 1, "VAR_POSITIONAL": 2, "KEYWORD_ONLY": 3,
               "VAR_KEYWORD": 4}


def mangled(name: str, class_name: Optional[str]) -> str:
    """`__x` written in the body of class C is `_C__x` to Python (and to inspect)."""
    if class_name is None or not name.startswith("__") or name.endswith("__"):
        return name
    stripped = class_name.lstrip("_")
    return "_%s%s" % (stripped, name) if stripped else name


def parameters_of(arguments: ast.arguments, mangle: Optional[str] = None) -> List[dict]:
    """One PARAMETER object per parameter of an ast.arguments, in inspect's order and kinds;
    `mangle` is the class whose body holds the def (private names are mangled)."""
    positional = list(arguments.posonlyargs) + list(arguments.args)
    defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    parameters = []
    for position, (arg, default) in enumerate(zip(positional, defaults)):
        kind = "POSITIONAL_ONLY" if position < len(arguments.posonlyargs) else \
            "POSITIONAL_OR_KEYWORD"
        parameters.append(_parameter(arg, kind, default, mangle))
    if arguments.vararg is not None:
        parameters.append(_parameter(arguments.vararg, "VAR_POSITIONAL", None, mangle))
    for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
        parameters.append(_parameter(arg, "KEYWORD_ONLY", default, mangle))
    if arguments.kwarg is not None:
        parameters.append(_parameter(arguments.kwarg, "VAR_KEYWORD", None, mangle))
    return parameters


def source_text(node) -> str:
    """ast.unparse of a default or an annotation, the same for what Python 3 reads the same: a u''
    prefix (`u'python-requests'`, kept by the parser as the constant's kind) is dropped, as
    inspect.signature prints such a default without it. The kind is cleared on the nodes
    themselves (a cached summary's too): nothing else reads it, and a copy would cost more."""
    for child in ast.walk(node):
        if isinstance(child, ast.Constant) and child.kind is not None:
            child.kind = None
    return ast.unparse(node)


def _parameter(arg, kind, default, mangle):
    return {"name": mangled(arg.arg, mangle), "kind": kind,
            "default": None if default is None else source_text(default),
            "annotation": None if arg.annotation is None else source_text(arg.annotation)}


def of_live(value, note: str) -> dict:
    """The STATE of a live object the static resolver meets (a built-in's method): ok with what
    inspect.signature gives it, or unresolved when inspect reads none; `note` says what it is."""
    try:
        return from_inspect(inspect.signature(value), note)
    except (TypeError, ValueError) as error:
        return failed("unresolved", "%s, without a signature inspect can read: %s"
                      % (note, without_addresses(str(error))))


def from_inspect(signature: inspect.Signature, note: Optional[str] = None) -> dict:
    """An ok STATE of a live signature."""
    parameters = [_live_parameter(p) for p in signature.parameters.values()]
    return with_parameters(parameters, _live_annotation(signature.return_annotation), note)


def _live_parameter(parameter):
    default = None if parameter.default is inspect.Parameter.empty else _live_repr(parameter.default)
    return {"name": parameter.name, "kind": parameter.kind.name, "default": default,
            "annotation": _live_annotation(parameter.annotation)}


def _live_annotation(annotation):
    if annotation is inspect.Parameter.empty or annotation is inspect.Signature.empty:
        return None
    try:
        return inspect.formatannotation(annotation)
    except Exception as error:  # pylint: disable=broad-except  (any annotation object)
        return "<unprintable annotation: %s>" % type(error).__name__


def _live_repr(value):
    try:
        return without_addresses(repr(value))
    except Exception as error:  # a default whose __repr__ raises must not cost the function
        return "<%s object: repr raised %s>" % (type(value).__name__, type(error).__name__)


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def without_addresses(text):
    """`<object object at 0x7f...>` -> `<object object>`: an address changes at every run, and a
    default printed with one would look changed at every commit."""
    return _ADDRESS.sub("", text)
