"""STATE and PARAMETER objects (DESIGN.md, "The contract") made from `ast` definitions.

Kinds as inspect names them, defaults and annotations as ast.unparse writes them. The signature's
text is rendered on the C++ side only (Signature::text), from these parameters.
Pure standard library, Python 3.9+.
"""

import ast
from typing import List


def failed(status: str, detail: str) -> dict:
    """A STATE that is not ok."""
    return {"status": status, "detail": detail}


def ok(definition, drop_first: bool) -> dict:
    """The STATE of a def (an aaw_summary.Def): its parameters as inspect.signature lists them,
    without the first one (self, cls) when `drop_first`. The C++ side renders the text."""
    parameters = parameters_of(definition.args)
    if drop_first:
        if not parameters or parameters[0]["kind"] in ("KEYWORD_ONLY", "VAR_KEYWORD"):
            return failed("unresolved", "invalid method signature for '%s'" % definition.name)
        if parameters[0]["kind"] != "VAR_POSITIONAL":
            parameters = parameters[1:]
    returns = None if definition.returns is None else ast.unparse(definition.returns)
    return {"status": "ok", "signature": {"parameters": parameters, "return_annotation": returns}}


def parameters_of(arguments: ast.arguments) -> List[dict]:
    """One PARAMETER object per parameter of an ast.arguments, in inspect's order and kinds."""
    positional = list(arguments.posonlyargs) + list(arguments.args)
    defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    parameters = []
    for position, (arg, default) in enumerate(zip(positional, defaults)):
        kind = "POSITIONAL_ONLY" if position < len(arguments.posonlyargs) else \
            "POSITIONAL_OR_KEYWORD"
        parameters.append(_parameter(arg, kind, default))
    if arguments.vararg is not None:
        parameters.append(_parameter(arguments.vararg, "VAR_POSITIONAL", None))
    for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
        parameters.append(_parameter(arg, "KEYWORD_ONLY", default))
    if arguments.kwarg is not None:
        parameters.append(_parameter(arguments.kwarg, "VAR_KEYWORD", None))
    return parameters


def _parameter(arg, kind, default):
    return {"name": arg.arg, "kind": kind,
            "default": None if default is None else ast.unparse(default),
            "annotation": None if arg.annotation is None else ast.unparse(arg.annotation)}
