"""The collector: a module's source text read with `ast` into its summary (aaw_model.Scope).

Walks a module (or class) body in textual order, numbering statements, and binds each name as
Python would when the module is imported: defs, classes, imports, aliases, functools.partial, pass-
through calls, what may define names dynamically, __all__, import hooks. For a skeleton (function
bodies blanked: aaw_summary.py) it takes what each blanked body says from the caller.
Pure standard library, Python 3.9+.
"""

import ast
import gc
import sys
from typing import Optional, Union

from aaw_model import (Alias, CallAlias, Class, Def, Deleted, FromImport, ModuleRef, Opaque, ParseFailure,
                       Partial, Passthrough, Scope, Star)
from aaw_nodes import (calls_dynamic_import, container_made, decorator_arguments, dotted, getattr_cases,
                       getattr_closed, is_main_guard, is_namespace_call, is_type_checking, literal_strings,
                       may_import_dynamically, names_in, passthrough_chain, short, string_map, text_hints)


class BodyNeeded(Exception):
    """A skeleton blanked a def the summary reads whole (a module-level __getattr__ or import hook
    the skeleton could not tell from a method: nested in an if or try, or spelled with characters
    Python folds to ASCII; or one whose body is on its header's line, of which only the header was
    blanked): the whole text must be summarised instead."""


def summarize(text: str, bodies=None) -> "Union[Scope, ParseFailure]":
    """The summary of a module's source text, or a ParseFailure when it does not parse. For a
    skeleton, `bodies` maps the line of each def it blanked something of to (what its body says
    (body_facts), or None when the body was kept on the header's line; its header when the skeleton
    blanked its parameters, or None; and then the header's first positional parameter
    (aaw_summary.SummaryCache._first_parameter_of))."""
    # An ast is a tree of many small objects and no cycles: with thousands of summaries cached,
    # the cyclic collector would walk all of them again and again while a module is parsed,
    # making each parse several times slower. Reference counting frees what a parse leaves.
    collecting = gc.isenabled()
    gc.disable()
    try:
        source = text.encode("utf-8", "surrogateescape")
        tree = ast.parse(source)
        return Collector(bodies, may_import_dynamically(text), source, text_hints(text)).scope(
            tree.body, module_level=True)
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


class Collector:
    """Walks a module (or class) body in textual order, numbering statements."""

    def __init__(self, bodies=None, may_import_dynamically=True, source=None, hints=(True, True)):
        self.bodies = bodies or {}  # a skeleton's blanked defs, by their line (summarize)
        # What the text may name (aaw_nodes.text_hints): no def body needs the walks it cannot.
        self.hints = hints
        # False when the text names neither import_module nor __import__: no statement needs a walk.
        self.may_import_dynamically = may_import_dynamically
        self.index = 0
        self.class_name = None  # the class whose body is being read (names are mangled in it)
        self.defs = {}          # module-level def -> its node, while collecting (not kept)
        self.hook_functions = []  # names passed to sys.meta_path.insert/append at module level
        # The source the nodes were parsed from (bytes: the parser's columns count bytes), split
        # into lines when a def header is first cut from it (_header).
        self.source = source
        self.lines = None

    def scope(self, statements, module_level):
        scope = Scope()
        self._block(statements, scope, module_level)
        if module_level:
            for name in self.hook_functions:
                if name in self.defs:
                    self._need_body(self.defs[name])
                    scope.hooks.update(names_in(self.defs[name]))
            self.defs = {}
        return scope

    def _block(self, statements, scope, module_level):
        for statement in statements:
            self.index += 1
            if module_level and self.may_import_dynamically and \
                    isinstance(statement, (ast.Expr, ast.Assign, ast.AnnAssign)) and calls_dynamic_import(statement):
                scope.dynamic_imports = True
            handler = _STATEMENT_HANDLERS.get(type(statement))
            if handler is not None:
                handler(self, statement, self.index, scope, module_level)

    def _def(self, node, index, scope, module_level):
        facts, header, first_parameter = self.bodies.get(node.lineno, (None, None, None))
        hints = self.hints if facts is not None else self._def_hints(node)
        scope.bind(node.name, index, Def(node, index, self.class_name, facts, header or self._header(node),
                                         first_parameter, hints))
        if not module_level:
            return
        self.defs[node.name] = node
        if node.name == "__getattr__":
            self._need_body(node)
            scope.dynamic.append("a module-level __getattr__ (line %d)" % node.lineno)
            scope.hooks.update(names_in(node))
            scope.getattr_cases.update(getattr_cases(node))
            closed = getattr_closed(node)
            scope.getattr_closed = None if closed is None else (node.lineno, closed)

    def _source_lines(self) -> list:
        """The source's lines, or [] when its line numbers may not be lines split at \n (a line
        break other than \n and \r\n)."""
        if self.lines is None:
            plain = self.source.count(b"\r") == self.source.count(b"\r\n")
            self.lines = self.source.split(b"\n") if plain else []
        return self.lines

    def _def_hints(self, node) -> tuple:
        """text_hints of a def's own lines, which spare most defs the walks of body_facts that the
        module's text as a whole calls for."""
        if not any(self.hints) or self.source is None or not self._source_lines():
            return self.hints
        try:
            text = b"\n".join(self.lines[node.lineno - 1:node.end_lineno]).decode("ascii")
        except UnicodeDecodeError:
            return self.hints
        own = text_hints(text, node.lineno)
        return self.hints[0] and own[0], self.hints[1] and own[1]

    def _header(self, node) -> Optional[bytes]:
        """A def's text from `def` (or `async`) to where its body starts, right-stripped, which
        parses followed by a body into the same arguments and returns (_parsed_header); None
        when that is not certain: a header that is not ASCII (the parser's columns would not be
        ours under a coding declaration), or a text with a line break other than \\n and \\r\\n
        (whose line numbers would not be the lines split here)."""
        if self.source is None or not node.body or not self._source_lines():
            return None
        # Where the body starts: its first statement, or that statement's first decorator.
        body = node.body[0]
        decorators = getattr(body, "decorator_list", None)
        first, last = node.lineno - 1, (decorators[0] if decorators else body).lineno - 1
        end = body.col_offset
        if decorators:
            if last == first or not self.lines[last].lstrip().startswith(b"@"):
                return None
            end = 0
        if first == last:
            text = self.lines[first][node.col_offset:end]
        else:
            text = b"\n".join([self.lines[first][node.col_offset:]] + self.lines[first + 1:last] +
                              [self.lines[last][:end]])
        text = text.rstrip()
        return text if text.isascii() else None

    def _need_body(self, node):
        if node.lineno in self.bodies:
            raise BodyNeeded()

    def _class(self, node, index, scope, module_level):
        outer, self.class_name = self.class_name, node.name
        try:
            body = self.scope(node.body, False)
        finally:
            self.class_name = outer
        scope.bind(node.name, index, Class(node, index, body))

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
            if target.id == "__getattr__" and module_level:
                _bound_getattr(scope, "an assignment", line)
            if target.id == "__slots__" and not module_level:
                # Each slot is a member of the class (a descriptor, set on instances at run time).
                for slot in _literal_strings(value):
                    scope.bind(slot, index, Opaque("a slot of __slots__", line))
            parts = dotted(value)
            if parts is not None:
                scope.bind(target.id, index, Alias(parts, index))
                return
            chain = passthrough_chain(value, target.id)
            if chain:
                scope.bind(target.id, index, Passthrough(chain, index, line, short(value)))
                return
            partial = _partial(value, index, line)
            if partial is not None:
                scope.bind(target.id, index, partial)
                return
            mapping = string_map(value)
            if mapping is not None and module_level:
                scope.maps[target.id] = mapping
            called = _call_alias(value, index, line)
            if called is not None:
                scope.bind(target.id, index, called)
                return
            scope.bind(target.id, index, Opaque("an expression", line, short(value), container_made(value)))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._unpacked(element, index, line, scope)
        elif isinstance(target, ast.Starred):
            self._unpacked(target, index, line, scope)
        elif (isinstance(target, ast.Subscript) and module_level
              and is_namespace_call(target.value)):
            scope.dynamic.append("an assignment to globals()[...] (line %d)" % line)

    def _unpacked(self, target, index, line, scope):
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                scope.bind(node.id, index, Opaque("an unpacking assignment", line))

    def _import(self, node, index, scope, module_level):
        for alias in node.names:
            scope.imports.append((0, alias.name))
            if alias.asname:
                scope.bind(alias.asname, index, ModuleRef(alias.name))
            else:
                first = alias.name.split(".")[0]
                scope.bind(first, index, ModuleRef(first))

    def _import_from(self, node, index, scope, module_level):
        # `from .m import x` loads .m, and .m.x too when x is a submodule.
        scope.imports.append((node.level or 0, node.module or ""))
        for alias in node.names:
            if alias.name != "*":
                scope.imports.append((node.level or 0, ((node.module + ".") if node.module else "") + alias.name))
        for alias in node.names:
            if alias.name == "*":
                scope.stars.append((index, Star(node.level or 0, node.module, node.lineno)))
            else:
                scope.bind(alias.asname or alias.name, index,
                           FromImport(node.level or 0, node.module, alias.name, node.lineno))
                if (alias.asname or alias.name) == "__getattr__" and module_level:
                    _bound_getattr(scope, "an import", node.lineno)

    def _if(self, node, index, scope, module_level):
        # Never true when the module is imported: `if __name__ == "__main__"`, `if TYPE_CHECKING`.
        if not (is_main_guard(node.test) or is_type_checking(node.test)):
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
            elif module_level and is_namespace_call(owner) and function.attr in (
                    "update", "__setitem__", "setdefault"):
                scope.dynamic.append("a module-level globals().%s() (line %d)"
                                     % (function.attr, node.lineno))
            elif module_level and dotted(owner) == ["sys", "meta_path"] and function.attr in ("insert", "append"):
                scope.dynamic.append("an import hook on sys.meta_path (line %d)" % node.lineno)
                self.hook_functions += [n.id for a in call.args for n in ast.walk(a) if isinstance(n, ast.Name)]

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



def _partial(value, index, line):
    """A Partial for `partial(f, ...)` / `functools.partial(f, ...)` with plain arguments."""
    if not isinstance(value, ast.Call) or not value.args:
        return None
    callee = dotted(value.func)
    function = dotted(value.args[0])
    if callee is None or callee[-1] != "partial" or function is None:
        return None
    if any(isinstance(a, ast.Starred) for a in value.args) or any(k.arg is None for k in value.keywords):
        return None
    return Partial(callee, function, len(value.args) - 1, [(k.arg, ast.unparse(k.value)) for k in value.keywords],
                   index, line)


def _call_alias(value, index, line):
    """A CallAlias for `f(...)` / `a.b.f(...)`; `staticmethod(f(...))` in a class body is the
    inner call's (a staticmethod reached through its class is the function itself)."""
    if not isinstance(value, ast.Call):
        return None
    if (dotted(value.func) == ["staticmethod"] and len(value.args) == 1 and not value.keywords
            and isinstance(value.args[0], ast.Call)):
        value = value.args[0]
    callee = dotted(value.func)
    if callee is None:
        return None
    positional, keywords = decorator_arguments(value) or ((), {})
    return CallAlias(callee, positional, keywords, index, line, short(value))


def _literal_strings(value):
    """The strings a literal string, or a tuple, list, set or dict (its keys) of them, holds."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return [value.value]
    items = value.keys if isinstance(value, ast.Dict) else getattr(value, "elts", None) \
        if isinstance(value, (ast.Tuple, ast.List, ast.Set)) else None
    return [item.value for item in items or () if isinstance(item, ast.Constant) and isinstance(item.value, str)]


def _bound_getattr(scope, how, line):
    """A module-level __getattr__ bound otherwise than by a def (`__getattr__ = make_getattr(__name__)`,
    as attrs does, or imported): a hook whose cases are not read, so that a name it may answer is
    unresolved, never missing; a def later in the module reads its own cases again."""
    scope.dynamic.append("a module-level __getattr__ bound by %s (line %d)" % (how, line))
    scope.getattr_closed = None


def _extend_all(scope, value):
    # Every literal assignment or extension counts (a union over branches): a star import then
    # sees any name __all__ may hold. Anything else makes __all__ unreadable.
    names = literal_strings(value)
    if scope.all_names is None:
        scope.all_names = set()
    if names is None:
        scope.all_dynamic = True
    else:
        scope.all_names.update(names)
