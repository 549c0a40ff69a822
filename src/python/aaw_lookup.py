"""Whether each monitored function is there at one commit and, when it is not, the names bound
where it was looked for: what `check-config` and the start-up of every mode use to catch a
misspelt function_path or an import_statement that binds another name ("did you mean ...?").

The walk is the resolver's own (aaw_resolver.Session: import_head, attribute, import_target, its
finder and tree), so a name is "not found" exactly where extraction says "missing".
Pure standard library, Python 3.9+.
"""

import ast
from typing import Any, Dict, List, Optional, Tuple

import aaw_resolver
import aaw_values

# A module's vocabulary for suggestions: enough for aiter's __init__ (about 30 star imports).
_MAX_NAMES = 20000


def lookup_all(args: Dict[str, Any], host: Any) -> List[Dict[str, Any]]:
    """One {"verdict", "detail", "name", "names"} per entry of args["functions"] (each
    {"import_statement", "function_path"}), with the host of aaw_static.resolve_all; the optional
    args["source_roots"] and args["module_aliases"] are the static section's.

    verdict: "found"; "not_found" (a config mistake or a function that is not there: "name" is the
    part that was looked for, "names" what is bound where it was looked for, sorted); "unknown"
    (the static view cannot tell: defined dynamically, a syntax error, an unreadable file).
    detail: why, for every verdict but found."""
    functions = args.get("functions") if isinstance(args, dict) else None
    if not isinstance(functions, list):
        raise TypeError("lookup_all expects {'functions': [...]}")
    # One session for all: what the tree holds is looked up once, not once per function.
    session = aaw_resolver.Session(host, args.get("source_roots"), args.get("module_aliases"))
    return [lookup(function, session) for function in functions]


def lookup(function: Dict[str, Any], session: "aaw_resolver.Session") -> Dict[str, Any]:
    """One function's verdict, resolved as aaw_static resolves it (the session has the same
    static options)."""
    state = session.resolve_function(function, consulted=False)["state"]  # no digests: nothing memoises it
    if state.get("status") == "ok":
        return _verdict("found", "")
    detail = state.get("detail", "")
    statement = function.get("import_statement") if isinstance(function, dict) else None
    path = function.get("function_path") if isinstance(function, dict) else None
    if not isinstance(statement, str) or not isinstance(path, str):
        return _verdict("not_found", detail)
    try:
        missed = _where_missing(session, statement.strip(), path)
    except Exception:  # a syntax error or an unreadable file on the way: the state says which
        missed = None
    if missed is not None:
        return _verdict("not_found", detail, *missed)
    if detail.endswith(aaw_resolver.MODULE_NOT_FUNCTION):
        # Unresolved when extracted (a module swapping its __class__ can be called), but as a
        # monitored function a module is the config's mistake: nothing there has a signature.
        return _verdict("not_found", detail + ": name a function of it")
    return _verdict("not_found" if state.get("status") == "missing" else "unknown", detail)


def _verdict(verdict: str, detail: str, name: str = "", names: Optional[List[str]] = None):
    return {"verdict": verdict, "detail": detail, "name": name, "names": names or []}


# -- where the walk stops -------------------------------------------------------------------------

def _where_missing(session, statement: str, path: str) -> Optional[Tuple[str, List[str]]]:
    """(the name not found, the names bound where it was looked for), or None when the walk does
    not stop at a missing name (it reaches something, or something it cannot read)."""
    parts = path.split(".")
    if not all(part.isidentifier() for part in parts):
        return path, []
    node = _single_import(statement)
    if node is None or (isinstance(node, ast.ImportFrom) and node.level):
        return "", []  # not one absolute import: the state's detail says what is wrong
    bound = _bound_names(node)
    head = parts[0]
    if head not in bound and not _star(node):
        return head, sorted(bound)
    value = session.import_head(statement, head)
    if isinstance(value, aaw_values.NotFound):
        # A package that is nowhere in the tree is unresolved for extraction (it may be installed
        # from elsewhere) but, named in the config, most likely misspelt.
        if value.status != "missing" and not _package_absent(session, node, head, bound):
            return None
        return _missing_module(session, node, head, bound)
    for attribute in parts[1:]:
        found = session.attribute(value, attribute)
        if isinstance(found, aaw_values.NotFound):
            return (attribute, _names_of(session, value)) if found.status == "missing" else None
        value = found
    return None


def _single_import(statement: str):
    """The one import node `statement` is, as extraction parses it; None otherwise."""
    node = aaw_resolver.parsed_import(statement)
    return None if isinstance(node, SyntaxError) else node


def _star(node) -> bool:
    return isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)


def _bound_names(node) -> Dict[str, Tuple[str, Optional[str]]]:
    """name -> (module, attribute or None): what each name the statement binds comes from."""
    bound = {}
    for alias in node.names:
        if isinstance(node, ast.Import):
            if alias.asname:
                bound[alias.asname] = (alias.name, None)
            else:
                top = alias.name.split(".")[0]
                bound[top] = (top, None)
        elif alias.name != "*":
            bound[alias.asname or alias.name] = (node.module or "", alias.name)
    return bound


def _source_of(node, head, bound) -> Tuple[str, Optional[str]]:
    """(module, attribute or None): where the statement takes `head` from; for a name only a star
    import can bind, the statement's module."""
    return bound.get(head, (getattr(node, "module", None) or "", None))


def _package_absent(session, node, head, bound) -> bool:
    """Whether the top-level package the statement imports `head` from is not in the tree."""
    top = _source_of(node, head, bound)[0].split(".")[0]
    return bool(top) and session.finder.root_of(top) is None


def _missing_module(session, node, head, bound):
    """The statement's module (or the name imported from it) is not there: the deepest part of
    the module's name that exists, and what is bound in it."""
    module_name, attribute = _source_of(node, head, bound)
    parts = module_name.split(".") if module_name else []
    if isinstance(node, ast.Import) and head in bound and bound[head][1] is None:
        # `import a.b.c` binds `a` but needs all of a.b.c; `import a.b.c as x` binds x to a.b.c.
        full = [alias.name for alias in node.names
                if (alias.asname or alias.name.split(".")[0]) == head]
        parts = full[0].split(".") if full else parts
    for depth in range(len(parts), 0, -1):
        module = session.finder.find_module(".".join(parts[:depth]))
        if module is None:
            continue
        if depth == len(parts):  # the module is there: the name imported from it is not
            return (attribute or head), _names_of(session, module)
        return parts[depth], _names_of(session, module)
    return (parts[0] if parts else head), []


# -- the names bound in a module or a class -------------------------------------------------------

def _names_of(session, value) -> List[str]:
    if isinstance(value, aaw_values.ClassValue):
        return sorted(value.cls.scope.bindings)
    if not isinstance(value, aaw_values.Module):
        return []
    names = set()
    _collect(session, value, names, set(), exported_only=False)
    return sorted(names)[:_MAX_NAMES]


def _collect(session, module, names, seen, exported_only):
    """The names `module` binds (only those `from module import *` binds when exported_only),
    following its star imports inside the repository."""
    if (module.name, exported_only) in seen or len(names) >= _MAX_NAMES:
        return
    seen.add((module.name, exported_only))
    try:
        scope = session.tree.summary(module)
    except Exception:  # a syntax error: nothing to suggest from this module
        return
    if exported_only and scope.all_names is not None:
        names.update(scope.all_names)
        if not scope.all_dynamic:
            return
    names.update(name for name in scope.bindings if not (exported_only and name.startswith("_")))
    for _, star in scope.stars:
        target = session.import_target(module, star.level, star.module, star.line)
        if isinstance(target, aaw_values.Module):
            _collect(session, target, names, seen, exported_only=True)
