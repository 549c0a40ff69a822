"""Resolution: from an import statement and a function path to the definition Python would reach.

Follows the rules of DESIGN.md ("Static resolution rules") over module summaries
(aaw_summary.py), reading the commit's tree through a host: find_blob(path) -> blob id or None,
is_directory(path) -> bool, read_blob(blob_id) -> text. One Session serves one resolve_all call:
the host's answers are cached for the call, and every path a function's resolution looked at is
recorded (what it consulted), so the caller can reuse the state while none of them changes.
Pure standard library, Python 3.9+.
"""

import ast
import builtins
import re
import sys

import aaw_digest
import aaw_model
import aaw_nodes
import aaw_signature
import aaw_summary


class _Module:
    __slots__ = ("name", "path", "blob", "is_package")

    def __init__(self, name, path, blob, is_package):
        self.name = name
        self.path = path          # the file, or the directory of a namespace package
        self.blob = blob          # None for a namespace package
        self.is_package = is_package


class _Function:
    __slots__ = ("definition", "module", "method_of")

    def __init__(self, definition, module, method_of=None):
        self.definition = definition
        self.module = module        # the _Module whose file holds the def
        self.method_of = method_of  # the _ClassValue when reached as Class.method

    @property
    def path(self):
        return self.module.path


class _ClassValue:
    __slots__ = ("cls", "module")

    def __init__(self, cls, module):
        self.cls = cls
        self.module = module


class _Computed:
    """A signature made here, not read off one def (a functools.partial of a function)."""
    __slots__ = ("parameters", "returns", "note")

    def __init__(self, parameters, returns, note):
        self.parameters = parameters
        self.returns = returns
        self.note = note


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


class _TooDeep(Exception):
    """Valid code nested past what resolution follows: an import chain longer than _MAX_CHAIN
    modules, or an expression deeper than Python's recursion limit."""


# Modules one resolution may pass through at once (star imports, re-exports, aliases): real
# packages need a handful; this stays well inside Python's recursion limit, so a longer chain is
# reported as such instead of failing the whole call.
_MAX_CHAIN = 100




class Session:
    """One resolve_all call: the host's answers are cached for the call, parsed modules for
    longer (aaw_summary's cache); the paths each function looked at are recorded in self.consulted."""

    def __init__(self, host, source_roots=None, module_aliases=None):
        self.host = host
        self.blobs = {}        # path -> blob id or None
        self.directories = {}  # path -> bool
        self.summaries = {}    # blob id -> aaw_model.Scope or aaw_model.ParseFailure, for this call
        # Where top-level packages are looked for: the config's list ("" is the repository root),
        # else the root, src/, then what the packaging files declare.
        self.source_roots = [_directory(root) for root in source_roots] if source_roots else None
        self.module_aliases = dict(module_aliases or {})  # old module name -> new (static.module_aliases)
        # What each import statement met so far imports, and what finding it looked at (_note
        # events; ("r", top) for a source root it needed): the next function that meets the same
        # statement takes the answer and notes the same probes, without looking again.
        self._targets = {}
        self._recorders = []  # the event lists of the _import_target calls under way
        # While above 0, names are asked for their identity only (aaw_digest.identity_of): what a
        # decorator is bound to, not its parameters.
        self._identity = 0
        self._start_function()

    def _start_function(self):
        """What one function's resolution tracks; the caches above are shared by all."""
        self.consulted = {}       # path -> blob id or None
        self.location = None      # (path, line) of the def (or class) the function resolved to
        self.consulted_dirs = {}  # path -> bool
        self.asked = {}           # path -> names looked up in that module, for digests
        self.forced = set()
        self.active = set()
        self.binding = set()
        self.tops = {}       # top-level package -> the root it was found in ("" none)
        self.loaded = None   # module names importing the user's statement loads, when computed

    def resolve_function(self, function, consulted=True):
        """{"state": STATE, "consulted": what the resolution looked at, with digests}; without
        `consulted` (a lookup, which wants only the state) {"state": STATE}."""
        self._start_function()
        try:
            state = self._state(function)
        except _SyntaxFailure as failure:
            state = aaw_signature.failed("syntax_error", str(failure))
        except _HostFailure as failure:
            state = aaw_signature.failed("extract_failed", str(failure))
        except _TooDeep as failure:
            state = aaw_signature.failed("unresolved", str(failure))
        except RecursionError:
            state = aaw_signature.failed("unresolved", "'%s' is nested too deeply to read statically (past "
                                         "Python's recursion limit of %d); the runtime extractor sees it"
                                         % (function.get("function_path") if isinstance(function, dict)
                                            else function, sys.getrecursionlimit()))
        except Exception as error:  # a bug here must cost one function, not the whole call
            state = aaw_signature.failed("extract_failed", "internal error in the static resolver: %s: %s"
                            % (type(error).__name__, error))
        if not consulted:
            return {"state": state}
        # Details name lines ("bound to a call at m.py:12", "functools.partial of f (m.py:3)"),
        # which digests leave out unless asked: a state is resolved again when a line it quotes
        # moves, so its detail never goes stale.
        self._ask_positions_quoted_by(state.get("detail") or "")
        return {"state": state, "consulted": self._consulted_entries()}

    def _consulted_entries(self):
        """What this function's resolution looked at, as resolve_all reports it."""
        consulted = [self._consulted_entry(path, blob) for path, blob in self.consulted.items()]
        # Directory probes say whether the directory was there, so a caller re-checking them
        # notices one appearing or disappearing (namespace packages).
        return consulted + [{"path": path, "blob": None, "directory": found}
                            for path, found in self.consulted_dirs.items()]

    def star_additions(self, path, before, after, asks):
        """The module at `path` changed from blob `before` to `after`. Per entry of `asks` (the
        names one function asked of it): when the new version only adds star imports for those
        names (aaw_digest.StarDelta) and none of them exports any of the names, nothing that
        function resolved changed, and the answer is what a resolution would add to what it
        consulted: its probe of the module at `after`, then what checking the added imports read.
        Else None: resolve that function again. One call answers a star-import edit of a package's
        __init__ for every function imported through it."""
        # Only an old version still parsed is compared: parsing it again would cost about what the
        # resolutions it could spare do.
        old = self.summaries.get(before) or aaw_summary.cached(before)
        if old is None:
            return [None] * len(asks)
        try:
            module = self._module_at_path(path, after)
            if module is None:
                return [None] * len(asks)
            new = self._summary(module)
        except (_SyntaxFailure, _HostFailure, _TooDeep, RecursionError):
            return [None] * len(asks)
        delta = aaw_digest.StarDelta(old, new)
        return [self._unchanged_by_stars(module, delta.added_stars(names), names) for names in asks]

    def _unchanged_by_stars(self, module, added, names):
        if not added:
            return None
        self._start_function()
        self._note(("b", module.path, module.blob))
        try:
            for name in names:
                self._ask(module, name)
            identifiers = [name for name in names if not name.startswith("<")]
            for star in added:
                target = self._import_target(module, star.level, star.module, star.line)
                if isinstance(target, _Outside):
                    return None  # the name might come from it: only a resolution can say
                if isinstance(target, _Module) and any(self._exports(target, name) for name in identifiers):
                    return None
        except (_SyntaxFailure, _HostFailure, _TooDeep, RecursionError):
            return None
        return self._consulted_entries()

    def _module_at_path(self, path, blob):
        """The module whose file is `path`, found as an import of its name finds it, when that
        file is blob `blob`; None when its name does not find it there."""
        for root in self._candidate_roots():
            if not path.startswith(root):
                continue
            rest = path[len(root):]
            if rest.endswith("/__init__.py"):
                name = rest[:-len("/__init__.py")]
            elif rest.endswith(".py"):
                name = rest[:-len(".py")]
            else:
                continue
            name = name.replace("/", ".")
            if not all(part.isidentifier() for part in name.split(".")):
                continue
            module = self._find_module(name)
            if module is not None and module.path == path and module.blob == blob:
                return module
        return None

    def _ask_positions_quoted_by(self, detail):
        """Asks for the positions in the modules whose lines `detail` quotes ("m.py:12", "(line 12)
        in m.py"); in every module asked when it quotes a line but names none of them."""
        if not _QUOTED_LINE.search(detail):
            return
        quoted = [names for path, names in self.asked.items() if path in detail]
        for names in quoted or self.asked.values():
            names.add(aaw_digest.POSITIONS)

    def _state(self, function):
        statement = function.get("import_statement") if isinstance(function, dict) else None
        path = function.get("function_path") if isinstance(function, dict) else None
        if not isinstance(statement, str) or not isinstance(path, str):
            return aaw_signature.failed("unresolved", "an entry needs 'import_statement' and 'function_path'")
        parts = path.split(".")
        if not all(part.isidentifier() for part in parts):
            return aaw_signature.failed("unresolved", "'%s' is not a dotted name" % path)
        value = self._import_head(statement.strip(), parts[0])
        for attribute in parts[1:]:
            value = self._attribute(value, attribute)
        return self._final_state(value, path)

    # -- the user's import statement --------------------------------------------------------

    def _import_head(self, statement, head):
        node = _parsed_import(statement)
        if isinstance(node, SyntaxError):
            return _NotFound("unresolved", "cannot parse import statement '%s': %s"
                             % (statement, node.msg))
        if node is None:
            return _NotFound("unresolved", "'%s' is not a single import statement" % statement)
        # What running the statement loads: the modules it names (and their parents).
        if isinstance(node, ast.Import):
            self.forced.update(alias.name for alias in node.names)
        elif node.module and not node.level:
            self.forced.add(node.module)
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
            return self._missing_module(name)
        return module

    # -- modules and members ------------------------------------------------------------------

    def _find_module(self, name):
        """The module `name` as Python would import it: under the root its top-level package is
        found in, else through a configured alias, else through its package's import hook (a
        literal map of old module names to new ones). None when there is none."""
        alias = self._alias(name)
        if alias is not None:
            return self._find_module(alias)
        top, _, rest = name.partition(".")
        root = self._root_of(top)
        if root is None:
            return None
        found = self._module_at(name, root + name.replace(".", "/"))
        if found is not None or not rest:
            return found
        parent_name, _, last = name.rpartition(".")
        parent = self._find_module(parent_name)
        if parent is not None and parent.name != parent_name:
            # The package was itself redirected: its submodules are found where it really is
            # (Python looks them up on the redirected package's __path__).
            return self._find_module(parent.name + "." + last)
        redirected = self._hook_target(name)
        return self._find_module(redirected) if redirected is not None else None

    def _module_at(self, name, base):
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

    def _alias(self, name):
        for old, new in self.module_aliases.items():
            if name == old or name.startswith(old + "."):
                return new + name[len(old):]
        return None

    def _root_of(self, top):
        """The source root ("" or "src/") holding the top-level package `top`, None when none does."""
        for recorder in self._recorders:  # what it probes depends on what this function knows
            recorder.append(("r", top))
        if top not in self.tops:
            self.tops[top] = None
            for root in self._candidate_roots():
                # Whether the package is there, not what its __init__ holds: a directory (a
                # package, or a namespace package) or a single-file module.
                if self._is_directory(root + top) or self._blob(root + top + ".py") is not None:
                    self.tops[top] = root
                    break
        return self.tops[top]

    def _candidate_roots(self):
        if self.source_roots is not None:
            yield from self.source_roots
            return
        # The root and src/ first: packaging files are read only when neither holds the package
        # (they change at every release, and each change would send every function back here).
        yield ""
        yield "src/"
        for root in self._declared_roots():
            if root not in ("", "src/"):
                yield root

    def _declared_roots(self):
        roots = []
        for path, reader in _PACKAGING_FILES:
            blob = self._blob(path)
            if blob is None:
                continue
            declared = _declared_cache.get((path, blob))
            if declared is None:
                text = self._host("read_blob", blob, "read '%s' (blob %s)" % (path, blob))
                declared = [_directory(root) for root in reader(text if isinstance(text, str) else "")]
                _remember_declared(path, blob, declared)
            roots += declared
        return roots

    def _hook_target(self, name):
        """What `name` (a.b.old) is redirected to by its package's import hook, when the hook's
        map is literal; None when there is no such entry."""
        parent_name, _, last = name.rpartition(".")
        parent = self._find_module(parent_name)
        if parent is None or parent.blob is None or not parent.is_package:
            return None
        self._ask(parent, aaw_digest.HOOKS)
        scope = self._summary(parent)
        for map_name in sorted(scope.hooks):
            target = scope.maps.get(map_name, {}).get(last)
            if target is not None:
                return _redirected(parent_name, target)
        return None

    def _missing_module(self, name, where=""):
        """Why `name` cannot be imported: the whole package gone from the tree is unresolved
        (never a removal of each function); a module its package's import hook may provide
        (one we cannot read) is unresolved; any other module that is not there is missing."""
        top = name.split(".")[0]
        if self._root_of(top) is None:
            roots = ", ".join(r.rstrip("/") or "." for r in self._candidate_roots())
            return _NotFound("unresolved", "package '%s' not found in the tree (looked in %s)%s"
                             % (top, roots, where))
        parent_name = name.rpartition(".")[0]
        parent = self._find_module(parent_name) if parent_name else None
        if parent is not None and parent.blob is not None:
            self._ask(parent, aaw_digest.HOOKS)
            scope = self._summary(parent)
            hooks = [d for d in scope.dynamic if "__getattr__" in d or "sys.meta_path" in d]
            readable = any(name in scope.maps for name in scope.hooks)
            if hooks and not readable:
                return _NotFound("unresolved", "module '%s' not found; %s in %s may provide it%s"
                                 % (name, hooks[0], parent.path, where))
        return _NotFound("missing", "module '%s' not found%s" % (name, where))

    def _absolute(self, name):
        """A module named by an absolute import inside the repository's code."""
        module = self._find_module(name)
        if module is not None:
            return module
        if self._root_of(name.split(".")[0]) is not None:
            return self._missing_module(name)
        return _Outside(name)

    def _import_target(self, module, level, name, line):
        """The module an import statement of `module` names (level: its dots), or why not."""
        key = (module.name, module.path, module.is_package, level, name, line)
        known = self._targets.get(key)
        if known is not None:
            result, events = known
            for event in events:
                if event[0] == "r":
                    self._root_of(event[1])
                else:
                    self._note(event)
            return result
        events = []
        self._recorders.append(events)
        try:
            result = self._import_target_found(module, level, name, line)
        finally:
            self._recorders.pop()
        self._targets[key] = (result, events)
        return result

    def _import_target_found(self, module, level, name, line):
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
            return self._missing_module(target, " (imported at %s:%d)" % (module.path, line))
        return found

    def _member(self, module, name, before=None):
        """What `name` is in `module` (bound before statement `before` when given)."""
        key = (module.name, name, before)
        if len(self.active) + len(self.binding) > _MAX_CHAIN:
            raise _TooDeep("'%s' is reached through a chain of more than %d modules (at %s); it is not "
                           "followed further" % (name, _MAX_CHAIN, module.path))
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
            if not isinstance(item, aaw_model.Star):
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
        case = scope.getattr_cases.get(name)
        if case is not None and before is None:
            self._ask(module, aaw_digest.HOOKS)
            level, source, attribute = case
            target = self._import_target(module, level, source, 0)
            return self._from_import(target, attribute) if isinstance(target, _Module) else target
        submodule = self._loaded_submodule(module, name)
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

    def _binding_value(self, module, scope, binding, name, before=None):
        if isinstance(binding, aaw_model.Def):
            return _Function(binding, module)
        if isinstance(binding, aaw_model.Class):
            return _ClassValue(binding, module)
        if isinstance(binding, aaw_model.FromImport):
            target = self._import_target(module, binding.level, binding.module, binding.line)
            if isinstance(target, _Module):
                return self._from_import(target, binding.name)
            if isinstance(target, _Outside):
                return _Outside(target.name + "." + binding.name)
            return target
        if isinstance(binding, aaw_model.ModuleRef):
            return self._absolute(binding.module)
        if isinstance(binding, aaw_model.Alias):
            value = self._member(module, binding.parts[0], binding.index)
            for attribute in binding.parts[1:]:
                value = self._attribute(value, attribute)
            return value
        if isinstance(binding, aaw_model.Partial):
            return self._partial(module, binding, before)
        if isinstance(binding, aaw_model.Passthrough):
            return self._passthrough(module, binding, name)
        if isinstance(binding, aaw_model.Deleted):
            return _NotFound("missing", "'%s' is deleted at %s:%d" % (name, module.path,
                                                                      binding.line))
        return _NotFound("unresolved", _opaque_detail(name, binding, module.path))

    def _passthrough(self, module, binding, name):
        """`X = f(X, ...)`: the earlier X again when every function called returns its first
        argument (attrs' own _add_repr(cls) style, functools.total_ordering, ...)."""
        for callee_parts in binding.callees:
            callee = self._member(module, callee_parts[0], binding.index)
            for attribute in callee_parts[1:]:
                callee = self._attribute(callee, attribute)
            if isinstance(callee, _Function):
                self._ask(callee.module, aaw_digest.body_of(callee.definition.name))
            keeps = (isinstance(callee, _Function) and callee.definition.returns_first_argument) or \
                (isinstance(callee, _Outside) and callee.name in _PASSTHROUGH_FUNCTIONS)
            if not keeps:
                opaque = aaw_model.Opaque("an expression", binding.line, binding.node)
                return _NotFound("unresolved", _opaque_detail(name, opaque, module.path))
        return self._member(module, name, binding.index)

    def _partial(self, module, binding, before):
        """functools.partial(f, ...) of a function the repository defines: the signature
        inspect.signature gives the partial object."""
        where = before if before is not None else binding.index
        callee = self._member(module, binding.callee[0], where)
        for attribute in binding.callee[1:]:
            callee = self._attribute(callee, attribute)
        if not (isinstance(callee, _Outside) and callee.name == "functools.partial"):
            return _NotFound("unresolved", "'%s(...)' at %s:%d is not functools.partial"
                             % (".".join(binding.callee), module.path, binding.line))
        function = self._member(module, binding.function[0], where)
        for attribute in binding.function[1:]:
            function = self._attribute(function, attribute)
        state = self._final_state(function, ".".join(binding.function))
        if state.get("status") != "ok":
            return _NotFound(state["status"], "functools.partial of %s at %s:%d: %s"
                             % (".".join(binding.function), module.path, binding.line, state.get("detail", "")))
        signature = state["signature"]
        parameters, why = aaw_signature.bind_partial(signature["parameters"], binding.positional, binding.keywords)
        if parameters is None:
            return _NotFound("unresolved", "functools.partial at %s:%d: %s" % (module.path, binding.line, why))
        return _Computed(parameters, signature["return_annotation"],
                         "functools.partial of %s (%s:%d)" % (".".join(binding.function), module.path, binding.line))

    def _from_import(self, module, name):
        # As Python does: the module's attribute, else its submodule, which the import system
        # loads for this very statement (`from pkg import sub`); a name hidden only by an import
        # cycle is the submodule (`from . import m` in a package's __init__).
        value = self._member(module, name)
        if isinstance(value, _NotFound) and (value.cycle or value.status == "missing"):
            submodule = self._submodule(module, name)
            if submodule is not None:
                return submodule
        return value

    def _submodule(self, module, name):
        if not module.is_package:
            return None
        return self._find_module(module.name + "." + name)

    def _loaded_submodule(self, module, name):
        """`module.name` as an attribute: a submodule is one only once something imports it
        (the user's statement, or a module that running it imports); else Python raises
        AttributeError. None when there is no such submodule or nothing loads it."""
        submodule = self._submodule(module, name)
        if submodule is None:
            return None
        loaded = self._loaded_modules()
        if loaded is None or submodule.name in loaded or module.name + "." + name in loaded:
            return submodule
        return None

    def _loaded_modules(self):
        """The names of the modules the user's import statement loads (it, its parents, and what
        their bodies import, transitively, within the repository); None when that cannot be told
        (too many modules, or a module imports by a computed name)."""
        if self.loaded is not None:
            return self.loaded or None
        pending = sorted(self.forced)
        seen = set()
        while pending:
            name = pending.pop()
            parts = name.split(".")
            for end in range(1, len(parts) + 1):
                prefix = ".".join(parts[:end])
                if prefix in seen:
                    continue
                seen.add(prefix)
                if len(seen) > _MAX_LOADED_MODULES:
                    self.loaded = set()
                    return None
                module = self._find_module(prefix)
                if module is None or module.blob is None:
                    continue
                self._ask(module, aaw_digest.IMPORTS)
                scope = self._summary(module)
                if scope.dynamic_imports:
                    self.loaded = set()
                    return None
                for level, imported in scope.imports:
                    target = _absolute_name(module, level, imported)
                    if target is not None and target not in seen:
                        pending.append(target)
        self.loaded = seen
        return seen

    def _exports(self, module, name):
        """Whether `from module import *` binds `name`."""
        self._ask(module, name)
        scope = self._summary(module)
        if scope.all_names is not None:
            if name in scope.all_names:
                return True
            if not scope.all_dynamic:
                return False
        if name.startswith("_"):
            return False
        if name in scope.bindings:
            return True
        # Through its own star imports (every star-imported module of a package is asked this for
        # each name looked up there: the common case, a module with none, returns early).
        key = (module.name, name)
        if key in self.binding:
            return False  # an import cycle: not on this path
        if len(self.active) + len(self.binding) > _MAX_CHAIN:
            raise _TooDeep("'%s' is looked for through a chain of more than %d star imports (at %s); it "
                           "is not followed further" % (name, _MAX_CHAIN, module.path))
        if not scope.stars:
            return False
        self.binding.add(key)
        try:
            for _, star in scope.stars:
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
        """`name` looked up on a class as Python does: its own body, then its bases in method
        resolution order (those the repository defines; one defined outside makes what it could
        hold unresolved)."""
        own = self._own_member(value, name, before)
        if own is not None or before is not None:
            return own if own is not None else _NotFound("missing", "'%s' not found in class '%s' (%s)"
                                                          % (name, value.cls.name, value.module.path))
        if name == "__init__" and _init_style(value.cls)[0] is not None:
            made = self._generated_init(value)
            if isinstance(made, _NotFound):
                return made
            if made is not None:
                self_parameter = {"name": "self", "kind": "POSITIONAL_OR_KEYWORD", "default": None, "annotation": None}
                return _Computed([self_parameter] + made, "None", "generated by @%s" % _init_style(value.cls)[0])
        if not value.cls.has_bases:
            return _NotFound("missing", "'%s' not found in class '%s' (%s)" % (name, value.cls.name, value.module.path))
        mro = self._mro(value)
        if isinstance(mro, _NotFound):
            return mro
        for base in mro[1:]:
            if isinstance(base, _Outside):
                return _NotFound("unresolved", "'%s' is not defined in class '%s' (%s) nor in its bases in the "
                                 "repository; it may be inherited from %s (outside the repository)"
                                 % (name, value.cls.name, value.module.path, base.name))
            found = self._own_member(base, name, None)
            if found is not None:
                return found
        return _NotFound("missing", "'%s' not found in class '%s' (%s) nor in its bases"
                         % (name, value.cls.name, value.module.path))

    def _own_member(self, value, name, before):
        """`name` in the class body itself, or None."""
        cls = value.cls
        self._ask(value.module, cls.name)
        for index, binding in reversed(cls.scope.bindings.get(name, ())):
            if before is not None and index >= before:
                continue
            if isinstance(binding, aaw_model.Def):
                return _Function(binding, value.module, value)
            if isinstance(binding, aaw_model.Class):
                return _ClassValue(binding, value.module)
            if isinstance(binding, aaw_model.Alias):
                # A class body sees its own earlier names first, then the module's.
                found = self._own_member(value, binding.parts[0], binding.index)
                if found is None:
                    found = self._member(value.module, binding.parts[0], cls.index)
                for attribute in binding.parts[1:]:
                    found = self._attribute(found, attribute)
                return found
            return self._binding_value(value.module, cls.scope, binding, name, cls.index)
        return None

    def _mro(self, value, seen=()):
        """The class and its bases in C3 order: _ClassValue for those the repository defines,
        _Outside for a base defined elsewhere (a leaf here); bases that add nothing (object,
        abc.ABC, typing.Generic, typing.Protocol) are left out. _NotFound when a base cannot be
        resolved or the order does not exist."""
        key = (value.module.name, value.cls.name, value.cls.index)
        if key in seen:
            return _NotFound("unresolved", "class '%s' (%s) inherits from itself" % (value.cls.name, value.module.path))
        chains = []
        direct = []
        for parts in value.cls.bases:
            base = self._base_class(value, parts)
            if isinstance(base, _NotFound):
                return base
            if base is None:
                continue
            direct.append(base)
            if isinstance(base, _Outside):
                chains.append([base])
            else:
                chain = self._mro(base, seen + (key,))
                if isinstance(chain, _NotFound):
                    return chain
                chains.append(chain)
        merged = _c3_merge(chains + [direct])
        if merged is None:
            return _NotFound("unresolved", "class '%s' (%s) has no consistent method resolution order"
                             % (value.cls.name, value.module.path))
        return [value] + merged

    def _base_class(self, value, parts):
        if parts is None:
            return _NotFound("unresolved", "a base of class '%s' (%s) is an expression we do not follow"
                             % (value.cls.name, value.module.path))
        base = self._member(value.module, parts[0], value.cls.index)
        for attribute in parts[1:]:
            base = self._attribute(base, attribute)
        if isinstance(base, _Outside):
            name = base.name.replace("builtins.", "", 1) if base.name.startswith("builtins.") else base.name
            return None if name in _EMPTY_BASES else base
        if isinstance(base, _ClassValue):
            return base
        if isinstance(base, _NotFound):
            if base.status == "missing" and parts == ["object"]:
                return None
            return _NotFound(base.status, "base '%s' of class '%s' (%s): %s"
                             % (".".join(parts), value.cls.name, value.module.path, base.detail))
        return _NotFound("unresolved", "base '%s' of class '%s' (%s) is not a class"
                         % (".".join(parts), value.cls.name, value.module.path))

    # -- the final value ----------------------------------------------------------------------

    def _final_state(self, value, path):
        if isinstance(value, _Function):
            definition = value.definition
            self.location = (value.module.path, definition.line)
            note = self._decorator_note(value)
            if value.method_of is None:
                return aaw_signature.ok(definition, drop_first=False, note=note)
            decorators = definition.decorators
            if "property" in decorators or "cached_property" in decorators or any(
                    d in ("setter", "getter", "deleter") for d in decorators):
                return aaw_signature.failed("unresolved", "'%s' is a property, not a method" % path)
            return aaw_signature.ok(definition, drop_first="classmethod" in decorators, note=note)
        if isinstance(value, _Computed):
            return aaw_signature.with_parameters(value.parameters, value.returns, value.note)
        if isinstance(value, _ClassValue):
            self.location = (value.module.path, value.cls.line)
            return self._constructor_state(value, path)
        if isinstance(value, _Module):
            return aaw_signature.failed("unresolved", "'%s' is a module, not a function" % path)
        if isinstance(value, _Outside):
            return aaw_signature.failed("unresolved", "defined outside the repository: %s" % value.name)
        return aaw_signature.failed(value.status, value.detail)

    def _decorator_note(self, value):
        """Names the decorators of the repository that replace the function without
        functools.wraps: callers then meet the replacement's signature, not the def's."""
        definition = value.definition
        module = value.module
        replacing = []
        for parts, called in definition.decorator_parts:
            if parts is None or parts[-1] in _SIGNATURE_KEEPING_DECORATORS:
                continue
            # What the decorator is matters, and what its body says, not its own parameters.
            self._identity += 1
            try:
                decorator = self._member(module, parts[0], definition.index if value.method_of is None else
                                         value.method_of.cls.index)
                for attribute in parts[1:]:
                    decorator = self._attribute(decorator, attribute)
            finally:
                self._identity -= 1
            if isinstance(decorator, _Function):
                self._ask(decorator.module, aaw_digest.body_of(decorator.definition.name))
            if isinstance(decorator, _Function) and decorator.definition.replaces_without_wraps:
                replacing.append("@%s (%s:%d)" % (".".join(parts), decorator.path, decorator.definition.line))
        if not replacing:
            return None
        return ("decorated with %s, which returns a new function without functools.wraps: callers may meet "
                "that function's signature" % ", ".join(replacing))

    def _constructor_state(self, value, path):
        # As inspect.signature(cls) (Python 3.11): a metaclass's own __call__; else the class's own
        # __new__, its own __init__, an inherited __new__, an inherited __init__; without any,
        # object's "()". Each minus its first parameter.
        generated = [d for d in value.cls.decorators if d in _GENERATING_DECORATORS]
        if value.cls.metaclass is not None and value.cls.metaclass[-1] not in _PLAIN_METACLASSES:
            return aaw_signature.failed("unresolved", "class '%s' (%s) has metaclass %s, whose __call__ may "
                                        "decide its signature" % (value.cls.name, value.module.path,
                                                                 ".".join(value.cls.metaclass)))
        for method in ("__new__", "__init__"):
            own = self._own_member(value, method, None)
            if own is not None:
                return self._method_state(own, path + "." + method)
            if method == "__init__" and generated:
                made = self._generated_init(value)
                if isinstance(made, _NotFound):
                    return aaw_signature.failed(made.status, made.detail)
                if made is not None:
                    return aaw_signature.with_parameters(made)
        if generated:
            made = self._generated_init(value)
            if made is not None:
                return aaw_signature.with_parameters(made) if isinstance(made, list) else \
                    aaw_signature.failed(made.status, made.detail)
        if not value.cls.has_bases:
            return aaw_signature.with_parameters([])
        mro = self._mro(value)
        if isinstance(mro, _NotFound):
            return aaw_signature.failed(mro.status, mro.detail)
        for method in ("__new__", "__init__"):
            for base in mro[1:]:
                if isinstance(base, _Outside):
                    return aaw_signature.failed("unresolved", "class '%s' (%s) may inherit %s from %s (outside "
                                                "the repository)" % (value.cls.name, value.module.path, method,
                                                                     base.name))
                found = self._own_member(base, method, None)
                if found is not None:
                    return self._method_state(found, path + "." + method)
        return aaw_signature.with_parameters([])

    def _generated_init(self, value):
        """The parameters (without self) of the __init__ that @dataclass or attrs write for the class,
        from the fields of its body and of its bases made the same way; None when the decorator
        writes none (init=False); _NotFound when we cannot tell."""
        style, options = _init_style(value.cls)
        if style is None or options.get("init") is False:
            return None
        fields = []
        mro = self._mro(value)
        if isinstance(mro, _NotFound):
            return mro
        for klass in reversed(mro):
            if isinstance(klass, _Outside):
                return _NotFound("unresolved", "the constructor of class '%s' (%s) is generated by @%s from fields "
                                 "that may come from %s (outside the repository)"
                                 % (value.cls.name, value.module.path, style, klass.name))
            klass_style, _ = _init_style(klass.cls)
            if klass_style is None:
                continue
            for field in _init_fields(klass.cls, klass_style):
                fields = [f for f in fields if f.name != field.name] + [field]
        kw_only = bool(options.get("kw_only"))
        parameters = []
        for field in fields:
            if not field.init:
                continue
            default = field.default
            if field.factory:
                default = "<factory>" if style == "dataclass" else "NOTHING"
            name = field.name if style == "dataclass" else field.name.lstrip("_")
            parameters.append({"name": name, "kind": "KEYWORD_ONLY" if kw_only or field.kw_only else
                               "POSITIONAL_OR_KEYWORD", "default": default, "annotation": field.annotation})
        # Keyword-only ones follow the others, as the generated code declares them.
        parameters.sort(key=lambda p: p["kind"] == "KEYWORD_ONLY")
        return parameters

    def _method_state(self, found, path):
        if isinstance(found, _Function):
            self.location = (found.module.path, found.definition.line)
            return aaw_signature.ok(found.definition, drop_first=True, note=self._decorator_note(found))
        return self._final_state(found, path)

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
        self._note(("b", path, blob))
        return blob

    def _is_directory(self, path):
        if path in self.directories:
            found = self.directories[path]
        else:
            found = bool(self._host("is_directory", path, "look up '%s'" % path))
            self.directories[path] = found
        self._note(("d", path, found))
        return found

    def _summary(self, module):
        blob = module.blob
        if blob is None:
            return aaw_model.EMPTY_SCOPE
        summary = self.summaries.get(blob)
        if summary is None:
            summary = aaw_summary.summary_of(blob, lambda _: self._read(module), self._skeleton_reader(module))
            self.summaries[blob] = summary
        if isinstance(summary, aaw_model.ParseFailure):
            where = module.path if summary.line is None else "%s:%d" % (module.path, summary.line)
            raise (_TooDeep if summary.too_deep else _SyntaxFailure)("%s: %s" % (where, summary.message))
        return summary

    def _skeleton_reader(self, module):
        """read_skeleton for aaw_summary.summary_of when the host has one, else None."""
        if getattr(self.host, "read_skeleton", None) is None:
            return None
        return lambda _: self._host("read_skeleton", module.blob,
                                    "read '%s' (blob %s)" % (module.path, module.blob))

    def _read(self, module):
        text = self._host("read_blob", module.blob, "read '%s' (blob %s)" % (module.path, module.blob))
        if not isinstance(text, str):
            raise _HostFailure("cannot read '%s': read_blob returned %s" % (module.path, type(text).__name__))
        return text

    def _ask(self, module, name):
        if module.blob is None:
            return
        if self._recorders:
            self._note(("a", module.path, name))
            return
        # The common case, inlined (_note without recorders): every function asks thousands.
        if self._identity and not name.startswith("<"):
            name = aaw_digest.identity_of(name)
        asked = self.asked.get(module.path)
        if asked is None:
            asked = self.asked[module.path] = set()
        asked.add(name)

    def _note(self, event):
        """What this function's resolution looked at: ("b", path, blob) a file probe, ("d", path,
        found) a directory probe, ("a", path, name) a name asked of a module (for its digest)."""
        kind, path, value = event
        if kind == "b":
            self.consulted.setdefault(path, value)
        elif kind == "d":
            self.consulted_dirs.setdefault(path, value)
        else:
            self.asked.setdefault(path, set()).add(value)
        for recorder in self._recorders:
            recorder.append(event)

    def _consulted_entry(self, path, blob):
        """A file probe, with the digest of what resolution read there: the bindings of the names
        it asked about (or the module's whole API surface when it asked about none)."""
        summary = self.summaries.get(blob) if blob is not None else None
        asked = self.asked.get(path)
        names = sorted(asked) if asked else []
        declared = _declared_cache.get((path, blob)) if summary is None and blob is not None else None
        if declared is not None:
            # A packaging file: resolution read only the roots it declares (release edits keep them).
            return {"path": path, "blob": blob, "digest": _roots_digest(declared), "names": [ROOTS + path]}
        if summary is None or not names:
            return {"path": path, "blob": blob, "digest": None, "names": []}
        return {"path": path, "blob": blob, "digest": aaw_digest.safe_digest(summary, names), "names": names}

    def _host(self, callback, argument, what):
        try:
            return getattr(self.host, callback)(argument)
        except RecursionError:
            raise  # our depth, not the host's failure
        except Exception as error:  # aaw_host.HostError, or anything a test host raises
            raise _HostFailure("cannot %s: %s" % (what, error)) from None


# The user's import statements parsed (_parsed_import), by their text: every resolution of a
# function starts from its statement, 10,926 times in a 501-function replay of aiter.
_IMPORTS_LIMIT = 1 << 12
_parsed_imports = {}


def _parsed_import(statement):
    """The one import node `statement` is, None when it is something else, or its SyntaxError."""
    if statement in _parsed_imports:
        return _parsed_imports[statement]
    try:
        body = ast.parse(statement).body
        node = body[0] if len(body) == 1 and isinstance(body[0], (ast.Import, ast.ImportFrom)) else None
    except SyntaxError as error:
        node = error
    if len(_parsed_imports) >= _IMPORTS_LIMIT:
        _parsed_imports.pop(next(iter(_parsed_imports)))  # the oldest
    _parsed_imports[statement] = node
    return node


# A line number in a detail: "path:12" or "line 12".
_QUOTED_LINE = re.compile(r":\d|\bline \d")


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


# Bases that add no method a caller can meet: a class deriving only from them is complete here.
_EMPTY_BASES = {"object", "abc.ABC", "typing.Generic", "typing.Protocol", "typing_extensions.Protocol"}
# Metaclasses whose __call__ is type's: the constructor is still __new__ / __init__.
_PLAIN_METACLASSES = {"type", "ABCMeta", "EnumMeta", "EnumType"}
# Class decorators that write an __init__ of their own (dataclasses, attrs).
_GENERATING_DECORATORS = {"dataclass", "s", "attrs", "define", "frozen", "mutable", "attributes"}
# Decorators known to keep the decorated function's signature (or to be handled elsewhere).
_SIGNATURE_KEEPING_DECORATORS = {"staticmethod", "classmethod", "property", "cached_property", "setter", "getter",
                                 "deleter", "wraps", "lru_cache", "cache", "overload", "abstractmethod", "final",
                                 "override", "contextmanager"}
# A bound on the modules the loaded-submodule rule walks before it gives up (and assumes loaded).
_MAX_LOADED_MODULES = 3000


def _c3_merge(sequences):
    """Python's C3 linearization of the bases' orders; None when there is none. Entries are
    compared by identity of what they stand for (module, class name, position)."""
    def key(entry):
        if isinstance(entry, _Outside):
            return ("outside", entry.name)
        return (entry.module.name, entry.cls.name, entry.cls.index)
    sequences = [list(s) for s in sequences if s]
    out = []
    while sequences:
        for sequence in sequences:
            head = key(sequence[0])
            if not any(head in [key(e) for e in other[1:]] for other in sequences):
                break
        else:
            return None
        chosen = sequence[0]
        out.append(chosen)
        sequences = [[e for e in s if key(e) != key(chosen)] for s in sequences]
        sequences = [s for s in sequences if s]
    return out


def _directory(root):
    """A source root as a path prefix: "" for the repository root, else "src/"."""
    root = root.strip().strip("/")
    return "" if root in ("", ".") else root + "/"


def _redirected(package, target):
    """The module an import hook of `package` maps to `target` (relative to the package unless
    it starts with the top-level package's name)."""
    if target.startswith("."):
        return package + target
    if target.split(".")[0] == package.split(".")[0]:
        return target
    return package + "." + target


def _absolute_name(module, level, name):
    """The absolute name of a module `module` imports (level 0: absolute)."""
    if not level:
        return name or None
    package = module.name.split(".")
    if not module.is_package:
        package.pop()
    if level - 1 >= len(package):
        return None
    base = package[:len(package) - (level - 1)]
    return ".".join(base + ([name] if name else []))


# The roots each packaging file declares, by (path, blob): a package's setup.py is asked about by
# every function that meets a module from outside the repository (torch, ...), at every commit.
_DECLARED_LIMIT = 64
_declared_cache = {}


# The pseudo-name under which a packaging file's probe carries the digest of its declared roots:
# "<roots>setup.py" (module_digests reads it back with declared_roots_digest).
ROOTS = "<roots>"


def declared_roots_digest(path, blob, read):
    """The digest of the roots the packaging file `path` at `blob` declares (read(blob): its text)."""
    declared = _declared_cache.get((path, blob))
    if declared is None:
        reader = dict(_PACKAGING_FILES).get(path)
        if reader is None:
            return None
        text = read(blob)
        declared = [_directory(root) for root in reader(text if isinstance(text, str) else "")]
        _remember_declared(path, blob, declared)
    return _roots_digest(declared)


def _roots_digest(declared):
    return "roots:" + repr(declared)


def _remember_declared(path, blob, roots):
    if len(_declared_cache) >= _DECLARED_LIMIT:
        _declared_cache.pop(next(iter(_declared_cache)))  # the oldest
    _declared_cache[(path, blob)] = roots


def _roots_in_pyproject(text):
    try:
        import tomllib
    except ImportError:  # Python < 3.11: the root and src/ are still searched
        return []
    try:
        data = tomllib.loads(text)
    except Exception:
        return []
    tool = data.get("tool", {}) if isinstance(data, dict) else {}
    roots = []
    setuptools = tool.get("setuptools", {})
    package_dir = setuptools.get("package-dir", {})
    if isinstance(package_dir, dict) and isinstance(package_dir.get(""), str):
        roots.append(package_dir[""])
    where = setuptools.get("packages", {})
    where = where.get("find", {}).get("where", []) if isinstance(where, dict) else []
    roots += [w for w in (where if isinstance(where, list) else [where]) if isinstance(w, str)]
    wheel = tool.get("hatch", {}).get("build", {}).get("targets", {}).get("wheel", {})
    for package in wheel.get("packages", []) if isinstance(wheel, dict) else []:
        if isinstance(package, str) and "/" in package:
            roots.append(package.rsplit("/", 1)[0])
    for package in tool.get("poetry", {}).get("packages", []):
        if isinstance(package, dict) and isinstance(package.get("from"), str):
            roots.append(package["from"])
    pdm = tool.get("pdm", {}).get("build", {})
    if isinstance(pdm, dict) and isinstance(pdm.get("package-dir"), str):
        roots.append(pdm["package-dir"])
    return roots


def _roots_in_setup_cfg(text):
    import configparser
    parser = configparser.ConfigParser()
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    roots = []
    if parser.has_option("options", "package_dir"):
        for line in parser.get("options", "package_dir").splitlines():
            key, _, value = line.partition("=")
            if not key.strip() and value.strip():
                roots.append(value.strip())
    if parser.has_option("options.packages.find", "where"):
        roots.append(parser.get("options.packages.find", "where").strip())
    return roots


# What a setup.py must name for _roots_in_setup_py to find a root in it.
_SETUP_PY_WORDS = ("package_dir", "find_packages", "find_namespace_packages")


def _roots_in_setup_py(text):
    if text.isascii() and not any(word in text for word in _SETUP_PY_WORDS):
        return []  # an ASCII text that names none of them (a parse of aiter's takes 3 ms, at every version)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    roots = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = aaw_nodes.dotted(node.func)
        for keyword in node.keywords:
            if keyword.arg == "package_dir" and isinstance(keyword.value, ast.Dict):
                for key, value in zip(keyword.value.keys, keyword.value.values):
                    if isinstance(key, ast.Constant) and key.value == "" and isinstance(value, ast.Constant):
                        roots.append(value.value)
            if keyword.arg == "where" and name and name[-1] in ("find_packages", "find_namespace_packages") \
                    and isinstance(keyword.value, ast.Constant):
                roots.append(keyword.value.value)
        if name and name[-1] in ("find_packages", "find_namespace_packages") and node.args and \
                isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            roots.append(node.args[0].value)
    return [r for r in roots if isinstance(r, str)]


# Functions known to return the class they are given (X = f(X)).
_PASSTHROUGH_FUNCTIONS = {"functools.total_ordering", "typing.final", "typing.runtime_checkable", "enum.unique",
                          "typing_extensions.final", "typing_extensions.runtime_checkable"}


def _init_style(cls):
    """("dataclass" | "attrs" | "define", the decorator's literal options) when a decorator of the
    class writes its __init__; (None, {}) otherwise."""
    for name in cls.decorators:
        if name == "dataclass":
            return "dataclass", cls.decorator_options.get(name, {})
        if name in ("s", "attrs", "attributes"):
            return "attrs", cls.decorator_options.get(name, {})
        if name in ("define", "frozen", "mutable"):
            return "define", cls.decorator_options.get(name, {})
    return None, {}


def _init_fields(cls, style):
    """The fields of a class body that its generated __init__ takes, in order."""
    annotated = [f for f in cls.fields if f.annotation is not None and not f.class_var and f.made_by in (None, "field",
                                                                                                         "ib", "attrib")]
    attributes = [f for f in cls.fields if f.made_by in ("ib", "attrib", "attr", "field")]
    if style == "dataclass":
        return annotated
    options = cls.decorator_options.get(next(d for d in cls.decorators if d in ("s", "attrs", "attributes", "define",
                                                                                 "frozen", "mutable")), {})
    auto = options.get("auto_attribs")
    if auto is None:
        auto = style == "define" and (not attributes or all(f.annotation is not None for f in attributes))
    return annotated if auto else attributes


_PACKAGING_FILES = (("pyproject.toml", _roots_in_pyproject), ("setup.cfg", _roots_in_setup_cfg),
                    ("setup.py", _roots_in_setup_py))
