"""Module summaries: what a module (or a class body) binds, in textual order, read with `ast`.

The binding model the static resolver follows (aaw_resolver.py) and the consumer scanner reuses:
a Scope maps each name to its bindings (a def, a class, an import, an alias, something opaque),
with the star imports, __all__ and what may define names dynamically. Summaries are cached by
blob id: an unchanged file is never parsed twice. digest() says what resolving some names reads
of a module, so a caller can tell whether an edit can change a resolution at all.
Pure standard library, Python 3.9+.
"""

import ast
import gc
import hashlib
import sys
from collections import OrderedDict
from typing import Iterable, List, Optional, Union

_CACHE_LIMIT = 4096
# blob id -> Scope (a parsed module) or ParseFailure; least recently used first.
_summaries = OrderedDict()


def cached(blob: str) -> "Optional[Union[Scope, ParseFailure]]":
    """The summary of `blob` when it is cached (and then the most recently used), else None."""
    summary = _summaries.get(blob)
    if summary is not None:
        _summaries.move_to_end(blob)
    return summary


def summary_of(blob: str, read) -> "Union[Scope, ParseFailure]":
    """The cached summary of `blob`, else read(blob)'s text summarised and cached."""
    summary = cached(blob)
    if summary is None:
        summary = summarize(read(blob))
        remember(blob, summary)
    return summary


def clear_cache() -> None:
    _summaries.clear()


def cache_size() -> int:
    return len(_summaries)


class Def:
    __slots__ = ("name", "line", "args", "returns", "decorators")

    def __init__(self, node):
        self.name = node.name
        self.line = node.lineno
        self.args = node.args
        self.returns = node.returns
        self.decorators = [_decorator_name(d) for d in node.decorator_list]


class Class:
    __slots__ = ("name", "line", "index", "scope", "has_bases")

    def __init__(self, node, index, scope):
        self.name = node.name
        self.line = node.lineno
        self.index = index
        self.scope = scope
        self.has_bases = bool(node.bases) or any(k.arg == "metaclass" for k in node.keywords)


class ModuleRef:  # `import a.b as c` binds c to a.b; `import a.b` binds a to a
    __slots__ = ("module",)

    def __init__(self, module):
        self.module = module


class FromImport:  # `from .m import f as g` binds g
    __slots__ = ("level", "module", "name", "line")

    def __init__(self, level, module, name, line):
        self.level = level
        self.module = module
        self.name = name
        self.line = line


class Alias:  # `g = f` or `g = m.f`: followed among the bindings before this statement
    __slots__ = ("parts", "index")

    def __init__(self, parts, index):
        self.parts = parts
        self.index = index


class Opaque:  # bound to something we do not follow (a call, a loop variable, ...)
    __slots__ = ("what", "line", "node")

    def __init__(self, what, line, node=None):
        self.what = what
        self.line = line
        self.node = node


class Deleted:
    __slots__ = ("line",)

    def __init__(self, line):
        self.line = line


class Star:
    __slots__ = ("level", "module", "line")

    def __init__(self, level, module, line):
        self.level = level
        self.module = module
        self.line = line


class Scope:
    __slots__ = ("bindings", "stars", "all_names", "all_dynamic", "dynamic")

    def __init__(self):
        self.bindings = {}      # name -> [(statement index, binding)], textual order
        self.stars = []         # [(statement index, Star)], textual order
        self.all_names = None   # the literal names of __all__, None without __all__
        self.all_dynamic = False  # __all__ is built from something we cannot read
        self.dynamic = []       # module-level setattr / globals() / __getattr__, as "what (line N)"

    def bind(self, name, index, binding):
        self.bindings.setdefault(name, []).append((index, binding))


class ParseFailure:
    """Why a module has no summary. `too_deep`: it is valid Python nested past what the parser or
    this reader can follow (Python's recursion limit), which is no syntax error."""
    __slots__ = ("line", "message", "too_deep")

    def __init__(self, line, message, too_deep=False):
        self.line = line
        self.message = message
        self.too_deep = too_deep

    @property
    def digest(self):
        return "syntax:%s:%s" % (self.line, self.message)


EMPTY_SCOPE = Scope()


def summarize(text: str) -> "Union[Scope, ParseFailure]":
    """The summary of a module's source text, or a ParseFailure when it does not parse."""
    # An ast is a tree of many small objects and no cycles: with thousands of summaries cached,
    # the cyclic collector would walk all of them again and again while a module is parsed,
    # making each parse several times slower. Reference counting frees what a parse leaves.
    collecting = gc.isenabled()
    gc.disable()
    try:
        tree = ast.parse(text.encode("utf-8", "surrogateescape"))
        return Collector().scope(tree.body, module_level=True)
    except SyntaxError as error:
        return ParseFailure(error.lineno, error.msg)
    except (RecursionError, MemoryError):
        # The parser's own limits (its stack: MemoryError) or ours: valid code, too complex to read.
        return ParseFailure(None, "nested too deeply to read (past Python's recursion limit of %d)"
                            % sys.getrecursionlimit(), too_deep=True)
    except (ValueError, UnicodeError) as error:
        return ParseFailure(None, str(error) or type(error).__name__)
    finally:
        if collecting:
            gc.enable()



def digest(summary: "Union[Scope, ParseFailure]", names: List[str]) -> Optional[str]:
    """What resolving `names` in a module reads of it: their bindings and the star imports in
    textual order, __all__, and whether names may be defined dynamically; the whole API surface
    None when no names were asked (the caller then compares blobs). Positions are left out, so
    edits elsewhere in the module (bodies, comments, other functions) keep the digest."""
    if isinstance(summary, ParseFailure):
        return summary.digest
    if not names:
        return None
    wanted = set(names)
    events = [(index, "*", _star_repr(star)) for index, star in summary.stars]
    for name in wanted:
        events += [(index, name, _binding_repr(binding)) for index, binding in summary.bindings.get(name, ())]
    events.sort(key=lambda event: event[0])
    parts = [(name, text) for _, name, text in events]
    parts.append(("__all__", repr(summary.all_names), summary.all_dynamic, bool(summary.dynamic)))
    return hashlib.blake2b(repr(parts).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def safe_digest(summary: "Union[Scope, ParseFailure]", names: List[str]) -> Optional[str]:
    """digest(), or None (nothing vouched for: resolve again whenever the file changes) for a
    module whose bindings are nested too deeply to describe."""
    try:
        return digest(summary, names)
    except RecursionError:
        return None


def _star_repr(star):
    return "star %r %r" % (star.level, star.module)


def _binding_repr(binding):
    if isinstance(binding, Def):
        returns = ast.dump(binding.returns) if binding.returns is not None else ""
        return "def %s %s %r" % (ast.dump(binding.args), returns, binding.decorators)
    if isinstance(binding, Class):
        return "class %r %s" % (binding.has_bases, _scope_repr(binding.scope))
    if isinstance(binding, FromImport):
        return "from %r %r %r" % (binding.level, binding.module, binding.name)
    if isinstance(binding, ModuleRef):
        return "module %r" % (binding.module,)
    if isinstance(binding, Alias):
        return "alias %r" % (binding.parts,)
    if isinstance(binding, Deleted):
        return "deleted"
    if isinstance(binding, Opaque):
        node = binding.node
        text = node if isinstance(node, str) or node is None else ast.dump(node)
        return "opaque %s %r" % (binding.what, text)
    return "other %s" % type(binding).__name__


def _scope_repr(scope):
    """Every binding of a class body, in textual order (methods are looked up by name)."""
    events = [(index, name, _binding_repr(binding))
              for name, bound in scope.bindings.items() for index, binding in bound]
    events += [(index, "*", _star_repr(star)) for index, star in scope.stars]
    events.sort(key=lambda event: event[0])
    return repr([(name, text) for _, name, text in events])


def remember(blob: str, summary: "Union[Scope, ParseFailure]") -> None:
    _summaries[blob] = summary
    while len(_summaries) > _CACHE_LIMIT:
        _summaries.popitem(last=False)
    # Cached summaries live long and hold no cycles: keep the cyclic collector from walking them
    # over and over (reference counting still frees the ones the cache lets go).
    gc.freeze()


class Collector:
    """Walks a module (or class) body in textual order, numbering statements."""

    def __init__(self):
        self.index = 0

    def scope(self, statements, module_level):
        scope = Scope()
        self._block(statements, scope, module_level)
        return scope

    def _block(self, statements, scope, module_level):
        for statement in statements:
            self.index += 1
            handler = _STATEMENT_HANDLERS.get(type(statement))
            if handler is not None:
                handler(self, statement, self.index, scope, module_level)

    def _def(self, node, index, scope, module_level):
        scope.bind(node.name, index, Def(node))
        if module_level and node.name == "__getattr__":
            scope.dynamic.append("a module-level __getattr__ (line %d)" % node.lineno)

    def _class(self, node, index, scope, module_level):
        scope.bind(node.name, index, Class(node, index, self.scope(node.body, False)))

    def _assign(self, node, index, scope, module_level):
        for target in node.targets:
            self._target(target, node.value, index, node.lineno, scope, module_level)

    def _ann_assign(self, node, index, scope, module_level):
        if node.value is not None:
            self._target(node.target, node.value, index, node.lineno, scope, module_level)

    def _aug_assign(self, node, index, scope, module_level):
        target = node.target
        if isinstance(target, ast.Name):
            if target.id == "__all__" and isinstance(node.op, ast.Add):
                _extend_all(scope, node.value)
            else:
                scope.bind(target.id, index, Opaque("an augmented assignment", node.lineno))

    def _target(self, target, value, index, line, scope, module_level):
        if isinstance(target, ast.Name):
            if target.id == "__all__":
                _extend_all(scope, value)
            parts = dotted(value)
            if parts is not None:
                scope.bind(target.id, index, Alias(parts, index))
            else:
                scope.bind(target.id, index, Opaque("an expression", line, _short(value)))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._unpacked(element, index, line, scope)
        elif isinstance(target, ast.Starred):
            self._unpacked(target, index, line, scope)
        elif (isinstance(target, ast.Subscript) and module_level
              and _is_namespace_call(target.value)):
            scope.dynamic.append("an assignment to globals()[...] (line %d)" % line)

    def _unpacked(self, target, index, line, scope):
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                scope.bind(node.id, index, Opaque("an unpacking assignment", line))

    def _import(self, node, index, scope, module_level):
        for alias in node.names:
            if alias.asname:
                scope.bind(alias.asname, index, ModuleRef(alias.name))
            else:
                first = alias.name.split(".")[0]
                scope.bind(first, index, ModuleRef(first))

    def _import_from(self, node, index, scope, module_level):
        for alias in node.names:
            if alias.name == "*":
                scope.stars.append((index, Star(node.level or 0, node.module, node.lineno)))
            else:
                scope.bind(alias.asname or alias.name, index,
                           FromImport(node.level or 0, node.module, alias.name, node.lineno))

    def _if(self, node, index, scope, module_level):
        # Never true when the module is imported: `if __name__ == "__main__"`, `if TYPE_CHECKING`.
        if not (_is_main_guard(node.test) or _is_type_checking(node.test)):
            self._block(node.body, scope, module_level)
        self._block(node.orelse, scope, module_level)

    def _try(self, node, index, scope, module_level):
        self._block(node.body, scope, module_level)
        for handler in node.handlers:
            self._block(handler.body, scope, module_level)
        self._block(node.orelse, scope, module_level)
        self._block(node.finalbody, scope, module_level)

    def _with(self, node, index, scope, module_level):
        for item in node.items:
            if item.optional_vars is not None:
                self._unpacked(item.optional_vars, index, node.lineno, scope)
        self._block(node.body, scope, module_level)

    def _for(self, node, index, scope, module_level):
        self._unpacked(node.target, index, node.lineno, scope)
        self._block(node.body, scope, module_level)
        self._block(node.orelse, scope, module_level)

    def _while(self, node, index, scope, module_level):
        self._block(node.body, scope, module_level)
        self._block(node.orelse, scope, module_level)

    def _match(self, node, index, scope, module_level):
        for case in node.cases:
            self._block(case.body, scope, module_level)

    def _expr(self, node, index, scope, module_level):
        call = node.value
        if not isinstance(call, ast.Call):
            return
        function = call.func
        if isinstance(function, ast.Name) and function.id == "setattr" and module_level:
            scope.dynamic.append("a module-level setattr() (line %d)" % node.lineno)
        elif isinstance(function, ast.Attribute):
            owner = function.value
            if isinstance(owner, ast.Name) and owner.id == "__all__" and call.args:
                if function.attr == "extend":
                    _extend_all(scope, call.args[0])
                elif function.attr == "append":
                    _extend_all(scope, ast.List(elts=[call.args[0]], ctx=ast.Load()))
            elif module_level and _is_namespace_call(owner) and function.attr in (
                    "update", "__setitem__", "setdefault"):
                scope.dynamic.append("a module-level globals().%s() (line %d)"
                                     % (function.attr, node.lineno))

    def _delete(self, node, index, scope, module_level):
        for target in node.targets:
            if isinstance(target, ast.Name):
                scope.bind(target.id, index, Deleted(node.lineno))


_STATEMENT_HANDLERS = {
    ast.FunctionDef: Collector._def,
    ast.AsyncFunctionDef: Collector._def,
    ast.ClassDef: Collector._class,
    ast.Assign: Collector._assign,
    ast.AnnAssign: Collector._ann_assign,
    ast.AugAssign: Collector._aug_assign,
    ast.Import: Collector._import,
    ast.ImportFrom: Collector._import_from,
    ast.If: Collector._if,
    ast.Try: Collector._try,
    ast.With: Collector._with,
    ast.AsyncWith: Collector._with,
    ast.For: Collector._for,
    ast.AsyncFor: Collector._for,
    ast.While: Collector._while,
    ast.Expr: Collector._expr,
    ast.Delete: Collector._delete,
}
for _name, _handler in (("TryStar", Collector._try), ("Match", Collector._match)):
    if hasattr(ast, _name):
        _STATEMENT_HANDLERS[getattr(ast, _name)] = _handler


def dotted(node):
    """["a", "b", "c"] for the expression a.b.c, None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    parts.reverse()
    return parts


def _short(node):
    """What to quote of an expression in a detail: the node itself when it is short (unparsed
    only if ever needed), else a summary, so that cached summaries do not keep big literals."""
    end_line = getattr(node, "end_lineno", None)
    if end_line == node.lineno and node.end_col_offset - node.col_offset <= 80:
        return node
    if isinstance(node, ast.Call):
        parts = dotted(node.func)
        if parts is not None:
            return ".".join(parts) + "(...)"
    return None


def _decorator_name(node):
    if isinstance(node, ast.Call):
        node = node.func
    parts = dotted(node)
    return parts[-1] if parts else None


def _literal_strings(node):
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        names = []
        for element in node.elts:
            if not (isinstance(element, ast.Constant) and isinstance(element.value, str)):
                return None
            names.append(element.value)
        return names
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal_strings(node.left), _literal_strings(node.right)
        if left is not None and right is not None:
            return left + right
    return None


def _extend_all(scope, value):
    # Every literal assignment or extension counts (a union over branches): a star import then
    # sees any name __all__ may hold. Anything else makes __all__ unreadable.
    names = _literal_strings(value)
    if scope.all_names is None:
        scope.all_names = set()
    if names is None:
        scope.all_dynamic = True
    else:
        scope.all_names.update(names)


def _is_namespace_call(node):
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("globals", "vars", "locals") and not node.args)


def _is_main_guard(test):
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
            and test.left.id == "__name__" and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq) and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


def _is_type_checking(test):
    parts = dotted(test)
    return parts is not None and parts[-1] == "TYPE_CHECKING"
