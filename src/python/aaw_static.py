"""Static resolution of the monitored functions' signatures at one commit.

Called from C++ (src/static_extractor.cpp) as resolve_all(args, host), where host reads the
commit's tree: find_blob(path) -> blob id or None, is_directory(path) -> bool,
read_blob(blob_id) -> text. Files are parsed with ast and their bindings followed as DESIGN.md
("Static resolution rules") describes; the code is never imported or executed.

Parsed modules are summarised (bindings, star imports, __all__, dynamic definitions) and the
summaries cached by blob id across calls: an unchanged file is never read or parsed twice.
Pure standard library, Python 3.9+.
"""

import ast
import builtins
import gc
import hashlib
from collections import OrderedDict

_CACHE_LIMIT = 4096
# blob id -> _Scope (a parsed module) or _ParseFailure; least recently used first.
_summaries = OrderedDict()



def resolve_all(args, host):
    """One {"state": STATE, "consulted": [{"path", "blob"}]} per entry of args["functions"]."""
    functions = args.get("functions") if isinstance(args, dict) else None
    if not isinstance(functions, list):
        raise TypeError("resolve_all expects {'functions': [...]}")
    session = _Session(host)
    # What the caller already knows of this commit's tree ({path: blob id or None} and
    # {path: bool}): answered here, without a call back into the host for each path.
    known_blobs = args.get("known_blobs")
    if isinstance(known_blobs, dict):
        session.blobs.update(known_blobs)
    known_directories = args.get("known_directories")
    if isinstance(known_directories, dict):
        session.directories.update(known_directories)
    return [session.resolve_function(function) for function in functions]


def clear_cache(args=None, host=None):
    """Forgets every parsed module (tests use it to start cold)."""
    _summaries.clear()


def cache_size(args=None, host=None):
    return len(_summaries)


# ---------------------------------------------------------------------------------------------
# Module summaries: what a module (or a class body) binds, in textual order.

class _Def:
    __slots__ = ("name", "line", "args", "returns", "decorators")

    def __init__(self, node):
        self.name = node.name
        self.line = node.lineno
        self.args = node.args
        self.returns = node.returns
        self.decorators = [_decorator_name(d) for d in node.decorator_list]


class _Class:
    __slots__ = ("name", "line", "index", "scope", "has_bases")

    def __init__(self, node, index, scope):
        self.name = node.name
        self.line = node.lineno
        self.index = index
        self.scope = scope
        self.has_bases = bool(node.bases) or any(k.arg == "metaclass" for k in node.keywords)


class _ModuleRef:  # `import a.b as c` binds c to a.b; `import a.b` binds a to a
    __slots__ = ("module",)

    def __init__(self, module):
        self.module = module


class _FromImport:  # `from .m import f as g` binds g
    __slots__ = ("level", "module", "name", "line")

    def __init__(self, level, module, name, line):
        self.level = level
        self.module = module
        self.name = name
        self.line = line


class _Alias:  # `g = f` or `g = m.f`: followed among the bindings before this statement
    __slots__ = ("parts", "index")

    def __init__(self, parts, index):
        self.parts = parts
        self.index = index


class _Opaque:  # bound to something we do not follow (a call, a loop variable, ...)
    __slots__ = ("what", "line", "node")

    def __init__(self, what, line, node=None):
        self.what = what
        self.line = line
        self.node = node


class _Deleted:
    __slots__ = ("line",)

    def __init__(self, line):
        self.line = line


class _Star:
    __slots__ = ("level", "module", "line")

    def __init__(self, level, module, line):
        self.level = level
        self.module = module
        self.line = line


class _Scope:
    __slots__ = ("bindings", "stars", "all_names", "all_dynamic", "dynamic")

    def __init__(self):
        self.bindings = {}      # name -> [(statement index, binding)], textual order
        self.stars = []         # [(statement index, _Star)], textual order
        self.all_names = None   # the literal names of __all__, None without __all__
        self.all_dynamic = False  # __all__ is built from something we cannot read
        self.dynamic = []       # module-level setattr / globals() / __getattr__, as "what (line N)"

    def bind(self, name, index, binding):
        self.bindings.setdefault(name, []).append((index, binding))


class _ParseFailure:
    __slots__ = ("line", "message")

    def __init__(self, line, message):
        self.line = line
        self.message = message

    @property
    def digest(self):
        return "syntax:%s:%s" % (self.line, self.message)


_EMPTY_SCOPE = _Scope()


def _summarize(text):
    # An ast is a tree of many small objects and no cycles: with thousands of summaries cached,
    # the cyclic collector would walk all of them again and again while a module is parsed,
    # making each parse several times slower. Reference counting frees what a parse leaves.
    collecting = gc.isenabled()
    gc.disable()
    try:
        tree = ast.parse(text.encode("utf-8", "surrogateescape"))
        return _Collector().scope(tree.body, module_level=True)
    except SyntaxError as error:
        return _ParseFailure(error.lineno, error.msg)
    except (ValueError, UnicodeError, MemoryError, RecursionError) as error:
        return _ParseFailure(None, str(error) or type(error).__name__)
    finally:
        if collecting:
            gc.enable()


def module_digests(args, host):
    """The digest of each {"blob", "names"} in args["queries"] (see _digest), in order: what the
    caller compares to decide whether a changed file can change a resolution at all. Each
    distinct blob is parsed once, ever."""
    out = []
    for query in args.get("queries", []):
        blob = query["blob"]
        summary = _summaries.get(blob)
        if summary is None:
            summary = _summarize(host.read_blob(blob))
            _remember(blob, summary)
        out.append(_digest(summary, sorted(query.get("names") or ())))
    return out


def _digest(summary, names):
    """What resolving `names` in a module reads of it: their bindings and the star imports in
    textual order, __all__, and whether names may be defined dynamically; the whole API surface
    None when no names were asked (the caller then compares blobs). Positions are left out, so
    edits elsewhere in the module (bodies, comments, other functions) keep the digest."""
    if isinstance(summary, _ParseFailure):
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


def _star_repr(star):
    return "star %r %r" % (star.level, star.module)


def _binding_repr(binding):
    if isinstance(binding, _Def):
        returns = ast.dump(binding.returns) if binding.returns is not None else ""
        return "def %s %s %r" % (ast.dump(binding.args), returns, binding.decorators)
    if isinstance(binding, _Class):
        return "class %r %s" % (binding.has_bases, _scope_repr(binding.scope))
    if isinstance(binding, _FromImport):
        return "from %r %r %r" % (binding.level, binding.module, binding.name)
    if isinstance(binding, _ModuleRef):
        return "module %r" % (binding.module,)
    if isinstance(binding, _Alias):
        return "alias %r" % (binding.parts,)
    if isinstance(binding, _Deleted):
        return "deleted"
    if isinstance(binding, _Opaque):
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


def _remember(blob, summary):
    _summaries[blob] = summary
    while len(_summaries) > _CACHE_LIMIT:
        _summaries.popitem(last=False)
    # Cached summaries live long and hold no cycles: keep the cyclic collector from walking them
    # over and over (reference counting still frees the ones the cache lets go).
    gc.freeze()


class _Collector:
    """Walks a module (or class) body in textual order, numbering statements."""

    def __init__(self):
        self.index = 0

    def scope(self, statements, module_level):
        scope = _Scope()
        self._block(statements, scope, module_level)
        return scope

    def _block(self, statements, scope, module_level):
        for statement in statements:
            self.index += 1
            handler = _STATEMENT_HANDLERS.get(type(statement))
            if handler is not None:
                handler(self, statement, self.index, scope, module_level)

    def _def(self, node, index, scope, module_level):
        scope.bind(node.name, index, _Def(node))
        if module_level and node.name == "__getattr__":
            scope.dynamic.append("a module-level __getattr__ (line %d)" % node.lineno)

    def _class(self, node, index, scope, module_level):
        scope.bind(node.name, index, _Class(node, index, self.scope(node.body, False)))

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
                scope.bind(target.id, index, _Opaque("an augmented assignment", node.lineno))

    def _target(self, target, value, index, line, scope, module_level):
        if isinstance(target, ast.Name):
            if target.id == "__all__":
                _extend_all(scope, value)
            parts = _dotted(value)
            if parts is not None:
                scope.bind(target.id, index, _Alias(parts, index))
            else:
                scope.bind(target.id, index, _Opaque("an expression", line, _short(value)))
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
                scope.bind(node.id, index, _Opaque("an unpacking assignment", line))

    def _import(self, node, index, scope, module_level):
        for alias in node.names:
            if alias.asname:
                scope.bind(alias.asname, index, _ModuleRef(alias.name))
            else:
                first = alias.name.split(".")[0]
                scope.bind(first, index, _ModuleRef(first))

    def _import_from(self, node, index, scope, module_level):
        for alias in node.names:
            if alias.name == "*":
                scope.stars.append((index, _Star(node.level or 0, node.module, node.lineno)))
            else:
                scope.bind(alias.asname or alias.name, index,
                           _FromImport(node.level or 0, node.module, alias.name, node.lineno))

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
                scope.bind(target.id, index, _Deleted(node.lineno))


_STATEMENT_HANDLERS = {
    ast.FunctionDef: _Collector._def,
    ast.AsyncFunctionDef: _Collector._def,
    ast.ClassDef: _Collector._class,
    ast.Assign: _Collector._assign,
    ast.AnnAssign: _Collector._ann_assign,
    ast.AugAssign: _Collector._aug_assign,
    ast.Import: _Collector._import,
    ast.ImportFrom: _Collector._import_from,
    ast.If: _Collector._if,
    ast.Try: _Collector._try,
    ast.With: _Collector._with,
    ast.AsyncWith: _Collector._with,
    ast.For: _Collector._for,
    ast.AsyncFor: _Collector._for,
    ast.While: _Collector._while,
    ast.Expr: _Collector._expr,
    ast.Delete: _Collector._delete,
}
for _name, _handler in (("TryStar", _Collector._try), ("Match", _Collector._match)):
    if hasattr(ast, _name):
        _STATEMENT_HANDLERS[getattr(ast, _name)] = _handler


def _dotted(node):
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
        parts = _dotted(node.func)
        if parts is not None:
            return ".".join(parts) + "(...)"
    return None


def _decorator_name(node):
    if isinstance(node, ast.Call):
        node = node.func
    parts = _dotted(node)
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
    parts = _dotted(test)
    return parts is not None and parts[-1] == "TYPE_CHECKING"


# ---------------------------------------------------------------------------------------------
# Values a name can resolve to.

class _Module:
    __slots__ = ("name", "path", "blob", "is_package")

    def __init__(self, name, path, blob, is_package):
        self.name = name
        self.path = path          # the file, or the directory of a namespace package
        self.blob = blob          # None for a namespace package
        self.is_package = is_package


class _Function:
    __slots__ = ("definition", "path", "method_of")

    def __init__(self, definition, path, method_of=None):
        self.definition = definition
        self.path = path
        self.method_of = method_of  # the _ClassValue when reached as Class.method


class _ClassValue:
    __slots__ = ("cls", "module")

    def __init__(self, cls, module):
        self.cls = cls
        self.module = module


class _Outside:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class _NotFound:
    __slots__ = ("status", "detail", "cycle")

    def __init__(self, status, detail, cycle=False):
        self.status = status      # "missing" or "unresolved"
        self.detail = detail
        self.cycle = cycle        # only an import cycle hid the name


class _SyntaxFailure(Exception):
    pass


class _HostFailure(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Resolution.

class _Session:
    """One resolve_all call: the host's answers are cached for the call, parsed modules for
    longer (_summaries); the paths each function looked at are recorded in self.consulted."""

    def __init__(self, host):
        self.host = host
        self.blobs = {}        # path -> blob id or None
        self.directories = {}  # path -> bool
        self.summaries = {}    # blob id -> _Scope or _ParseFailure, for this call
        self._start_function()

    def _start_function(self):
        """What one function's resolution tracks; the caches above are shared by all."""
        self.consulted = {}       # path -> blob id or None
        self.consulted_dirs = {}  # path -> bool
        self.asked = {}           # path -> names looked up in that module, for digests
        self.forced = set()
        self.active = set()
        self.binding = set()

    def resolve_function(self, function):
        self._start_function()
        try:
            state = self._state(function)
        except _SyntaxFailure as failure:
            state = _failed("syntax_error", str(failure))
        except _HostFailure as failure:
            state = _failed("extract_failed", str(failure))
        except Exception as error:  # a bug here must cost one function, not the whole call
            state = _failed("extract_failed", "internal error in the static resolver: %s: %s"
                            % (type(error).__name__, error))
        consulted = [self._consulted_entry(path, blob) for path, blob in self.consulted.items()]
        if state.get("status") != "ok":
            # Details name lines ("bound to a call at m.py:12"), which digests leave out: a state
            # that is not ok is resolved again whenever one of its files changes at all.
            for entry in consulted:
                entry["digest"], entry["names"] = None, []
        # Directory probes say whether the directory was there, so a caller re-checking them
        # notices one appearing or disappearing (namespace packages).
        consulted += [{"path": path, "blob": None, "directory": found}
                      for path, found in self.consulted_dirs.items()]
        return {"state": state, "consulted": consulted}

    def _state(self, function):
        statement = function.get("import_statement") if isinstance(function, dict) else None
        path = function.get("function_path") if isinstance(function, dict) else None
        if not isinstance(statement, str) or not isinstance(path, str):
            return _failed("unresolved", "an entry needs 'import_statement' and 'function_path'")
        parts = path.split(".")
        if not all(part.isidentifier() for part in parts):
            return _failed("unresolved", "'%s' is not a dotted name" % path)
        value = self._import_head(statement.strip(), parts[0])
        for attribute in parts[1:]:
            value = self._attribute(value, attribute)
        return self._final_state(value, path)

    # -- the user's import statement --------------------------------------------------------

    def _import_head(self, statement, head):
        try:
            tree = ast.parse(statement)
        except SyntaxError as error:
            return _NotFound("unresolved", "cannot parse import statement '%s': %s"
                             % (statement, error.msg))
        if len(tree.body) != 1 or not isinstance(tree.body[0], (ast.Import, ast.ImportFrom)):
            return _NotFound("unresolved", "'%s' is not a single import statement" % statement)
        node = tree.body[0]
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname == head:
                    return self._user_module(alias.name)
                if alias.asname is None and alias.name.split(".")[0] == head:
                    # `import a.b.c` binds a, and loads a.b and a.b.c as its attributes.
                    parts = alias.name.split(".")
                    for end in range(2, len(parts) + 1):
                        self.forced.add(".".join(parts[:end]))
                    loaded = self._user_module(alias.name)
                    if not isinstance(loaded, _Module):
                        return loaded
                    return self._user_module(head)
        else:
            if node.level:
                return _NotFound("unresolved", "relative import '%s' has no package to resolve "
                                 "against" % statement)
            for alias in node.names:
                if alias.name == "*" or (alias.asname or alias.name) == head:
                    module = self._user_module(node.module)
                    if not isinstance(module, _Module):
                        return module
                    if alias.name != "*":
                        return self._from_import(module, alias.name)
                    if self._exports(module, head):
                        return self._member(module, head)
                    return _NotFound("missing", "'%s' is not exported by module '%s'"
                                     % (head, module.name))
        return _NotFound("unresolved", "'%s' is not bound by '%s'" % (head, statement))

    def _user_module(self, name):
        module = self._find_module(name)
        if module is None:
            return _NotFound("missing", "module '%s' not found" % name)
        return module

    # -- modules and members ------------------------------------------------------------------

    def _find_module(self, name):
        base = name.replace(".", "/")
        init = base + "/__init__.py"
        blob = self._blob(init)
        if blob is not None:
            return _Module(name, init, blob, True)
        path = base + ".py"
        blob = self._blob(path)
        if blob is not None:
            return _Module(name, path, blob, False)
        if self._is_directory(base):
            return _Module(name, base, None, True)  # a namespace package
        return None

    def _absolute(self, name):
        """A module named by an absolute import inside the repository's code."""
        module = self._find_module(name)
        if module is not None:
            return module
        top = name.split(".")[0]
        if top != name and self._find_module(top) is not None:
            return _NotFound("missing", "module '%s' not found" % name)
        return _Outside(name)

    def _import_target(self, module, level, name, line):
        if level == 0:
            return self._absolute(name)
        package = module.name.split(".")
        if not module.is_package:
            package.pop()
        if level - 1 >= len(package):
            return _NotFound("unresolved", "%s:%d: relative import beyond the top-level package"
                             % (module.path, line))
        base = package[:len(package) - (level - 1)]
        target = ".".join(base + ([name] if name else []))
        found = self._find_module(target)
        if found is None:
            return _NotFound("missing", "module '%s' not found (imported at %s:%d)"
                             % (target, module.path, line))
        return found

    def _member(self, module, name, before=None):
        """What `name` is in `module` (bound before statement `before` when given)."""
        key = (module.name, name, before)
        if key in self.active:
            return _NotFound("missing", "'%s' not found in module '%s' (import cycle)"
                             % (name, module.name), cycle=True)
        self.active.add(key)
        try:
            return self._member_uncut(module, name, before)
        finally:
            self.active.discard(key)

    def _member_uncut(self, module, name, before):
        self._ask(module, name)
        scope = self._summary(module)
        outside_stars = []
        cycle = False
        for index, item in _candidates(scope, name, before):
            if not isinstance(item, _Star):
                return self._binding_value(module, scope, item, name)
            target = self._import_target(module, item.level, item.module, item.line)
            if isinstance(target, _Outside):
                outside_stars.append(target.name)
            elif isinstance(target, _Module) and self._exports(target, name):
                value = self._member(target, name)
                if not (isinstance(value, _NotFound) and value.cycle):
                    return value
                # The target is still being imported and has not bound the name yet: this star
                # import binds nothing, and an earlier binding stands.
                cycle = True
        submodule = self._submodule(module, name)
        if submodule is not None:
            return submodule
        if before is not None and hasattr(builtins, name):
            return _Outside("builtins." + name)
        if outside_stars:
            return _NotFound("unresolved", "'%s' is not defined in module '%s'; it may come from "
                             "'from %s import *' (outside the repository)"
                             % (name, module.name, outside_stars[0]))
        if scope.dynamic:
            return _NotFound("unresolved", "'%s' is not defined statically in module '%s'; %s "
                             "in %s may define it" % (name, module.name, scope.dynamic[0],
                                                      module.path))
        if cycle:
            return _NotFound("missing", "'%s' not found in module '%s' (import cycle)"
                             % (name, module.name), cycle=True)
        return _NotFound("missing", "'%s' not found in module '%s'" % (name, module.name))

    def _binding_value(self, module, scope, binding, name):
        if isinstance(binding, _Def):
            return _Function(binding, module.path)
        if isinstance(binding, _Class):
            return _ClassValue(binding, module)
        if isinstance(binding, _FromImport):
            target = self._import_target(module, binding.level, binding.module, binding.line)
            if isinstance(target, _Module):
                return self._from_import(target, binding.name)
            if isinstance(target, _Outside):
                return _Outside(target.name + "." + binding.name)
            return target
        if isinstance(binding, _ModuleRef):
            return self._absolute(binding.module)
        if isinstance(binding, _Alias):
            value = self._member(module, binding.parts[0], binding.index)
            for attribute in binding.parts[1:]:
                value = self._attribute(value, attribute)
            return value
        if isinstance(binding, _Deleted):
            return _NotFound("missing", "'%s' is deleted at %s:%d" % (name, module.path,
                                                                      binding.line))
        return _NotFound("unresolved", _opaque_detail(name, binding, module.path))

    def _from_import(self, module, name):
        # As Python does: the module's attribute, else its submodule; a name hidden only by an
        # import cycle is the submodule (`from . import m` in a package's __init__).
        value = self._member(module, name)
        if isinstance(value, _NotFound) and value.cycle:
            submodule = self._submodule(module, name)
            if submodule is not None:
                return submodule
        return value

    def _submodule(self, module, name):
        if not module.is_package:
            return None
        return self._find_module(module.name + "." + name)

    def _exports(self, module, name):
        """Whether `from module import *` binds `name`."""
        self._ask(module, name)
        scope = self._summary(module)
        if scope.all_names is not None:
            if name in scope.all_names:
                return True
            if not scope.all_dynamic:
                return False
        return not name.startswith("_") and self._binds(module, name)

    def _binds(self, module, name):
        self._ask(module, name)
        if name in self._summary(module).bindings:
            return True
        key = (module.name, name)
        if key in self.binding:
            return False  # an import cycle: not on this path
        self.binding.add(key)
        try:
            for _, star in self._summary(module).stars:
                target = self._import_target(module, star.level, star.module, star.line)
                if isinstance(target, _Module) and self._exports(target, name):
                    return True
            return False
        finally:
            self.binding.discard(key)

    # -- attributes and classes ---------------------------------------------------------------

    def _attribute(self, value, name):
        if isinstance(value, _Module):
            qualified = value.name + "." + name
            if qualified in self.forced:
                return self._user_module(qualified)
            return self._member(value, name)
        if isinstance(value, _ClassValue):
            return self._class_member(value, name)
        if isinstance(value, _Outside):
            return _Outside(value.name + "." + name)
        if isinstance(value, _Function):
            return _NotFound("unresolved", "'%s' is an attribute of function '%s' (%s)"
                             % (name, value.definition.name, value.path))
        return value

    def _class_member(self, value, name, before=None):
        cls = value.cls
        for index, binding in reversed(cls.scope.bindings.get(name, ())):
            if before is not None and index >= before:
                continue
            if isinstance(binding, _Def):
                return _Function(binding, value.module.path, value)
            if isinstance(binding, _Class):
                return _ClassValue(binding, value.module)
            if isinstance(binding, _Alias):
                # A class body sees its own earlier names first, then the module's.
                found = self._class_member(value, binding.parts[0], binding.index)
                if isinstance(found, _NotFound):
                    found = self._member(value.module, binding.parts[0], cls.index)
                for attribute in binding.parts[1:]:
                    found = self._attribute(found, attribute)
                return found
            return self._binding_value(value.module, cls.scope, binding, name)
        if cls.has_bases:
            return _NotFound("unresolved", "'%s' is not defined in the body of class '%s' (%s); "
                             "it may be inherited" % (name, cls.name, value.module.path))
        return _NotFound("missing", "'%s' not found in class '%s' (%s)"
                         % (name, cls.name, value.module.path))

    # -- the final value ----------------------------------------------------------------------

    def _final_state(self, value, path):
        if isinstance(value, _Function):
            definition = value.definition
            if value.method_of is None:
                return _ok(definition, drop_first=False)
            decorators = definition.decorators
            if "property" in decorators or "cached_property" in decorators or any(
                    d in ("setter", "getter", "deleter") for d in decorators):
                return _failed("unresolved", "'%s' is a property, not a method" % path)
            return _ok(definition, drop_first="classmethod" in decorators)
        if isinstance(value, _ClassValue):
            return self._constructor_state(value, path)
        if isinstance(value, _Module):
            return _failed("unresolved", "'%s' is a module, not a function" % path)
        if isinstance(value, _Outside):
            return _failed("unresolved", "defined outside the repository: %s" % value.name)
        return _failed(value.status, value.detail)

    def _constructor_state(self, value, path):
        # As inspect.signature(cls): the class's own __new__, else its own __init__, minus the
        # first parameter.
        for method in ("__new__", "__init__"):
            if method in value.cls.scope.bindings:
                found = self._class_member(value, method)
                if isinstance(found, _Function):
                    return _ok(found.definition, drop_first=True)
                return self._final_state(found, path + "." + method)
        return _failed("unresolved", "class '%s' (%s) defines no __init__ in its body"
                       % (value.cls.name, value.module.path))

    # -- the host, cached for this call -------------------------------------------------------

    def _blob(self, path):
        if path in self.blobs:
            blob = self.blobs[path]
        else:
            blob = self._host("find_blob", path, "look up '%s'" % path)
            if blob is not None and not isinstance(blob, str):
                raise _HostFailure("cannot look up '%s': find_blob returned %s"
                                   % (path, type(blob).__name__))
            self.blobs[path] = blob
        self.consulted.setdefault(path, blob)
        return blob

    def _is_directory(self, path):
        if path in self.directories:
            found = self.directories[path]
        else:
            found = bool(self._host("is_directory", path, "look up '%s'" % path))
            self.directories[path] = found
        self.consulted_dirs.setdefault(path, found)
        return found

    def _summary(self, module):
        blob = module.blob
        if blob is None:
            return _EMPTY_SCOPE
        summary = self.summaries.get(blob)
        if summary is None:
            summary = _summaries.get(blob)
            if summary is not None:
                _summaries.move_to_end(blob)
            else:
                text = self._host("read_blob", blob, "read '%s' (blob %s)" % (module.path, blob))
                if not isinstance(text, str):
                    raise _HostFailure("cannot read '%s': read_blob returned %s"
                                       % (module.path, type(text).__name__))
                summary = _summarize(text)
                _remember(blob, summary)
            self.summaries[blob] = summary
        if isinstance(summary, _ParseFailure):
            where = module.path if summary.line is None else "%s:%d" % (module.path, summary.line)
            raise _SyntaxFailure("%s: %s" % (where, summary.message))
        return summary

    def _ask(self, module, name):
        if module.blob is not None:
            self.asked.setdefault(module.path, set()).add(name)

    def _consulted_entry(self, path, blob):
        """A file probe, with the digest of what resolution read there: the bindings of the names
        it asked about (or the module's whole API surface when it asked about none)."""
        summary = self.summaries.get(blob) if blob is not None else None
        names = sorted(self.asked.get(path, ()))
        if summary is None or not names:
            return {"path": path, "blob": blob, "digest": None, "names": []}
        return {"path": path, "blob": blob, "digest": _digest(summary, names), "names": names}

    def _host(self, callback, argument, what):
        try:
            return getattr(self.host, callback)(argument)
        except Exception as error:  # aaw_host.HostError, or anything a test host raises
            raise _HostFailure("cannot %s: %s" % (what, error)) from None


def _candidates(scope, name, before):
    """The bindings of `name` and the star imports, last first (statements before `before`)."""
    explicit = scope.bindings.get(name, ())
    stars = scope.stars
    i, j = len(explicit) - 1, len(stars) - 1
    if before is not None:
        while i >= 0 and explicit[i][0] >= before:
            i -= 1
        while j >= 0 and stars[j][0] >= before:
            j -= 1
    while i >= 0 or j >= 0:
        if j < 0 or (i >= 0 and explicit[i][0] > stars[j][0]):
            yield explicit[i]
            i -= 1
        else:
            yield stars[j]
            j -= 1


def _opaque_detail(name, binding, path):
    detail = "'%s' is bound to %s at %s:%d" % (name, binding.what, path, binding.line)
    if binding.node is not None:
        text = binding.node if isinstance(binding.node, str) else ast.unparse(binding.node)
        detail += ": " + (text if len(text) <= 80 else text[:77] + "...")
    return detail


# ---------------------------------------------------------------------------------------------
# Signatures, as inspect prints them.

def _failed(status, detail):
    return {"status": status, "detail": detail}


def _ok(definition, drop_first):
    parameters = _parameters(definition.args)
    if drop_first:
        if not parameters or parameters[0]["kind"] in ("KEYWORD_ONLY", "VAR_KEYWORD"):
            return _failed("unresolved", "invalid method signature for '%s'" % definition.name)
        if parameters[0]["kind"] != "VAR_POSITIONAL":
            parameters = parameters[1:]
    returns = None if definition.returns is None else ast.unparse(definition.returns)
    return {"status": "ok", "text": _text(parameters, returns),
            "signature": {"parameters": parameters, "return_annotation": returns}}


def _parameters(arguments):
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


def _text(parameters, returns):
    # inspect.Signature.__str__: "/" after the last positional-only parameter, "*" before the
    # first keyword-only one unless *args came first.
    rendered = []
    pending_slash = False
    need_star = True
    for parameter in parameters:
        kind = parameter["kind"]
        if kind == "POSITIONAL_ONLY":
            pending_slash = True
        elif pending_slash:
            rendered.append("/")
            pending_slash = False
        if kind == "VAR_POSITIONAL":
            need_star = False
        elif kind == "KEYWORD_ONLY" and need_star:
            rendered.append("*")
            need_star = False
        rendered.append(_parameter_text(parameter))
    if pending_slash:
        rendered.append("/")
    text = "(" + ", ".join(rendered) + ")"
    if returns is not None:
        text += " -> " + returns
    return text


def _parameter_text(parameter):
    text = parameter["name"]
    if parameter["annotation"] is not None:
        text += ": " + parameter["annotation"]
    if parameter["default"] is not None:
        text += (" = " if parameter["annotation"] is not None else "=") + parameter["default"]
    if parameter["kind"] == "VAR_POSITIONAL":
        text = "*" + text
    elif parameter["kind"] == "VAR_KEYWORD":
        text = "**" + text
    return text
