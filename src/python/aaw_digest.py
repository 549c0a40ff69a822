"""Digests: what resolving some names reads of a module (aaw_model.Scope), so that a caller can
tell whether an edit can change a resolution at all without resolving again.

digest() covers the bindings of the names asked, the star imports in textual order, __all__ and
the dynamic definitions, not positions: edits elsewhere in the module (bodies, comments, other
functions) keep it. outline() answers most sets of names at once, and StarDelta tells whether an
edit only added star imports. Nothing a digest says depends on the process it is computed in (the
process that parses ahead computes them too).
Pure standard library, Python 3.9+.
"""

import ast
import hashlib
from typing import Any, Dict, List, Optional, Union

import aaw_lru
from aaw_model import (Alias, CallAlias, Class, Def, Deleted, FromImport, ModuleRef, Opaque, ParseFailure,
                       Partial, Passthrough, Scope, Star)


# Pseudo-names for digest(): not identifiers, so no binding can be called so.
IMPORTS = "<imports>"
HOOKS = "<hooks>"
# Asks for the positions too (the line of each binding and star import, what may define names
# dynamically, as the details of a state that is not ok quote them).
POSITIONS = "<positions>"
_BODY = "<body>"
_IDENTITY = "<identity>"
_UNBOUND = "<unbound>"  # the key in Scope.digests of the digest of names the module does not bind


def body_of(name: str) -> str:
    """The pseudo-name under which what a def's body says (whether it returns its first argument,
    what as a decorator it does to what it is given: aaw_nodes.decorator_effect), with the header
    its parameter names are matched against, enters a digest: only
    resolutions that use it depend on it, so other body edits still keep the digest."""
    return _BODY + name


def identity_of(name: str) -> str:
    """The pseudo-name under which a name enters a digest when only what it is bound to matters,
    not a def's parameters: what a decorator is (the def, its decorators; what its body says is
    asked as body_of), so that an edit of a decorator's own parameters keeps the digest of every
    function it decorates. Any other binding reads as under the name itself."""
    return _IDENTITY + name


def _bare(name: str) -> str:
    """The name an identity pseudo-name stands for; any other name itself."""
    return name[len(_IDENTITY):] if name.startswith(_IDENTITY) else name


def digest(summary: "Union[Scope, ParseFailure]", names: List[str]) -> Optional[str]:
    """What resolving `names` in a module reads of it: their bindings and the star imports in
    textual order, __all__, and whether names may be defined dynamically; the whole API surface
    None when no names were asked (the caller then compares blobs). Positions are left out, so
    edits elsewhere in the module (bodies, comments, other functions) keep the digest.
    Two pseudo-names ask for more: IMPORTS (every module the body imports) and HOOKS (the import
    hooks: their maps of module names and their simple __getattr__ cases)."""
    if isinstance(summary, ParseFailure):
        return summary.digest
    if not names:
        return None
    if len(names) == 1 and names[0][:1] != "<" and names[0] not in summary.bindings:
        return _unbound_digest(summary)  # the common case, first: one name the module does not bind
    wanted = frozenset(names)
    known = summary.digests.get(wanted)
    if known is None:
        if all(not _bare(name).startswith("<") and _bare(name) not in summary.bindings for name in wanted):
            # Names the module does not bind (most of what star imports are asked) read the same of
            # it whichever they are, and whether only their identity is asked: one digest, kept once.
            return _unbound_digest(summary)
        known = summary.digests[wanted] = _digest(summary, wanted)
    return known


def outline(summary: "Union[Scope, ParseFailure]") -> Dict[str, Any]:
    """What digest() gives most sets of names without computing each: {"any": the digest of every
    set} for a module that does not parse; else {"unbound": the digest of every non-empty set
    whose names the module does not bind (as themselves or as identity_of them) and none of which
    starts with "<" otherwise, "bound": the names it binds}. A set outside both cases must be
    asked of digest()."""
    if isinstance(summary, ParseFailure):
        return {"any": summary.digest}
    return {"unbound": _unbound_digest(summary), "bound": sorted(summary.bindings)}


def _unbound_digest(summary: "Scope") -> str:
    known = summary.digests.get(_UNBOUND)
    if known is None:
        known = summary.digests[_UNBOUND] = _digest(summary, frozenset())
    return known


def _digest(summary: "Scope", wanted: "frozenset") -> str:
    events = list(_events_of(summary, "*"))
    for name in sorted(wanted):  # sorted: names bound by one statement come in one order
        events += _events_of(summary, name)
    events.sort(key=lambda event: event[0])
    parts = [(name, text) for _, name, text in events]
    parts.append(("__all__", _all_repr(summary), summary.all_dynamic, bool(summary.dynamic)))
    for name in sorted(n for n in wanted if n.startswith(_BODY)):
        defs = [b for _, b in summary.bindings.get(name[len(_BODY):], ()) if isinstance(b, Def)]
        parts.append((name, [(b.returns_first_argument, b.effect, b.writes_frames, b.gives_signature, _def_dump(b))
                             for b in defs]))
    if IMPORTS in wanted:
        parts.append((IMPORTS, sorted(summary.imports), summary.dynamic_imports))
    if HOOKS in wanted:
        parts.append((HOOKS,) + _hooks_part(summary))
    if POSITIONS in wanted:
        parts.append((POSITIONS, [(index, star.line) for index, star in summary.stars],
                      [(name, [(index, _line_of(binding)) for index, binding in summary.bindings.get(_bare(name), ())])
                       for name in sorted(wanted)], summary.dynamic))
    return hashlib.blake2b(repr(parts).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


class StarDelta:
    """What added_stars() reads of two versions of a module whatever the names: whether they parse,
    their __all__ and dynamic definitions, and the star imports added (None when the old ones are
    not all kept in order, or none was added). Made once for every function a star-import edit of
    a package's __init__ concerns."""

    def __init__(self, old: "Union[Scope, ParseFailure]", new: "Union[Scope, ParseFailure]"):
        self.old, self.new = old, new
        self.added = None
        self._hooks_same = None
        if isinstance(old, ParseFailure) or isinstance(new, ParseFailure):
            return
        if (_all_repr(old), old.all_dynamic, bool(old.dynamic)) != \
                (_all_repr(new), new.all_dynamic, bool(new.dynamic)):
            return
        kept = [text for _, _, text in _events_of(old, "*")]
        added = set()
        matched = 0
        for index, _, text in _events_of(new, "*"):
            if matched < len(kept) and text == kept[matched]:
                matched += 1
            else:
                added.add(index)
        if matched == len(kept) and added:
            self.added = added

    def added_stars(self, names: List[str]) -> "Optional[List[Star]]":
        """The star imports `new` adds to `old` when that is all that differs between the two for
        resolving `names`: the old star imports all still there in the same order, the bindings of
        each name in the same places among them, the same __all__, and the same dynamic
        definitions. Then what `names` resolve to differs only if an added star import binds one of
        them. None otherwise, when nothing was added, and for a pseudo-name but HOOKS (the import
        hooks, which must then be the same: a name not found is looked for through them), since
        what the others read is not all here."""
        if self.added is None:
            return None
        # An identity is checked as its name: only what the check can vouch for keeps a function.
        names = [_bare(name) for name in names]
        pseudo = [name for name in names if name.startswith("<")]
        names = [name for name in names if not name.startswith("<")]
        if not names or any(name != HOOKS for name in pseudo):
            return None
        if pseudo and not self._hooks_unchanged():
            return None
        if _sequence(self.old, names, ()) != _sequence(self.new, names, self.added):
            return None
        return [star for index, star in self.new.stars if index in self.added]

    def _hooks_unchanged(self) -> bool:
        if self._hooks_same is None:
            self._hooks_same = _hooks_part(self.old) == _hooks_part(self.new)
        return self._hooks_same


def _all_repr(summary: "Scope") -> str:
    """__all__'s names in a digest: sorted, since a set's order is not the same from one process to
    another (string hashes are salted per process), and a summary may be made in the process that
    parses ahead."""
    return repr(None if summary.all_names is None else sorted(summary.all_names))


def _hooks_part(summary: "Scope") -> tuple:
    """What HOOKS asks of a module: its import hooks, their maps of module names, the simple cases
    of its __getattr__ and whether it raises for every other name."""
    return (sorted(summary.hooks), sorted((k, sorted(v.items())) for k, v in summary.maps.items()),
            sorted(summary.getattr_cases.items()), summary.getattr_closed)


def _sequence(summary: "Scope", names: List[str], left_out) -> list:
    """The star imports (but those at the indexes `left_out`) and the bindings of `names`, in
    textual order, without their indexes."""
    events = [event for event in _events_of(summary, "*") if event[0] not in left_out]
    for name in sorted(set(names)):
        events += _events_of(summary, name)
    events.sort(key=lambda event: event[0])
    return [(name, text) for _, name, text in events]


def safe_digest(summary: "Union[Scope, ParseFailure]", names: List[str]) -> Optional[str]:
    """digest(), or None (nothing vouched for: resolve again whenever the file changes) for a
    module whose bindings are nested too deeply to describe."""
    try:
        return digest(summary, names)
    except RecursionError:
        return None


def _events_of(summary: "Scope", name: str) -> list:
    """[(index, name, text)] of the bindings of `name` ("*": the star imports; identity_of a name:
    its bindings, each def without its parameters and returns), rendered once per summary: many
    digests of one module ask for the same names."""
    known = summary.digests.get(name)
    if known is None:
        if name == "*":
            known = [(index, "*", _star_repr(star)) for index, star in summary.stars]
        else:
            render = _identity_repr if name.startswith(_IDENTITY) else _binding_repr
            known = [(index, name, render(binding)) for index, binding in summary.bindings.get(_bare(name), ())]
        summary.digests[name] = known
    return known


def _identity_repr(binding):
    """What identity_of a name reads of one of its bindings: a def without its parameters."""
    if isinstance(binding, Def):
        return "def %r %r" % (binding.decorator_parts, binding.mangle)
    return _binding_repr(binding)


def _line_of(binding):
    line = getattr(binding, "line", None)
    return (line, _scope_lines(binding.scope)) if isinstance(binding, Class) else line


def _scope_lines(scope):
    return sorted((index, name, _line_of(binding)) for name, bound in scope.bindings.items() for index, binding in bound)


def _star_repr(star):
    return "star %r %r" % (star.level, star.module)


def _binding_repr(binding):
    if isinstance(binding, Def):
        # A class's methods are read through its binding: what they may give its instances too.
        return "def %s %r %r %r %r %r" % (_def_dump(binding), binding.decorator_parts, binding.decorator_arguments,
                                          binding.mangle, binding.gives_signature, sorted(binding.stores))
    if isinstance(binding, Class):
        return "class %r %r %r %r %r %s" % (binding.bases, binding.metaclass, binding.decorators,
                                            sorted(binding.decorator_options.items(), key=str), binding.fields,
                                            _scope_repr(binding.scope))
    if isinstance(binding, FromImport):
        return "from %r %r %r" % (binding.level, binding.module, binding.name)
    if isinstance(binding, ModuleRef):
        return "module %r" % (binding.module,)
    if isinstance(binding, Alias):
        return "alias %r" % (binding.parts,)
    if isinstance(binding, Passthrough):
        return "passthrough %r" % (binding.callees,)
    if isinstance(binding, Partial):
        return "partial %r %r %r %r" % (binding.callee, binding.function, binding.positional, binding.keywords)
    if isinstance(binding, CallAlias):
        return "call %r %r %r" % (binding.callee, binding.positional, sorted(binding.keywords.items()))
    if isinstance(binding, Deleted):
        return "deleted"
    if isinstance(binding, Opaque):
        node = binding.node
        text = node if isinstance(node, str) or node is None else ast.dump(node)
        return "opaque %s %r %r" % (binding.what, text, binding.made)
    return "other %s" % type(binding).__name__


def _scope_repr(scope):
    """Every binding of a class body, in textual order (methods are looked up by name)."""
    events = [(index, name, _binding_repr(binding))
              for name, bound in scope.bindings.items() for index, binding in bound]
    events += [(index, "*", _star_repr(star)) for index, star in scope.stars]
    events.sort(key=lambda event: event[0])
    return repr([(name, text) for _, name, text in events])


# What a digest renders of a def's header (-> "args dump returns dump"), by its text: versions of a
# file share most headers.
HEADER_DUMPS = aaw_lru.Lru(1 << 12)


def _def_dump(definition: Def) -> str:
    def dump(_):
        returns = ast.dump(definition.returns) if definition.returns is not None else ""
        return "%s %s" % (ast.dump(definition.args), returns)
    if definition.header is None:
        return dump(None)
    return HEADER_DUMPS.remember(definition.header, dump)
