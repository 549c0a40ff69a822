"""Resolution: from an import statement and a function path to the definition Python would reach.

Follows the static resolution rules (docs/design.md) over module summaries (aaw_model.py), reading
the commit's tree through a host: find_blob(path) -> blob id or None, is_directory(path) -> bool,
read_blob(blob_id) -> text. One Session serves one resolve_all call: its Tree caches the host's
answers for the call and records every path a function's resolution looked at (what it
consulted), so the caller can reuse the state while none of them changes; its ModuleFinder finds
modules; class lookups follow aaw_classes.ClassRules.
Pure standard library, Python 3.9+.
"""

import ast
import builtins
import re
import sys

import aaw_bindings
import aaw_digest
import aaw_lru
import aaw_model
import aaw_signature
import aaw_summary
from aaw_classes import ClassRules
from aaw_decorators import DecoratorRules
from aaw_finder import ModuleFinder, absolute_name
from aaw_tree import Tree
from aaw_values import (ClassValue, Computed, Container, Function, HostFailure, Instance, Module, NotFound,
                        Outside, SyntaxFailure, TooDeep)


class Session(ClassRules, DecoratorRules):
    """One resolve_all call: the host's answers are cached for the call (self.tree), parsed modules
    for longer (aaw_summary's cache); the paths each function looked at are in self.tree.consulted."""

    def __init__(self, host, source_roots=None, module_aliases=None):
        self.tree = Tree(host)
        self.finder = ModuleFinder(self.tree, source_roots, module_aliases)
        # What each import statement met so far imports, and what finding it looked at (Tree.note
        # events; ("r", top) for a source root it needed): the next function that meets the same
        # statement takes the answer and notes the same probes, without looking again.
        self._targets = {}
        self.start_function()

    def start_function(self):
        """What one function's resolution tracks; the caches above are shared by all."""
        self.tree.start_function()
        self.finder.start_function()
        self.location = None  # (path, line) of the def (or class) the function resolved to
        self.forced = set()
        self.active = set()
        self.binding = set()
        self.loaded = None    # module names importing the user's statement loads, when computed

    def resolve_function(self, function, consulted=True):
        """{"state": STATE, "consulted": what the resolution looked at, with digests}; without
        `consulted` (a lookup, which wants only the state) {"state": STATE}."""
        self.start_function()
        try:
            state = self._state(function)
        except SyntaxFailure as failure:
            state = aaw_signature.failed("syntax_error", str(failure))
        except HostFailure as failure:
            state = aaw_signature.failed("extract_failed", str(failure))
        except TooDeep as failure:
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
        self.tree.ask_positions_quoted_by((state.get("detail") or "") + " " + (state.get("unverified") or ""))
        return {"state": state, "consulted": self.tree.consulted_entries()}

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
        old = self.tree.summaries.get(before) or aaw_summary.cached(before)
        if old is None:
            return [None] * len(asks)
        try:
            module = self.finder.module_at_path(path, after)
            if module is None:
                return [None] * len(asks)
            new = self.tree.summary(module)
        except (SyntaxFailure, HostFailure, TooDeep, RecursionError):
            return [None] * len(asks)
        delta = aaw_digest.StarDelta(old, new)
        return [self._unchanged_by_stars(module, delta.added_stars(names), names) for names in asks]

    def _unchanged_by_stars(self, module, added, names):
        if not added:
            return None
        self.start_function()
        self.tree.note(("b", module.path, module.blob))
        try:
            for name in names:
                self.tree.ask(module, name)
            identifiers = [name for name in names if not name.startswith("<")]
            for star in added:
                target = self.import_target(module, star.level, star.module, star.line)
                if isinstance(target, Outside):
                    return None  # the name might come from it: only a resolution can say
                if isinstance(target, Module) and any(self._exports(target, name) for name in identifiers):
                    return None
        except (SyntaxFailure, HostFailure, TooDeep, RecursionError):
            return None
        return self.tree.consulted_entries()

    def _state(self, function):
        statement = function.get("import_statement") if isinstance(function, dict) else None
        path = function.get("function_path") if isinstance(function, dict) else None
        if not isinstance(statement, str) or not isinstance(path, str):
            return aaw_signature.failed("unresolved", "an entry needs 'import_statement' and 'function_path'")
        parts = path.split(".")
        if not all(part.isidentifier() for part in parts):
            return aaw_signature.failed("unresolved", "'%s' is not a dotted name" % path)
        value = self.import_head(statement.strip(), parts[0])
        for attribute in parts[1:]:
            value = self.attribute(value, attribute)
        return self._final_state(value, path)

    def import_head(self, statement, head):
        node = parsed_import(statement)
        if isinstance(node, SyntaxError):
            return NotFound("unresolved", "cannot parse import statement '%s': %s"
                            % (statement, node.msg))
        if node is None:
            return NotFound("unresolved", "'%s' is not a single import statement" % statement)
        # What running the statement loads: the modules it names (and their parents).
        if isinstance(node, ast.Import):
            self.forced.update(alias.name for alias in node.names)
        elif node.module and not node.level:
            self.forced.add(node.module)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname == head:
                    return self.finder.user_module(alias.name)
                if alias.asname is None and alias.name.split(".")[0] == head:
                    # `import a.b.c` binds a, and loads a.b and a.b.c as its attributes.
                    parts = alias.name.split(".")
                    for end in range(2, len(parts) + 1):
                        self.forced.add(".".join(parts[:end]))
                    loaded = self.finder.user_module(alias.name)
                    if not isinstance(loaded, Module):
                        return loaded
                    return self.finder.user_module(head)
        else:
            if node.level:
                return NotFound("unresolved", "relative import '%s' has no package to resolve "
                                "against" % statement)
            for alias in node.names:
                if alias.name == "*" or (alias.asname or alias.name) == head:
                    module = self.finder.user_module(node.module)
                    if not isinstance(module, Module):
                        return module
                    if alias.name != "*":
                        return self._from_import(module, alias.name)
                    if self._exports(module, head):
                        return self.member(module, head)
                    return NotFound("missing", "'%s' is not exported by module '%s'"
                                    % (head, module.name))
        return NotFound("unresolved", "'%s' is not bound by '%s'" % (head, statement))

    def import_target(self, module, level, name, line):
        """The module an import statement of `module` names (level: its dots), or why not."""
        key = (module.name, module.path, module.is_package, level, name, line)
        known = self._targets.get(key)
        if known is not None:
            result, events = known
            for event in events:
                if event[0] == "r":
                    self.finder.root_of(event[1])
                else:
                    self.tree.note(event)
            return result
        events = []
        self.tree.recorders.append(events)
        try:
            result = self._import_target_found(module, level, name, line)
        finally:
            self.tree.recorders.pop()
        self._targets[key] = (result, events)
        return result

    def _import_target_found(self, module, level, name, line):
        if level == 0:
            return self.finder.absolute(name)
        package = module.name.split(".")
        if not module.is_package:
            package.pop()
        if level - 1 >= len(package):
            return NotFound("unresolved", "%s:%d: relative import beyond the top-level package"
                            % (module.path, line))
        base = package[:len(package) - (level - 1)]
        target = ".".join(base + ([name] if name else []))
        found = self.finder.find_module(target)
        if found is None:
            return self.finder.missing_module(target, " (imported at %s:%d)" % (module.path, line))
        return found

    def member(self, module, name, before=None, importing=False):
        """What `name` is in `module` (bound before statement `before` when given); `importing`:
        for `from module import name`, which loads the submodule `name` itself when no attribute
        is there."""
        key = (module.name, name, before)
        if len(self.active) + len(self.binding) > _MAX_CHAIN:
            raise TooDeep("'%s' is reached through a chain of more than %d modules (at %s); it is not "
                          "followed further" % (name, _MAX_CHAIN, module.path))
        if key in self.active:
            return NotFound("missing", "'%s' not found in module '%s' (import cycle)"
                            % (name, module.name), cycle=True)
        self.active.add(key)
        try:
            return self._member_uncut(module, name, before, importing)
        finally:
            self.active.discard(key)

    def _member_uncut(self, module, name, before, importing=False):
        self.tree.ask(module, name)
        scope = self.tree.summary(module)
        outside_stars = []
        cycle = False
        for index, item in _candidates(scope, name, before):
            if not isinstance(item, aaw_model.Star):
                return self._binding_value(module, scope, item, name)
            target = self.import_target(module, item.level, item.module, item.line)
            if isinstance(target, Outside):
                outside_stars.append(target.name)
            elif isinstance(target, Module) and self._exports(target, name):
                value = self.member(target, name)
                if not (isinstance(value, NotFound) and value.cycle):
                    return value
                # The target is still being imported and has not bound the name yet: this star
                # import binds nothing, and an earlier binding stands.
                cycle = True
        case = scope.getattr_cases.get(name)
        if case is not None and before is None:
            self.tree.ask(module, aaw_digest.HOOKS)
            level, source, attribute = case
            target = self.import_target(module, level, source, 0)
            return self._from_import(target, attribute) if isinstance(target, Module) else target
        if importing and before is None and not outside_stars and not scope.dynamic:
            # Whether anything else loads the submodule cannot change the answer, so the modules
            # the statement loads are not walked: a function found that way would otherwise be
            # resolved again whenever any module of the package changed its imports.
            submodule = self._submodule(module, name)
        else:
            submodule = self._loaded_submodule(module, name)
        if submodule is not None:
            return submodule
        if before is not None and hasattr(builtins, name):
            return Outside("builtins." + name)
        if outside_stars:
            return NotFound("unresolved", "'%s' is not defined in module '%s'; it may come from "
                            "'from %s import *' (outside the repository)"
                            % (name, module.name, outside_stars[0]))
        if scope.getattr_closed is not None and len(scope.dynamic) == 1 and not outside_stars:
            self.tree.ask(module, aaw_digest.HOOKS)
            line, answered = scope.getattr_closed
            if name not in answered:
                return NotFound("missing", "'%s' not found in module '%s' (its __getattr__ at line %d raises "
                                "AttributeError for every name but %s)" % (name, module.name, line,
                                                                          ", ".join(answered) or "none"))
        if scope.dynamic:
            return NotFound("unresolved", "'%s' is not defined statically in module '%s'; %s "
                            "in %s may define it" % (name, module.name, scope.dynamic[0],
                                                     module.path))
        if cycle:
            return NotFound("missing", "'%s' not found in module '%s' (import cycle)"
                            % (name, module.name), cycle=True)
        writer = self._frame_writer(module, scope) if before is None else None
        if writer is None and before is None:
            writer = self._star_frame_writer(module, scope, name, set())
        if writer is not None:
            return NotFound("unresolved", "'%s' is not defined statically in module '%s'; the decorator %s "
                            "writes into its caller's namespace and may define it" % (name, module.name, writer))
        return NotFound("missing", "'%s' not found in module '%s'" % (name, module.name))

    def _binding_value(self, module, scope, binding, name, before=None):
        if isinstance(binding, aaw_model.Def):
            return Function(binding, module)
        if isinstance(binding, aaw_model.Class):
            return ClassValue(binding, module)
        if isinstance(binding, aaw_model.FromImport):
            target = self.import_target(module, binding.level, binding.module, binding.line)
            if isinstance(target, Module):
                return self._from_import(target, binding.name)
            if isinstance(target, Outside):
                return Outside(target.name + "." + binding.name)
            return target
        if isinstance(binding, aaw_model.ModuleRef):
            return self.finder.absolute(binding.module)
        if isinstance(binding, aaw_model.Alias):
            value = self.member(module, binding.parts[0], binding.index)
            for attribute in binding.parts[1:]:
                value = self.attribute(value, attribute)
            return value
        if isinstance(binding, aaw_model.Partial):
            return self._partial(module, binding, before)
        if isinstance(binding, aaw_model.Passthrough):
            return self._passthrough(module, binding, name)
        if isinstance(binding, aaw_model.CallAlias):
            return self._call_alias(module, binding, name)
        if isinstance(binding, aaw_model.Deleted):
            return NotFound("missing", "'%s' is deleted at %s:%d" % (name, module.path,
                                                                     binding.line))
        if isinstance(binding, aaw_model.Opaque) and binding.made is not None:
            return Container(binding.made, _opaque_detail(name, binding, module.path), _expression_of(binding))
        return NotFound("unresolved", _opaque_detail(name, binding, module.path), expression=_expression_of(binding))

    def _passthrough(self, module, binding, name):
        """`X = f(X, ...)`: the earlier X again when every function called returns its first
        argument (attrs' own _add_repr(cls) style, functools.total_ordering, ...)."""
        for callee_parts in binding.callees:
            callee = self.member(module, callee_parts[0], binding.index)
            for attribute in callee_parts[1:]:
                callee = self.attribute(callee, attribute)
            if isinstance(callee, Function):
                self.tree.ask(callee.module, aaw_digest.body_of(callee.definition.name))
            keeps = (isinstance(callee, Function) and callee.definition.returns_first_argument) or \
                (isinstance(callee, Outside) and callee.name in _PASSTHROUGH_FUNCTIONS)
            if not keeps:
                return self._unverified_passthrough(module, binding, name, callee_parts)
        return self.member(module, name, binding.index)

    def _unverified_passthrough(self, module, binding, name, callee_parts):
        """`X = f(X)` through a callee that does not return its argument (a currying class, a
        registry's wrapper): the earlier X's signature, unverified."""
        opaque = aaw_model.Opaque("an expression", binding.line, binding.node)
        earlier = self.member(module, name, binding.index)
        if not isinstance(earlier, (Function, ClassValue)):
            return NotFound("unresolved", _opaque_detail(name, opaque, module.path))
        state = self._final_state(earlier, name)
        if state.get("status") != "ok":
            return NotFound("unresolved", _opaque_detail(name, opaque, module.path))
        why = ("'%s' is remade by calling %s(...) at %s:%d, which the resolver cannot follow; this is the "
               "signature it was given" % (name, ".".join(callee_parts), module.path, binding.line))
        return Computed.from_state(state, state.get("detail"), state.get("unverified") or why)

    def _call_alias(self, module, binding, name, lookup=None):
        """`name = f(args)`: the argument f gives back (aaw_decorators), or unresolved."""
        value = self._called_alias(module, binding, name, lookup)
        if isinstance(value, NotFound):
            return value
        if value is None:
            opaque = aaw_model.Opaque("an expression", binding.line, binding.node)
            return NotFound("unresolved", _opaque_detail(name, opaque, module.path), expression=_expression_of(opaque))
        return value

    def _partial(self, module, binding, before):
        """functools.partial(f, ...) of a function the repository defines: the signature
        inspect.signature gives the partial object."""
        where = before if before is not None else binding.index
        callee = self.member(module, binding.callee[0], where)
        for attribute in binding.callee[1:]:
            callee = self.attribute(callee, attribute)
        if not (isinstance(callee, Outside) and callee.name == "functools.partial"):
            return NotFound("unresolved", "'%s(...)' at %s:%d is not functools.partial"
                            % (".".join(binding.callee), module.path, binding.line))
        function = self.member(module, binding.function[0], where)
        for attribute in binding.function[1:]:
            function = self.attribute(function, attribute)
        state = self._final_state(function, ".".join(binding.function))
        if state.get("status") != "ok":
            return NotFound(state["status"], "functools.partial of %s at %s:%d: %s"
                            % (".".join(binding.function), module.path, binding.line, state.get("detail", "")))
        signature = state["signature"]
        parameters, why = aaw_signature.bind_partial(signature["parameters"], binding.positional, binding.keywords)
        if parameters is None:
            return NotFound("unresolved", "functools.partial at %s:%d: %s" % (module.path, binding.line, why))
        return Computed(parameters, signature["return_annotation"],
                        "functools.partial of %s (%s:%d)" % (".".join(binding.function), module.path, binding.line))

    def _from_import(self, module, name):
        # As Python does: the module's attribute, else its submodule, which the import system
        # loads for this very statement (`from pkg import sub`); a name hidden only by an import
        # cycle is the submodule (`from . import m` in a package's __init__).
        value = self.member(module, name, importing=True)
        if isinstance(value, NotFound) and (value.cycle or value.status == "missing"):
            submodule = self._submodule(module, name)
            if submodule is not None:
                return submodule
        return value

    def _submodule(self, module, name):
        if not module.is_package:
            return None
        return self.finder.find_module(module.name + "." + name)

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

    def modules_loaded_by(self, names):
        """The modules importing each of `names` loads (as _loaded_modules); None when that cannot
        be told. Starts a function of its own."""
        self.start_function()
        self.forced = set(names)
        return self._loaded_modules()

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
                module = self.finder.find_module(prefix)
                if module is None or module.blob is None:
                    continue
                self.tree.ask(module, aaw_digest.IMPORTS)
                scope = self.tree.summary(module)
                if scope.dynamic_imports:
                    self.loaded = set()
                    return None
                for level, imported in scope.imports:
                    target = absolute_name(module, level, imported)
                    if target is not None and target not in seen:
                        pending.append(target)
        self.loaded = seen
        return seen

    def _star_frame_writer(self, module, scope, name, seen):
        """_frame_writer of a module `module` star-imports (through its own star imports too) whose
        star import may bind `name`: what such a decorator writes is exported like the rest
        (pyparsing's `from .helpers import *` of a helpers.py whose decorators define countedArray).
        Asked only of a name found nowhere else."""
        for _, star in scope.stars:
            target = self.import_target(module, star.level, star.module, star.line)
            if not isinstance(target, Module) or target.name in seen:
                continue
            seen.add(target.name)
            self.tree.ask(target, name)
            own = self.tree.summary(target)
            if not _star_may_bind(own, name):
                continue
            writer = self._frame_writer(target, own) or self._star_frame_writer(target, own, name, seen)
            if writer is not None:
                return writer
        return None

    def _exports(self, module, name):
        """Whether `from module import *` binds `name`."""
        self.tree.ask(module, name)
        scope = self.tree.summary(module)
        if scope.all_names is not None and name in scope.all_names:
            return True
        if not _star_may_bind(scope, name):
            return False
        if name in scope.bindings:
            return True
        # Through its own star imports (every star-imported module of a package is asked this for
        # each name looked up there: the common case, a module with none, returns early).
        key = (module.name, name)
        if key in self.binding:
            return False  # an import cycle: not on this path
        if len(self.active) + len(self.binding) > _MAX_CHAIN:
            raise TooDeep("'%s' is looked for through a chain of more than %d star imports (at %s); it "
                          "is not followed further" % (name, _MAX_CHAIN, module.path))
        if not scope.stars:
            return False
        self.binding.add(key)
        try:
            for _, star in scope.stars:
                target = self.import_target(module, star.level, star.module, star.line)
                if isinstance(target, Module) and self._exports(target, name):
                    return True
            return False
        finally:
            self.binding.discard(key)

    def attribute(self, value, name):
        if isinstance(value, Module):
            qualified = value.name + "." + name
            if qualified in self.forced:
                return self.finder.user_module(qualified)
            return self.member(value, name)
        if isinstance(value, ClassValue):
            return self._class_member(value, name)
        if isinstance(value, Instance):
            return self._instance_attribute(value, name)
        if isinstance(value, Container):
            return _container_method(value, name)
        if isinstance(value, Outside):
            return Outside(value.name + "." + name)
        if isinstance(value, Function):
            return NotFound("unresolved", "'%s' is an attribute of function '%s' (%s)"
                            % (name, value.definition.name, value.path))
        return value

    def _final_state(self, value, path):
        if isinstance(value, Function):
            definition = value.definition
            self.location = (value.module.path, definition.line)
            if value.method_of is None:
                return self._with_binding(self._decorated(value, drop_first=False), value)
            decorators = definition.decorators
            if "property" in decorators or "cached_property" in decorators or any(
                    d in ("setter", "getter", "deleter") for d in decorators):
                return aaw_signature.failed("unresolved", "'%s' is a property, not a method" % path)
            if value.bound:  # instance.method: bound to the instance (or to its class: classmethod)
                return self._decorated(value, drop_first="staticmethod" not in decorators)
            return self._decorated(value, drop_first="classmethod" in decorators)
        if isinstance(value, Computed):
            state = aaw_signature.with_parameters(value.parameters, value.returns, value.note)
            if value.unverified:
                state["unverified"] = value.unverified
            return state
        if isinstance(value, ClassValue):
            self.location = (value.module.path, value.cls.line)
            return self._constructor_state(value, path)
        if isinstance(value, Instance):
            return self._final_state(self._instance_call(value.of, value.made_at), path)
        if isinstance(value, Container):
            return aaw_signature.failed("unresolved", "%s (a %s, not a function)" % (value.detail, value.kind))
        if isinstance(value, Module):
            return aaw_signature.failed("unresolved", "'%s' %s" % (path, MODULE_NOT_FUNCTION))
        if isinstance(value, Outside):
            return aaw_signature.failed("unresolved", "defined outside the repository: %s" % value.name)
        return aaw_signature.failed(value.status, value.detail)

    def _with_default_referents(self, state, value):
        """Each default spelled as a name (`clock=default_clock`, `max=_utils.MAX_WAIT`) gets what
        it refers to, so that defaults are compared by it (Parameter::default_refers_to)."""
        if state.get("status") != "ok":
            return state
        # Defaults are evaluated where the def is: a method's class body first, then the module.
        if value.method_of is not None:
            lookup = self._class_body_lookup(value.method_of, value.definition.index)
        else:
            def lookup(bare):
                return self.member(value.module, bare, value.definition.index)
        for parameter in state["signature"]["parameters"]:
            text = parameter.get("default")
            if not text or text in _CONSTANT_NAMES or not _DOTTED.match(text):
                continue
            referent = self._referent(lookup, text.split("."))
            if referent is not None:
                parameter["default_refers_to"] = referent
        return state

    def _referent(self, lookup, parts):
        """What the dotted name `parts` refers to (its first part found by `lookup`): a qualified
        name, "= <expression>" for a name bound to a value, or None."""
        found = lookup(parts[0])
        for attribute in parts[1:]:
            if isinstance(found, NotFound):
                return None
            found = self.attribute(found, attribute)
        if isinstance(found, Outside):
            return found.name
        if isinstance(found, Module):
            return found.name
        if isinstance(found, Function):
            return "%s.%s" % (found.module.name, found.definition.name)
        if isinstance(found, ClassValue):
            return "%s.%s" % (found.module.name, found.cls.name)
        if isinstance(found, (NotFound, Container)) and found.expression is not None:
            return "= " + found.expression
        return None

    def _with_binding(self, state, value):
        """A compile_ops stub's state carries the compiled binding its calls reach (aaw_bindings)."""
        binding = aaw_bindings.binding_of(self, value, self._decorator_value)
        if binding is not None and state.get("status") == "ok":
            state["binding"] = binding
        return state

    def _decorator_value(self, value, parts):
        """What the decorator `parts` (dotted) of Function `value` is bound to, by identity only."""
        self.tree.identity += 1
        try:
            decorator = self.member(value.module, parts[0], value.read_before)
            for attribute in parts[1:]:
                decorator = self.attribute(decorator, attribute)
        finally:
            self.tree.identity -= 1
        return decorator

# Modules one resolution may pass through at once (star imports, re-exports, aliases): real
# packages need a handful; this stays well inside Python's recursion limit, so a longer chain is
# reported as such instead of failing the whole call.
_MAX_CHAIN = 100

def _star_may_bind(scope, name):
    """Whether `from M import *` may bind `name`, by what M's summary `scope` says of its __all__
    (the names it lists; or none readable, then every public name)."""
    if scope.all_names is not None and name in scope.all_names:
        return True
    if scope.all_names is not None and not scope.all_dynamic:
        return False
    return not name.startswith("_")


# What a monitored path that names a module is (aaw_lookup tells the config it names no function).
MODULE_NOT_FUNCTION = "is a module, not a function"


# Defaults that are constants, never names to follow.
_CONSTANT_NAMES = {"None", "True", "False", "...", "NotImplemented"}
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")


# A bound on the modules the loaded-submodule rule walks before it gives up (and assumes loaded).
_MAX_LOADED_MODULES = 3000


# Functions known to return the class they are given (X = f(X)).
_PASSTHROUGH_FUNCTIONS = {"functools.total_ordering", "typing.final", "typing.runtime_checkable", "enum.unique",
                          "typing_extensions.final", "typing_extensions.runtime_checkable"}


_PARSED_IMPORTS = aaw_lru.Lru(1 << 12)  # the users' import statements, parsed, by their text


def parsed_import(statement):
    """The one import node `statement` is, None when it is something else, or its SyntaxError."""
    return _PARSED_IMPORTS.remember(statement, _parse_import)


def _parse_import(statement):
    try:
        body = ast.parse(statement).body
    except SyntaxError as error:
        return error
    return body[0] if len(body) == 1 and isinstance(body[0], (ast.Import, ast.ImportFrom)) else None


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


def _container_method(container, name):
    """`name` of a built-in dict, list or set: its method bound to it, with the signature this
    interpreter's built-in type gives it (`d_dtypes.get`: `(key, default=None, /)`)."""
    method = getattr(_BUILT_IN_CONTAINERS[container.kind](), name, None)
    if method is None:
        return NotFound("missing", "%s: a %s, which has no attribute '%s'"
                        % (container.detail, container.kind, name))
    note = "the built-in %s.%s of %s" % (container.kind, name, container.detail)
    state = aaw_signature.of_live(method, note)
    if state["status"] != "ok":
        return NotFound(state["status"], state["detail"])
    return Computed.from_state(state, note, None)


_BUILT_IN_CONTAINERS = {"dict": dict, "list": list, "set": set}


def _expression_of(binding):
    node = binding.node
    if node is None:
        return None
    return node if isinstance(node, str) else ast.unparse(node)


def _opaque_detail(name, binding, path):
    detail = "'%s' is bound to %s at %s:%d" % (name, binding.what, path, binding.line)
    if binding.node is not None:
        text = binding.node if isinstance(binding.node, str) else ast.unparse(binding.node)
        detail += ": " + (text if len(text) <= 80 else text[:77] + "...")
    return detail
