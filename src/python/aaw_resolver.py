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
import sys
from typing import Dict, List

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
    __slots__ = ("definition", "path", "method_of")

    def __init__(self, definition, path, method_of=None):
        self.definition = definition
        self.path = path
        self.method_of = method_of  # the _ClassValue when reached as aaw_summary.Class.method


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

    def __init__(self, host):
        self.host = host
        self.blobs = {}        # path -> blob id or None
        self.directories = {}  # path -> bool
        self.summaries = {}    # blob id -> aaw_summary.Scope or aaw_summary.ParseFailure, for this call
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
            if not isinstance(item, aaw_summary.Star):
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
        if isinstance(binding, aaw_summary.Def):
            return _Function(binding, module.path)
        if isinstance(binding, aaw_summary.Class):
            return _ClassValue(binding, module)
        if isinstance(binding, aaw_summary.FromImport):
            target = self._import_target(module, binding.level, binding.module, binding.line)
            if isinstance(target, _Module):
                return self._from_import(target, binding.name)
            if isinstance(target, _Outside):
                return _Outside(target.name + "." + binding.name)
            return target
        if isinstance(binding, aaw_summary.ModuleRef):
            return self._absolute(binding.module)
        if isinstance(binding, aaw_summary.Alias):
            value = self._member(module, binding.parts[0], binding.index)
            for attribute in binding.parts[1:]:
                value = self._attribute(value, attribute)
            return value
        if isinstance(binding, aaw_summary.Deleted):
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
        if len(self.active) + len(self.binding) > _MAX_CHAIN:
            raise _TooDeep("'%s' is looked for through a chain of more than %d star imports (at %s); it "
                           "is not followed further" % (name, _MAX_CHAIN, module.path))
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
            if isinstance(binding, aaw_summary.Def):
                return _Function(binding, value.module.path, value)
            if isinstance(binding, aaw_summary.Class):
                return _ClassValue(binding, value.module)
            if isinstance(binding, aaw_summary.Alias):
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
                return aaw_signature.ok(definition, drop_first=False)
            decorators = definition.decorators
            if "property" in decorators or "cached_property" in decorators or any(
                    d in ("setter", "getter", "deleter") for d in decorators):
                return aaw_signature.failed("unresolved", "'%s' is a property, not a method" % path)
            return aaw_signature.ok(definition, drop_first="classmethod" in decorators)
        if isinstance(value, _ClassValue):
            return self._constructor_state(value, path)
        if isinstance(value, _Module):
            return aaw_signature.failed("unresolved", "'%s' is a module, not a function" % path)
        if isinstance(value, _Outside):
            return aaw_signature.failed("unresolved", "defined outside the repository: %s" % value.name)
        return aaw_signature.failed(value.status, value.detail)

    def _constructor_state(self, value, path):
        # As inspect.signature(cls): the class's own __new__, else its own __init__, minus the
        # first parameter.
        for method in ("__new__", "__init__"):
            if method in value.cls.scope.bindings:
                found = self._class_member(value, method)
                if isinstance(found, _Function):
                    return aaw_signature.ok(found.definition, drop_first=True)
                return self._final_state(found, path + "." + method)
        return aaw_signature.failed("unresolved", "class '%s' (%s) defines no __init__ in its body"
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
            return aaw_summary.EMPTY_SCOPE
        summary = self.summaries.get(blob)
        if summary is None:
            summary = aaw_summary.summary_of(blob, lambda _: self._read(module))
            self.summaries[blob] = summary
        if isinstance(summary, aaw_summary.ParseFailure):
            where = module.path if summary.line is None else "%s:%d" % (module.path, summary.line)
            raise (_TooDeep if summary.too_deep else _SyntaxFailure)("%s: %s" % (where, summary.message))
        return summary

    def _read(self, module):
        text = self._host("read_blob", module.blob, "read '%s' (blob %s)" % (module.path, module.blob))
        if not isinstance(text, str):
            raise _HostFailure("cannot read '%s': read_blob returned %s" % (module.path, type(text).__name__))
        return text

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
        return {"path": path, "blob": blob, "digest": aaw_summary.safe_digest(summary, names), "names": names}

    def _host(self, callback, argument, what):
        try:
            return getattr(self.host, callback)(argument)
        except RecursionError:
            raise  # our depth, not the host's failure
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
