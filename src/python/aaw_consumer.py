"""What a consumer of the watched package calls: a static scan of a directory of Python files.

Every import of the package (at module level and inside functions; `import a as b`, `import a.b
as c`, `from a.b import c as d`, try/except ImportError fallbacks), and every call reached through
the names those imports bind, with its shape: file, line, enclosing function, positional count,
keyword names, *args/**kwargs, the guard it sits behind (a hasattr or inspect.signature probe, an
import fallback) and whether it is reached indirectly (`self.fn = pkg.fn`, a local alias). Nothing
is imported or executed. Called from C++ (src/extract/consumer/consumer_scanner.cpp).
Pure standard library, Python 3.9+.
"""

import ast
import hashlib
import os
import re
from typing import Any, Dict

from aaw_nodes import is_type_checking

_SKIPPED_DIRECTORIES = {".git", ".hg", ".svn", "__pycache__", ".tox", ".venv", "venv", "node_modules",
                        ".mypy_cache", ".pytest_cache", "build", "dist"}
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}
_TYPE_ERRORS = {"TypeError", "Exception", "BaseException"}


def discover(args: Dict[str, Any], host: Any = None) -> Dict[str, Any]:
    """args = {"path": directory, "package": "aiter", "exclude": [glob, ...]} -> the scan (see
    docs/consumer-check.md): {"package", "files_scanned", "files_excluded", "files_importing", "imports",
    "functions": [{"import_statement",
    "function_path", "target", "call_sites": [SITE]}], "classes", "modules", "constants",
    "imported_not_called", "fallbacks", "dynamic", "errors"}, and with a host cache "cache_use":
    {"parsed": n, "cached": n} of the files naming the package: a call through a name a try/except
    ImportError binds twice is counted against the first import (the one the consumer prefers);
    the other is listed under "fallbacks"."""
    root = args["path"]
    package = args.get("package") or "aiter"
    if not os.path.isdir(root):
        raise ValueError("consumer path '%s' is not a directory" % root)
    scan = _Scan(package, _HostCache.of(host))
    excluded = [_glob(pattern) for pattern in args.get("exclude") or []]
    base = _checkout_root(root)
    for path in _python_files(root, excluded, scan):
        scan.file(base, path)
    return scan.result()


def _checkout_root(directory):
    """The root of the checkout `directory` is in (the nearest directory holding .git), so that
    paths read the same whichever directory of it was given; `directory` itself outside one."""
    here = os.path.abspath(directory)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return os.path.abspath(directory)
        here = parent


def _python_files(root, excluded, scan):
    """The .py files under `root`, but those (or whose directory) an `excluded` pattern matches,
    which are counted in scan.files_excluded."""
    def matched(path):
        relative = os.path.relpath(path, root).replace(os.sep, "/")
        return any(pattern.fullmatch(relative) for pattern in excluded)
    for directory, subdirectories, files in os.walk(root):
        kept = []
        for d in sorted(subdirectories):
            if d in _SKIPPED_DIRECTORIES or d.startswith("."):
                continue
            if excluded and matched(os.path.join(directory, d)):
                scan.files_excluded += sum(1 for _, _, fs in os.walk(os.path.join(directory, d))
                                           for f in fs if f.endswith(".py"))
                continue
            kept.append(d)
        subdirectories[:] = kept
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            if excluded and matched(os.path.join(directory, name)):
                scan.files_excluded += 1
                continue
            yield os.path.join(directory, name)


def _glob(pattern):
    """A path glob as a regular expression: `*` and `?` stay within one directory, `**` crosses them."""
    out = []
    i = 0
    pattern = pattern.strip("/")
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


class _Binding:
    """What a local name stands for: a dotted path in the package, how the consumer imported it."""

    def __init__(self, target, statement, written, guard=None, indirect=None, alternatives=(), origin=None,
                 ambiguous=None):
        # `guard` also holds "find_spec probe" when the target is one of `alternatives` a
        # find_spec() picks: then a candidate that is gone is guarded, as the code takes another.
        self.target = target        # "aiter.ops.mha" (module, function or class: not known here)
        self.statement = statement  # the import statement as the consumer writes it
        self.written = written      # the name the consumer calls it by ("mha", "rocm_aiter")
        self.guard = guard          # "import fallback" when the import sits in a try/except ImportError
        self.indirect = indirect    # why a call through it is indirect ("through self.fn"), or None
        # Other targets the same name may stand for, picked at run time (`import_module(path)` with
        # `path` one of several literals), as (import statement, target): a call is checked against
        # each of them as well.
        self.alternatives = list(alternatives)
        self.origin = origin        # the assignment key whose other values make a call through it ambiguous
        self.ambiguous = ambiguous  # why the scan cannot tell which function a call through it reaches
        self.torch_ops = False      # stands for torch.ops.<package>: its calls are listed, not checked
        self.import_line = None     # the line of the import (or import_module call) that binds it
        self.module_level = False   # whether that import runs when the consumer's file is imported

    def derived(self, rest, indirect, origin=None):
        """The binding of `<this>.rest`, stored under another name (an alias, `self.x`)."""
        derived = _Binding(self.target + rest, self.statement, self.written + rest, self.guard, indirect,
                           [(st, t + rest) for st, t in self.alternatives], origin, self.ambiguous)
        derived.torch_ops = self.torch_ops
        derived.import_line, derived.module_level = self.import_line, self.module_level
        return derived


class _HostCache:
    """The host's cache_get/cache_put (a store that outlives the process), where a failure is a miss."""

    def __init__(self, host):
        self.host = host

    @staticmethod
    def of(host):
        if host is None or not (hasattr(host, "cache_get") and hasattr(host, "cache_put")):
            return None
        return _HostCache(host)

    def get(self, key):
        try:
            return self.host.cache_get(key)
        except Exception:  # pylint: disable=broad-except  (any failure: scan the file instead)
            return None

    def put(self, key, value):
        try:
            self.host.cache_put(key, value)
        except Exception:  # pylint: disable=broad-except  (not kept: scanned again next time)
            pass


class _Recorder:
    """The reports of one file's visitor as a list of [method of _Scan, arguments...] (JSON: what
    the cache keeps), applied to the scan once the file is done. Its sites are those the visitor
    goes on marking (_mark_ambiguous) until then."""

    def __init__(self, package):
        self.package = package
        self.events = []

    def is_package(self, dotted):
        return dotted == self.package or dotted.startswith(self.package + ".")

    def add_call(self, binding, rest, site):
        """Records `site` under the function it calls, and under every alternative the name may
        stand for (one copy each); returns the sites recorded."""
        recorded = [self.add_site(binding.statement, binding.target + rest, binding.written + rest, site)]
        for statement, alternative in binding.alternatives:
            copy = dict(site, guards=list(site["guards"]))
            recorded.append(self.add_site(statement, alternative + rest, alternative + rest, copy))
        return recorded

    def text(self, text, relative):
        try:
            tree = ast.parse(text, filename=relative)
        except (SyntaxError, ValueError) as error:
            self.note_error({"file": relative, "line": getattr(error, "lineno", None) or 0,
                             "error": "not valid Python: %s" % error})
            return
        _FileVisitor(self, relative).visit_module(tree)

    def add_site(self, statement, target, written, site):
        self.events.append(["add_site", statement, target, written, _named(site, statement, written)])
        return site

    def count_import(self, relative, importing):
        self.events.append(["count_import", relative, importing])

    def note_use(self, target, relative, kind):
        self.events.append(["note_use", target, relative, kind])

    def note_fallback(self, target, relative):
        self.events.append(["note_fallback", target, relative])

    def note_namespace(self, target):
        self.events.append(["note_namespace", target])

    def note_dynamic(self, entry):
        self.events.append(["note_dynamic", entry])

    def note_error(self, entry):
        self.events.append(["note_error", entry])


# The events a _Recorder makes, by their count of arguments (a cached list is checked against it).
_EVENTS = {"add_site": 4, "count_import": 2, "note_use": 3, "note_fallback": 2, "note_namespace": 1,
           "note_dynamic": 1, "note_error": 1}


def _named(site, statement, written):
    """`site` with the import statement and the name it is called through."""
    site["import_statement"] = statement
    site["function_path"] = written
    return site


class _Scan:
    def __init__(self, package, cache=None):
        self.package = package
        self.cache = cache
        self.cache_use = {"parsed": 0, "cached": 0}  # files naming the package: parsed, or from the cache
        self.files_scanned = 0
        self.files_excluded = 0
        self.files_importing = set()
        self.imports = 0
        self.functions = {}   # target -> entry
        self.used = {}        # target -> {"files": set, "kind": str} for names not called
        self.namespaces = set()  # targets used as `name.attribute`
        self.fallbacks = {}      # target -> files: imported in an except ImportError in place of another
        self.dynamic = []
        self.errors = []

    def file(self, base, path):
        self.files_scanned += 1
        relative = os.path.relpath(path, base).replace(os.sep, "/")
        try:
            with open(path, "rb") as handle:
                raw = handle.read()
        except OSError as error:
            self.errors.append({"file": relative, "error": "cannot read: %s" % error.strerror})
            return
        if self.package.encode() not in raw:  # most files never mention the package: skip parsing
            return
        key = None
        if self.cache is not None:
            key = hashlib.sha256(b"\0".join([b"consumer-scan-1", self.package.encode(),
                                              relative.encode("utf-8", "surrogateescape"), raw])).hexdigest()
            if self.apply(self.cache.get(key)):
                self.cache_use["cached"] += 1
                return
            self.cache_use["parsed"] += 1
        self.text(raw.decode("utf-8", "surrogateescape"), relative, key)

    def text(self, text, relative, key=None):
        recorder = _Recorder(self.package)
        recorder.text(text, relative)
        if key is not None:
            self.cache.put(key, recorder.events)
        self.apply(recorder.events)

    def apply(self, events):
        """Applies a _Recorder's events in order; False (and nothing applied) when `events` is not
        such a list."""
        if not isinstance(events, list) or not all(
                isinstance(e, list) and e and _EVENTS.get(e[0]) == len(e) - 1 for e in events) \
                or not all(isinstance(e[4], dict) for e in events if e[0] == "add_site"):
            return False
        for event in events:
            getattr(self, event[0])(*event[1:])
        return True

    def add_site(self, statement, target, written, site):
        last = target.rsplit(".", 1)[-1]
        if last[:1].isupper():
            self.note_use(target, site["file"], "class")
        entry = self.functions.get(target)
        if entry is None:
            entry = {"import_statement": statement, "function_path": written, "target": target,
                     "kind": "class" if last[:1].isupper() else "function", "call_sites": []}
            self.functions[target] = entry
        elif entry["call_sites"] and all(s["indirect"] for s in entry["call_sites"]) and not site["indirect"]:
            # The entry names the function as a direct call writes it, when there is one.
            entry["import_statement"], entry["function_path"] = statement, written
        entry["call_sites"].append(_named(site, statement, written))
        return site

    def count_import(self, relative, importing):
        """An import of the package; `importing`: one that binds a name in `relative`."""
        self.imports += 1
        if importing:
            self.files_importing.add(relative)

    def note_use(self, target, relative, kind):
        use = self.used.setdefault(target, {"files": set(), "kind": kind})
        use["files"].add(relative)

    def note_fallback(self, target, relative):
        """`target` imported (or returned) in an `except ImportError` in place of another."""
        self.fallbacks.setdefault(target, set()).add(relative)

    def note_namespace(self, target):
        self.namespaces.add(target)

    def note_dynamic(self, entry):
        self.dynamic.append(entry)

    def note_error(self, entry):
        self.errors.append(entry)

    def result(self):
        functions = [e for e in self.functions.values() if e["kind"] == "function"]
        classes = [e for e in self.functions.values() if e["kind"] == "class"]
        for entry in functions + classes:
            del entry["kind"]
        called = set(self.functions)
        apart = {"modules": [], "classes": [], "constants": [], "imported_not_called": []}
        lists = {"module": "modules", "class": "classes", "constant": "constants"}
        for target, use in sorted(self.used.items()):
            if target in called or target in self.fallbacks or (use["kind"] != "module" and any(t.startswith(target + ".") for t in called)):
                continue
            kind = use["kind"]
            if kind == "name":
                kind = "module" if target in self.namespaces else None
            apart[lists.get(kind, "imported_not_called")].append({"name": target, "files": sorted(use["files"])})
        return {"package": self.package, "files_scanned": self.files_scanned, "files_excluded": self.files_excluded,
                "files_importing": len(self.files_importing), "imports": self.imports,
                "functions": sorted(functions, key=lambda e: e["target"]),
                "classes": sorted(classes, key=lambda e: e["target"]) + apart["classes"],
                "modules": apart["modules"], "constants": apart["constants"],
                "imported_not_called": apart["imported_not_called"],
                "fallbacks": [{"name": t, "files": sorted(f)} for t, f in sorted(self.fallbacks.items())],
                "dynamic": self.dynamic, "errors": self.errors,
                **({"cache_use": self.cache_use} if self.cache is not None else {})}


class _Scope:
    _count = 0

    def __init__(self, name, parent, is_class=False):
        _Scope._count += 1
        self.uid = _Scope._count  # keys this scope's assignments (a name is local to its scope)
        self.name = name
        self.parent = parent
        self.is_class = is_class
        self.bindings = {}
        self.probes = {}   # target -> "hasattr probe" / "signature probe" / "find_spec probe" seen here
        self.strings = {}  # name -> the string literals assigned to it here (None: something else too)
        self.helpers = {}  # function defined here -> the _Binding of what every call of it returns
        # Function defined here / name assigned here -> what its value comes from, when that may be a
        # probe of the package (_GuardHelpers' sources).
        self.probe_helpers = {}
        self.probe_names = {}

    def chain(self):
        """This scope, then the ones it sees names of, innermost first."""
        scope = self
        while scope is not None:
            yield scope
            scope = scope.parent

    def lookup(self, name):
        return next((s.bindings[name] for s in self.chain() if name in s.bindings), None)

    def lookup_helper(self, name):
        for scope in self.chain():
            if name in scope.helpers:
                return scope.helpers[name]
            if name in scope.bindings:  # a name bound here hides an outer helper of that name
                return None
        return None

    def lookup_strings(self, name):
        return next((s.strings[name] for s in self.chain() if name in s.strings), None)

    def probed(self, target, kind):
        return any(s.probes.get(target) == kind for s in self.chain())


class _ProbingFunction:
    """A function being visited: what its return values may come from (_GuardHelpers' sources),
    and whether it imports the package inside a try/except ImportError."""

    def __init__(self):
        self.sources = []
        self.imports_probed = False


class _GuardHelpers:
    """Guards decided by a helper of the file: `if supports_x():` where supports_x() returns what a
    hasattr or inspect.signature probe of the package says, or whether a `try: import` of it worked
    (directly, through a name it assigned, or through another such helper). The helper may be
    defined after the code that calls it, so the sites under such a test are kept with the helpers
    deciding them and marked once the whole file is read.

    A source is a probe kind, or a reference: ("function", scope id, name) for a call of a
    function, ("method", class, name) for `self.name()`, `cls.name()` or `Class.name()`, ("name",
    scope id, name) for a name read, ("attribute", class, name) for `self.name` read. References name
    scopes by id, so that the tables scopes hold make no reference cycle: a file's scopes and tree go
    as soon as it is read, not at the next garbage collection."""

    def __init__(self):
        self.functions = []   # _ProbingFunction per def being visited, innermost last
        self.methods = {}     # class -> {method: sources}
        self.attributes = {}  # class -> {attribute assigned through self.: sources or _Later}
        self.deciding = []    # the references in the tests of the `if`s being visited
        self.pending = []     # (site, the references deciding it)
        self.scopes = {}      # id -> the scope a reference names

    def scope_id(self, scope):
        self.scopes[scope.uid] = scope
        return scope.uid

    def decided(self, sites):
        if self.deciding:
            for site in sites:
                self.pending.append((site, list(self.deciding)))

    def mark_guarded(self, sources_at):
        """Adds to each pending site the guards its deciding helpers turn out to be; sources_at(_Later)
        reads what a name or attribute was assigned comes from."""
        for site, references in self.pending:
            for reference in references:
                found = self.kind_of(reference, set(), sources_at)
                if found is not None:
                    guard = "%s in %s" % (found, _reference_text(reference))
                    if guard not in site["guards"]:
                        site["guards"].append(guard)

    def kind_of(self, reference, seen, sources_at):
        """The probe kind `reference`'s value comes from, or None."""
        if not isinstance(reference, tuple) or reference in seen:
            return reference if isinstance(reference, str) else None
        seen.add(reference)
        for source in self._sources_of(reference, sources_at):
            found = self.kind_of(source, seen, sources_at)
            if found is not None:
                return found
        return None

    def _sources_of(self, reference, sources_at):
        what, where, name = reference
        if what == "method":
            return self.methods.get(where, {}).get(name, ())
        if what == "attribute":
            return _read(self.attributes.get(where, {}), name, sources_at)
        table = "probe_helpers" if what == "function" else "probe_names"
        for scope in self.scopes[where].chain():
            if name in getattr(scope, table):
                return _read(getattr(scope, table), name, sources_at)
            if scope.bindings.get(name) is not None:  # the package's name: a direct probe, not a helper
                return ()
        return ()


class _Later:
    """An expression assigned to a name or a `self.` attribute in a scope (by id) within classes:
    what its value comes from is read only if a guard asks."""

    def __init__(self, scope, classes, expression):
        self.scope = scope
        self.classes = classes
        self.expression = expression


def _read(table, name, sources_at):
    """table[name]'s sources, read first when it holds a _Later."""
    sources = table.get(name, ())
    if isinstance(sources, _Later):
        sources = table[name] = sources_at(sources)
    return sources


def _reference_text(reference):
    what, where, name = reference
    if what == "function":
        return "%s()" % name
    if what == "method":
        return "%s.%s()" % (where, name)
    return "self.%s" % name if what == "attribute" else name


class _FileVisitor:
    """Walks one module in source order, keeping the names bound to the package per scope."""

    def __init__(self, scan, relative):
        self.scan = scan
        self.relative = relative
        self.scope = _Scope("<module>", None)
        self.module_scope = self.scope
        self.self_attributes = {}  # class -> {attribute: _Binding}: `self.x = <package name>`
        self.classes = []          # the classes being visited, by dotted name ("Outer.Inner")
        self.guards = []           # the guards of the statements being visited (innermost last)
        self.import_guard = []     # per enclosing try: whether its handlers catch ImportError
        self.type_checking = 0
        # Every value assigned to a name or `self.x` (key: _assignment_key), and the call sites
        # reached through such a name: a call is ambiguous when its name is also given another value.
        self.assignments = {}      # key -> [(target or None, value node)]
        self.reached = {}          # key -> [(site, target the name stood for)]
        self.returns = []          # per function being visited: [((binding, rest) or None, in a fallback)]
        self.fallback_handlers = 0  # depth of `except ImportError` handlers being visited
        self.guard_helpers = _GuardHelpers()

    # -- scopes ---------------------------------------------------------------------------------
    def visit_module(self, tree):
        self.body(tree.body)
        self._mark_ambiguous()
        self.guard_helpers.mark_guarded(self._probe_sources_at)

    def _mark_ambiguous(self):
        for key, reached in self.reached.items():
            name = key[2] if key[0] == "name" else "self." + key[2]
            for site, target in reached:
                others = [value for assigned, value in self.assignments.get(key, []) if assigned != target]
                if others and site.get("ambiguous") is None:
                    more = " and %d more" % (len(others) - 1) if len(others) > 1 else ""
                    site["ambiguous"] = "'%s' is also assigned %s at line %d%s" % (
                        name, _short(others[0]), others[0].lineno, more)

    def body(self, statements):
        for statement in statements:
            self.statement(statement)

    def statement(self, node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                self.expression(decorator)
            self.returns.append([])
            self.guard_helpers.functions.append(_ProbingFunction())
            defining = self.scope
            self._enter(node.name, node.body, parameters=_parameter_names(node.args))
            helper = self._helper(node.name, self.returns.pop())
            if helper is not None:
                defining.helpers[node.name] = helper
            sources = self.guard_helpers.functions.pop().sources
            if sources:
                if defining.is_class:
                    self.guard_helpers.methods.setdefault(self.classes[-1], {})[node.name] = sources
                else:
                    defining.probe_helpers[node.name] = sources
        elif isinstance(node, ast.ClassDef):
            for expression in node.bases + node.decorator_list:
                self.expression(expression)
            self.classes.append(self.caller() + "." + node.name if self.classes else node.name)
            self._enter(node.name, node.body, is_class=True)
            self.classes.pop()
        elif isinstance(node, ast.Return):
            sources = [] if self.guard_helpers.functions else None
            if node.value is not None:
                self.expression(node.value, sources)
            self._return(node, sources)
        elif isinstance(node, ast.Import):
            self._import(node)
        elif isinstance(node, ast.ImportFrom):
            self._import_from(node)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            self._try(node)
        elif isinstance(node, ast.If):
            self._if(node)
        elif isinstance(node, ast.Assign):
            self.expression(node.value)
            self._assign(node.targets, node.value)
            for target in node.targets:
                self.expression(target)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self.expression(node.value)
            self._assign([node.target], node.value)
        else:
            self._generic(node)

    def _generic(self, node):
        for field, value in ast.iter_fields(node):
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.stmt):
                        self.statement(item)
                    elif isinstance(item, ast.AST):
                        self.expression(item)
            elif isinstance(value, ast.stmt):
                self.statement(value)
            elif isinstance(value, ast.AST):
                self.expression(value)

    def _enter(self, name, statements, is_class=False, parameters=()):
        outer = self.scope
        # A class body's names are not visible in its methods (Python's rule).
        parent = outer if not outer.is_class else outer.parent
        self.scope = _Scope(name, parent, is_class)
        for parameter in parameters:  # a parameter hides an imported name of the same spelling
            self.scope.bindings[parameter] = None
        self.scope.display = (outer.display + "." if hasattr(outer, "display") else "") + name
        saved = self.guards, self.import_guard, self.guard_helpers.deciding
        # A def's body runs later, outside the guards around it.
        self.guards, self.import_guard, self.guard_helpers.deciding = [], [], []
        self.body(statements)
        self.guards, self.import_guard, self.guard_helpers.deciding = saved
        self.scope = outer

    def caller(self):
        return getattr(self.scope, "display", "<module>")

    # -- imports --------------------------------------------------------------------------------
    def _guard(self):
        return "import fallback" if any(self.import_guard) else None

    def _bind(self, name, binding, node):
        if self.type_checking:
            return
        self._imported_at(binding, node)
        self.scope.bindings[name] = binding
        self.scan.count_import(self.relative, True)
        if self.guard_helpers.functions and any(self.import_guard):
            self.guard_helpers.functions[-1].imports_probed = True

    def _import(self, node):
        for alias in node.names:
            if not self.scan.is_package(alias.name):
                continue
            if alias.asname:
                statement = "import %s as %s" % (alias.name, alias.asname)
                self._bind(alias.asname, _Binding(alias.name, statement, alias.asname, self._guard()), node)
                self.scan.note_use(alias.name, self.relative, "module")
            else:
                top = alias.name.split(".")[0]
                statement = "import %s" % alias.name
                existing = self.scope.bindings.get(top)
                # `import aiter.ops.mha` binds `aiter`; keep the longest statement for display.
                if existing is None or existing.target != top or len(existing.statement) < len(statement):
                    self._bind(top, _Binding(top, statement, top, self._guard()), node)
                else:
                    self.scan.count_import(self.relative, False)
                self.scan.note_use(alias.name, self.relative, "module")

    def _import_from(self, node):
        if node.level or node.module is None or not self.scan.is_package(node.module):
            return
        for alias in node.names:
            if alias.name == "*":
                continue
            local = alias.asname or alias.name
            written = "from %s import %s" % (node.module, alias.name)
            if alias.asname:
                written += " as %s" % alias.asname
            target = node.module + "." + alias.name
            self._bind(local, _Binding(target, written, local, self._guard()), node)
            kind = "constant" if alias.name.isupper() else \
                "class" if alias.name[:1].isupper() else "name"
            self.scan.note_use(target, self.relative, kind)

    # -- guards ---------------------------------------------------------------------------------
    def _try(self, node):
        caught = set()
        for handler in node.handlers:
            caught |= _caught(handler.type)
        guards = []
        if caught & _IMPORT_ERRORS:
            guards.append("import fallback")
        if caught & _TYPE_ERRORS:
            guards.append("catches TypeError")
        self.import_guard.append(bool(caught & _IMPORT_ERRORS))
        self.guards.extend(guards)
        self.body(node.body)
        del self.guards[len(self.guards) - len(guards):]
        primary = dict(self.scope.bindings)
        fallback = 1 if caught & _IMPORT_ERRORS else 0
        self.fallback_handlers += fallback
        for handler in node.handlers:
            if handler.type is not None:
                self.expression(handler.type)
            self.body(handler.body)
        self.fallback_handlers -= fallback
        self.import_guard.pop()
        if caught & _IMPORT_ERRORS:
            # `try: from new import x / except ImportError: from old import x`: the consumer calls
            # the new one when it is there; the fallback is the other path the guard opens.
            for name, binding in primary.items():
                fallback = self.scope.bindings.get(name)
                if binding is not None and binding.guard and fallback is not binding:
                    self.scope.bindings[name] = binding
                    if fallback is not None:
                        self.scan.note_fallback(fallback.target, self.relative)
        self.body(node.orelse)
        self.body(node.finalbody)

    def _if(self, node):
        sources = []
        self.expression(node.test, sources)
        if is_type_checking(node.test):
            self.type_checking += 1
            self.body(node.body)
            self.type_checking -= 1
            self.body(node.orelse)
            return
        probes = self._probes(node.test)
        self.guards.extend(probes)
        deciding = self.guard_helpers.deciding
        helpers = [source for source in sources if not isinstance(source, str)]
        deciding.extend(helpers)
        self.body(node.body)
        self.body(node.orelse)
        del deciding[len(deciding) - len(helpers):]
        del self.guards[len(self.guards) - len(probes):]

    def _probes(self, test):
        """'hasattr probe' / 'signature probe' when `test` probes something of the package."""
        found = []
        for node in ast.walk(test):
            kind = self._probe_kind(node)
            if kind and kind not in found:
                found.append(kind)
        return found

    def _probe_kind(self, node, note=True):
        """'hasattr probe' / 'signature probe' when `node` probes something of the package, noted
        in the scope (a probe of it anywhere in a function guards its calls there) unless not `note`."""
        if not isinstance(node, ast.Call) or not node.args:
            return None
        name = _call_name(node.func)
        if name not in _PROBES:
            return None
        resolved = self._resolve(node.args[0])
        if resolved is None:
            return None
        target = resolved[0].target + resolved[1]
        if name in ("hasattr", "getattr") and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
            if note:
                self.scope.probes[target + "." + str(node.args[1].value)] = "hasattr probe"
            return "hasattr probe"
        if name in ("inspect.signature", "signature"):
            if note:
                self.scope.probes[target] = "signature probe"
            return "signature probe"
        return None

    def _probe_sources(self, expression):
        """What the value of `expression` may come from that can be a probe of the package: a probe
        itself ("hasattr probe", ...), or a reference (_GuardHelpers.kind_of) to a function of this
        file it calls, a name or a `self.` attribute it reads, decided once the whole file is read."""
        found = []
        for node in ast.walk(expression):
            self._add_source(node, found)
        return found

    def _add_source(self, node, found):
        """Adds to `found` what _probe_sources says of `node` itself."""
        if isinstance(node, ast.Call):
            kind = self._probe_kind(node, note=False)
            called = kind or self._called_helper(node.func)
            if called is not None:
                found.append(called)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            found.append(("name", self.guard_helpers.scope_id(self.scope), node.id))
        elif isinstance(node, ast.Attribute) and _is_self(node.value) and self.classes:
            found.append(("attribute", self.classes[-1], node.attr))

    def _probe_sources_at(self, later):
        """_probe_sources of a _Later's expression, as read where it was assigned."""
        here = self.scope, self.classes
        self.scope, self.classes = self.guard_helpers.scopes[later.scope], list(later.classes)
        try:
            return self._probe_sources(later.expression)
        finally:
            self.scope, self.classes = here

    def _called_helper(self, func):
        if isinstance(func, ast.Name):
            return ("function", self.guard_helpers.scope_id(self.scope), func.id)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.value.id in ("self", "cls"):
                return ("method", self.classes[-1], func.attr) if self.classes else None
            if self.scope.lookup(func.value.id) is None:  # `Class.helper()`, Class of this file
                return ("method", func.value.id, func.attr)
        return None

    def _current_guards(self, target, binding):
        """The guards around a call of `target`, in the order they were met: the probes and
        try/excepts it sits in, a probe of it anywhere in an enclosing function, how it was imported."""
        guards = list(self.guards) + [s.probes[target] for s in self.scope.chain() if target in s.probes]
        if binding.guard:
            guards.append(binding.guard)
        return list(dict.fromkeys(guards))

    # -- names bound by assignment ----------------------------------------------------------------
    def _assign(self, targets, value):
        resolved = self._resolve(value)
        if resolved is None and _is_torch_ops(value, self.scan.package):
            # `ops = torch.ops.aiter`: each call through `ops` is listed as not checked.
            text = _short(value)
            resolved = _Binding(text, "", text), ""
            resolved[0].torch_ops = True
        for target in targets:
            self._assign_one(target, value, resolved)

    def _assign_one(self, target, value, resolved):
        key = self._assignment_key(target)
        if key is None:
            return
        if isinstance(target, ast.Name):
            self._note_string(target.id, value)
        if resolved is None and not isinstance(value, ast.Constant):
            # What the value comes from is read only if a guard asks (most names never decide one).
            sources = _Later(self.guard_helpers.scope_id(self.scope), tuple(self.classes), value)
            if isinstance(target, ast.Name):
                self.scope.probe_names[target.id] = sources
            else:
                self.guard_helpers.attributes.setdefault(self.classes[-1], {})[target.attr] = sources
        if not _is_none(value):  # `self.fn = None` until set: no other function reached through it
            self.assignments.setdefault(key, []).append(
                (resolved[0].target + resolved[1] if resolved else None, value))
        if resolved is None:
            if isinstance(target, ast.Name):
                existing = self.scope.bindings.get(target.id, False)
                # `x = something else` hides an imported (or outer) `x` from here on; an alias of this
                # scope keeps standing for the package, its calls ambiguous (see _mark_ambiguous).
                if existing is False or existing is None or existing.origin != key:
                    if self.scope.lookup(target.id) is not None:
                        self.scope.bindings[target.id] = None
            return
        binding, rest = resolved
        if isinstance(target, ast.Name):
            self.scope.bindings[target.id] = binding.derived(
                rest, "reached through the local alias '%s'" % target.id, key)
        else:
            attributes = self.self_attributes.setdefault(self.classes[-1], {})
            attributes[target.attr] = binding.derived(rest, "reached through 'self.%s'" % target.attr, key)

    def _assignment_key(self, target):
        if isinstance(target, ast.Name):
            return ("name", self.scope.uid, target.id)
        if isinstance(target, ast.Attribute) and _is_self(target.value) and self.classes:
            return ("self", self.classes[-1], target.attr)
        return None

    def _note_string(self, name, value):
        if _is_none(value):
            return
        literal = value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
        self.scope.strings.setdefault(name, []).append(literal)

    # -- functions that return something of the package ------------------------------------------
    def _return(self, node, sources):
        functions = self.guard_helpers.functions
        if functions:
            functions[-1].sources.extend(sources)
            if functions[-1].imports_probed and (any(self.import_guard) or self.fallback_handlers):
                functions[-1].sources.append("import probe")  # `try: import ...; return True`
        if not self.returns or node.value is None or _is_none(node.value):
            return
        self.returns[-1].append((self._resolve(node.value), self.fallback_handlers > 0))

    def _helper(self, name, returned):
        """What a call of the function `name` returns when every value it returns (but None) is the
        package's: the one it prefers (a return in an `except ImportError` is the fallback)."""
        if not returned or any(resolved is None for resolved, _ in returned):
            return None
        preferred = [resolved for resolved, fallback in returned if not fallback] or [r for r, _ in returned]
        targets = list(dict.fromkeys(b.target + rest for b, rest in preferred))
        for (binding, rest), _ in returned:
            if binding.target + rest not in targets:
                self.scan.note_fallback(binding.target + rest, self.relative)
        binding, rest = preferred[0]
        helper = binding.derived(rest, "returned by '%s()'" % name)
        if len(targets) > 1:
            helper.ambiguous = "'%s()' may return %s" % (name, " or ".join(targets))
        return helper

    def _import_module(self, argument):
        """The module `importlib.import_module(argument)` loads, when `argument` is a literal of the
        package or a name only ever given such literals (each one an alternative)."""
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            candidates = [argument.value]
        elif isinstance(argument, ast.Name):
            candidates = self.scope.lookup_strings(argument.id)
        else:
            return None
        if not candidates or any(c is None or not self.scan.is_package(c) for c in candidates):
            return None
        candidates = list(dict.fromkeys(candidates))
        guard = self._guard()
        if len(candidates) > 1 and all(self.scope.probed(c, "find_spec probe") for c in candidates):
            guard = "find_spec probe"
        first = candidates[0]
        binding = _Binding(first, "import %s" % first, first, guard, "imported by importlib.import_module",
                           [("import %s" % c, c) for c in candidates[1:]])
        self._imported_at(binding, argument)
        return binding

    def _imported_at(self, binding, node):
        binding.import_line = node.lineno
        binding.module_level = self.scope is self.module_scope

    # -- expressions ----------------------------------------------------------------------------
    def expression(self, node, sources=None):
        """Visits the calls and attribute uses in `node`; adds to `sources`, when given, what its
        value may come from (_probe_sources), read in the same walk."""
        for child in ast.walk(node):
            if isinstance(child, ast.Call):
                self._call(child)
            elif isinstance(child, ast.Attribute) and isinstance(child.ctx, ast.Load):
                self._attribute_use(child)
            if sources is not None:
                self._add_source(child, sources)

    def _attribute_use(self, node):
        resolved = self._resolve(node)
        if resolved is None or not resolved[1]:
            return
        self.scan.note_namespace(resolved[0].target)
        target = resolved[0].target + resolved[1]
        last = target.rsplit(".", 1)[-1]
        kind = "constant" if last.isupper() else "class" if last[:1].isupper() else None
        if kind:
            self.scan.note_use(target, self.relative, kind)

    def _resolve(self, node):
        """(binding, ".rest") when `node` is a name, or an attribute chain on a name, bound to the
        package; None otherwise."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        parts.reverse()
        if _is_self(node) and parts and self.classes:
            binding = self.self_attributes.get(self.classes[-1], {}).get(parts[0])
            if binding is None:
                return None
            return binding, "".join("." + p for p in parts[1:])
        if isinstance(node, ast.Name):
            binding = self.scope.lookup(node.id)
            if binding is None:
                return None
            return binding, "".join("." + p for p in parts)
        if isinstance(node, ast.Call):
            binding = self._returned(node)
            if binding is None:
                return None
            return binding, "".join("." + p for p in parts)
        return None

    def _returned(self, call):
        """The package binding a call returns: `importlib.import_module(...)` of the package, or
        a helper function of this file that returns one."""
        name = _call_name(call.func)
        if name in _IMPORT_MODULE:
            return self._import_module(call.args[0]) if call.args else None
        if isinstance(call.func, ast.Name):
            return self.scope.lookup_helper(call.func.id)
        return None

    def _call(self, node):
        name = _call_name(node.func)
        if name in _FIND_SPEC and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            self.scope.probes[node.args[0].value] = "find_spec probe"  # a probe, not a call of the package
            return
        if name in _IMPORT_MODULE + ("__import__",):
            imported = self._import_module(node.args[0]) if name != "__import__" and node.args else None
            if imported is not None:  # an import the scan follows: calls through what it returns are checked
                self.scan.count_import(self.relative, True)
                for candidate in [imported.target] + [t for _, t in imported.alternatives]:
                    self.scan.note_use(candidate, self.relative, "module")
                return
            if node.args and self._may_name_package(node.args[0]):
                self.scan.note_dynamic({"file": self.relative, "line": node.lineno, "caller": self.caller(),
                                          "what": "%s(%s)" % (name, _short(node.args[0]))})
            return
        if _is_torch_ops(node.func, self.scan.package):
            written = _short(node.func)
            self._torch_op_call(node, written.split("torch.ops.%s." % self.scan.package, 1)[-1], written)
            return
        resolved = self._resolve(node.func)
        if resolved is None:
            return
        binding, rest = resolved
        if self.type_checking:
            return
        if binding.torch_ops:
            self._torch_op_call(node, rest.lstrip("."), _short(node.func))
            return
        target = binding.target + rest
        site = self._site(node, self._current_guards(target, binding), binding)
        recorded = self.scan.add_call(binding, rest, site)
        self.guard_helpers.decided(recorded)
        if binding.origin is not None:
            self.reached.setdefault(binding.origin, []).extend((s, binding.target) for s in recorded)

    def _site(self, node, guards, binding=None, indirect=None):
        """The shape of the call `node`; how it is reached from `binding`, the name it calls through
        (else `indirect` says it)."""
        return {"file": self.relative, "line": node.lineno, "caller": self.caller(),
                "positional": sum(1 for a in node.args if not isinstance(a, ast.Starred)),
                "keywords": [k.arg for k in node.keywords if k.arg is not None],
                "star_args": any(isinstance(a, ast.Starred) for a in node.args),
                "star_kwargs": any(k.arg is None for k in node.keywords),
                "guards": guards, "indirect": binding.indirect if binding else indirect,
                "ambiguous": binding.ambiguous if binding else None,
                "import_line": binding.import_line if binding else None,
                "import_module_level": binding.module_level if binding else False}

    def _torch_op_call(self, node, op_path, written):
        """A call of torch.ops.<package>.<op> (or <op>.default): listed under dynamic with its op
        and its shape, which the check binds against the function registering the op."""
        op = op_path.split(".")[0]
        what = "call of torch.ops.%s.%s" % (self.scan.package, op_path)
        if not written.startswith("torch.ops."):
            what += " (through %s)" % written
        entry = {"file": self.relative, "line": node.lineno, "caller": self.caller(), "what": what}
        if op and "." not in op_path.replace(".default", "", 1):
            entry["op"] = op
            entry["site"] = self._site(node, list(dict.fromkeys(self.guards)),
                                       indirect="through torch.ops.%s.%s" % (self.scan.package, op))
            entry["site"].update({"import_statement": "", "function_path": written})
            self.guard_helpers.decided([entry["site"]])
        self.scan.note_dynamic(entry)

    def _may_name_package(self, argument):
        """Whether a dynamic import's argument may load the package (a literal or a name it was given)."""
        if isinstance(argument, ast.Constant):
            return isinstance(argument.value, str) and self.scan.is_package(argument.value)
        if isinstance(argument, ast.Name):
            values = self.scope.lookup_strings(argument.id) or []
            return any(v is not None and self.scan.is_package(v) for v in values)
        return self.scan.package in _short(argument)


_PROBES = ("hasattr", "getattr", "inspect.signature", "signature")
_FIND_SPEC = ("importlib.util.find_spec", "find_spec", "util.find_spec")
_IMPORT_MODULE = ("importlib.import_module", "import_module")


def _is_none(node):
    return isinstance(node, ast.Constant) and node.value is None


def _short(node, limit=80):
    text = _call_name(node)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _caught(expression):
    """The exception names an `except` clause names; a bare except catches everything."""
    if expression is None:
        return {"BaseException"}
    names = expression.elts if isinstance(expression, ast.Tuple) else [expression]
    return {n.id if isinstance(n, ast.Name) else n.attr for n in names if isinstance(n, (ast.Name, ast.Attribute))}


def _parameter_names(arguments):
    every = arguments.posonlyargs + arguments.args + arguments.kwonlyargs
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return [a.arg for a in every]


def _is_self(node):
    return isinstance(node, ast.Name) and node.id == "self"


def _call_name(func):
    try:
        return ast.unparse(func)
    except Exception:  # noqa: BLE001 - an expression unparse cannot print is no probe
        return ""


def _is_torch_ops(node, package):
    """`torch.ops.<package>` or an attribute of it."""
    while isinstance(node, ast.Attribute):
        if node.attr == package and isinstance(node.value, ast.Attribute) and node.value.attr == "ops" \
                and isinstance(node.value.value, ast.Name) and node.value.value.id == "torch":
            return True
        node = node.value
    return False
