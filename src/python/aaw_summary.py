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
import pickle
import sys
from collections import OrderedDict
from typing import Any, Dict, Iterable, List, Optional, Union

# The cache is bounded by an estimate of the bytes its summaries hold: about this many times the
# source text they were made from (measured on aiter's history: the process grows by 8.6-9.2 bytes
# per character of source summarised, allocator overhead included).
_BYTES_PER_CHARACTER = 10
_DEFAULT_LIMIT_BYTES = 32 << 20
_limit_bytes = _DEFAULT_LIMIT_BYTES
# blob id -> (Scope (a parsed module) or ParseFailure, its estimated bytes); least recently used first.
_summaries = OrderedDict()
_cached_bytes = 0
# What parsing cost so far: texts summarised, and how many distinct blobs they were (counted up to
# _DISTINCT_LIMIT blobs, past which the set stops growing: a daemon runs for months; aiter's whole
# history at 2,214 functions is 3,729).
_DISTINCT_LIMIT = 1 << 14
_parses = 0
_distinct = set()
# How many of those parses were of skeletons (function bodies blanked: see summary_of), and how many
# function bodies were parsed on their own to check them.
_skeletons = 0
_bodies_parsed = 0
# Summaries adopted from the process that parses ahead instead of parsed here.
_adopted = 0
# What the function bodies known to parse say (_body_facts), by hash((is_async, text)), and the first
# parameter of the blanked headers known to parse, by hash(header); least recently used first. A
# body or header that did not change since an earlier version of its file is not parsed again.
_VERIFIED_LIMIT = 1 << 16
_verified = OrderedDict()


def cached(blob: str) -> "Optional[Union[Scope, ParseFailure]]":
    """The summary of `blob` when it is cached (and then the most recently used), else None."""
    entry = _summaries.get(blob)
    if entry is None:
        return None
    _summaries.move_to_end(blob)
    return entry[0]


def summary_of(blob: str, read, read_skeleton=None) -> "Union[Scope, ParseFailure]":
    """The cached summary of `blob`, else read(blob)'s text summarised and cached.

    read_skeleton(blob), when given, is the module's skeleton (the C++ side's skeleton_of):
    {"complete": True, "text": the text with each def's body blanked line for line, "bodies":
    [{"def_line", "async", "text"}]}, or {"complete": False, "text": the whole text}. Parsing the
    skeleton costs a fraction of parsing the module, and the summary is the same: each blanked body
    is checked to parse on its own (once per distinct body), and anything that does not parse
    sends the whole text to the parser, so a syntax error in a body is reported as before. What a
    def's body says (returns_first_argument, replaces_without_wraps) is read when it is checked."""
    summary = cached(blob)
    if summary is None:
        summary, characters, adopted = _summarize_blob(blob, read, read_skeleton)
        _count_parse(blob, adopted)
        remember(blob, summary, characters)
    return summary


def pickled_summary(blob: str, read, read_skeleton=None):
    """(the pickle of blob's summary, characters of source it was made from), parsed afresh: what
    the process that parses ahead sends (src/core/ports/summary_prefetch.hpp); the main
    interpreter adopts it instead of parsing (_summarize_blob)."""
    summary, characters, adopted = _summarize_blob(blob, read, read_skeleton)
    _count_parse(blob, adopted)
    return pickle.dumps(summary, protocol=pickle.HIGHEST_PROTOCOL), characters


def _unpickled(offered) -> "Optional[Union[Scope, ParseFailure]]":
    """The summary in read_skeleton's {"pickled": bytes, "characters": int} (one made ahead by this
    same code in a process of ours, reading the same mirror), or None when it is damaged."""
    try:
        summary = pickle.loads(offered["pickled"])
    except Exception:  # pylint: disable=broad-except  (any damage: parse here instead)
        return None
    return summary if isinstance(summary, (Scope, ParseFailure)) else None


def _summarize_blob(blob, read, read_skeleton):
    """(summary, characters of source it was made from, whether it was made ahead elsewhere).
    read_skeleton may hand over a summary made ahead ({"pickled", "characters"}) instead of the
    skeleton: it is adopted, and only if it is damaged is the skeleton asked for."""
    global _skeletons
    text = None
    if read_skeleton is not None:
        skeleton = read_skeleton(blob)
        if isinstance(skeleton, dict) and isinstance(skeleton.get("pickled"), bytes):
            summary = _unpickled(skeleton)
            if summary is not None:
                return summary, int(skeleton.get("characters") or 0), True
            skeleton = read_skeleton(blob)  # the one made ahead was handed over once
        if isinstance(skeleton, dict) and skeleton.get("complete"):
            summary = _from_skeleton(skeleton)
            if summary is not None:
                _skeletons += 1
                return summary, len(skeleton["text"]) + sum(len(body["text"]) for body in skeleton["bodies"]), False
        elif isinstance(skeleton, dict) and isinstance(skeleton.get("text"), str):
            text = skeleton["text"]
    if text is None:
        text = read(blob)
    return summarize(text), len(text) if isinstance(text, str) else 0, False


def _from_skeleton(skeleton) -> "Optional[Scope]":
    """The summary of a module from its skeleton, or None when the whole text must decide (a body,
    a blanked header or the skeleton does not parse)."""
    bodies = {}
    for body in skeleton["bodies"]:
        facts = _body_facts_of(body["async"], body["text"])
        if facts is None:
            return None
        header = body.get("header")
        first_parameter = None
        if header is not None:
            header = header.encode("utf-8", "surrogateescape")
            first_parameter = _first_parameter_of(header)
            if first_parameter is None:
                return None
        bodies[body["def_line"]] = (facts, header, first_parameter)
    for kept in skeleton.get("headers", ()):  # a body kept on its header's line: read from the node
        header = kept["header"].encode("utf-8", "surrogateescape")
        first_parameter = _first_parameter_of(header)
        if first_parameter is None:
            return None
        bodies[kept["def_line"]] = (None, header, first_parameter)
    try:
        summary = summarize(skeleton["text"], bodies)
    except _BodyNeeded:
        return None
    return None if isinstance(summary, ParseFailure) else summary


class _BodyNeeded(Exception):
    """A skeleton blanked a def the summary reads whole (a module-level __getattr__ or import hook
    the skeleton could not tell from a method: nested in an if or try, or spelled with characters
    Python folds to ASCII; or one whose body is on its header's line, of which only the header was
    blanked): the whole text must be summarised instead."""


def _body_facts_of(is_async: bool, text: str):
    """What a blanked body says (_body_facts), or None when it does not parse on its own or is too
    deep to read: then the whole text decides. Read here, beside the parse, at the stack depth the
    parse had, and kept with the body's hash so an unchanged body is neither parsed nor read
    again."""
    def read():
        global _bodies_parsed
        _bodies_parsed += 1
        return _body_facts(_parse_body(is_async, text))
    return _checked_once(hash((is_async, text)), read)


def _first_parameter_of(header: bytes) -> Optional[str]:
    """The name of the first positional parameter of a def whose header a skeleton blanked ("" when
    it has none), or None when the header does not parse on its own: then the whole text decides.
    Kept with the header's hash, as a body's facts are."""
    return _checked_once(hash(header), lambda: _first_positional(_parse_header(header)[0]))


def _first_positional(args: ast.arguments) -> str:
    """The name of the first positional parameter, "" when there is none."""
    positional = args.posonlyargs + args.args
    return positional[0].arg if positional else ""


def _checked_once(key, read):
    """read()'s answer, kept in _verified under key, or None when what it parses does not parse."""
    answer = _verified.get(key)
    if answer is not None:
        _verified.move_to_end(key)
        return answer
    collecting = gc.isenabled()
    gc.disable()
    try:
        answer = read()
    except (SyntaxError, ValueError, UnicodeError, RecursionError, MemoryError):
        return None
    finally:
        if collecting:
            gc.enable()
    _verified[key] = answer
    if len(_verified) > _VERIFIED_LIMIT:
        _verified.popitem(last=False)
    return answer


def _parse_body(is_async: bool, text: str):
    """A def named _ with this body (its lines as they were, indented as they were)."""
    header = "async def _():\n" if is_async else "def _():\n"
    return ast.parse((header + text).encode("utf-8", "surrogateescape")).body[0]


def clear_cache() -> None:
    global _cached_bytes
    _summaries.clear()
    _verified.clear()
    _parsed_headers.clear()
    _header_dumps.clear()
    _cached_bytes = 0


def cache_size() -> int:
    return len(_summaries)


def set_cache_limit(limit_bytes: Optional[int]) -> None:
    """Bounds the cache to about `limit_bytes` (None: the default, 32 MiB); evicts at once."""
    global _limit_bytes
    _limit_bytes = _DEFAULT_LIMIT_BYTES if limit_bytes is None else max(0, int(limit_bytes))
    _evict()


def stats() -> dict:
    """{"parses", "distinct_blobs", "cached", "cached_bytes", "limit_bytes"}: parses / distinct_blobs
    is 1.0 when no text was parsed twice (distinct_blobs stops at 16,384)."""
    return {"parses": _parses, "distinct_blobs": len(_distinct), "skeletons": _skeletons,
            "bodies_parsed": _bodies_parsed, "adopted": _adopted, "cached": len(_summaries), "cached_bytes": _cached_bytes,
            "limit_bytes": _limit_bytes}


def reset_stats() -> None:
    global _parses, _skeletons, _bodies_parsed, _adopted
    _parses = _skeletons = _bodies_parsed = _adopted = 0
    _distinct.clear()


def _count_parse(blob: str, adopted: bool = False) -> None:
    global _parses, _adopted
    if adopted:
        _adopted += 1
    else:
        _parses += 1
    if len(_distinct) < _DISTINCT_LIMIT:
        _distinct.add(blob)


class Def:
    __slots__ = ("name", "line", "index", "header", "_args", "_returns", "decorators", "decorator_parts", "mangle",
                 "replaces_without_wraps", "returns_first_argument")

    def __init__(self, node, index=0, mangle=None, facts=None, header=None, first_parameter=None):
        self.name = node.name
        self.line = node.lineno
        self.index = index
        # The def's own source text, from `def` (or `async`) to its body (Collector._header), when
        # it reads back alone: then its arguments are not pickled but parsed again from it when
        # asked (args, returns), and what a digest renders of them is shared by every summary with
        # the same header (_def_dump). None: the nodes are kept and pickled.
        self.header = header
        # first_parameter: for a def whose arguments a skeleton blanked (`def f(   ):`), the name of
        # its first positional parameter, read from its header ("" when it has none); the nodes
        # are parsed from the header when asked.
        if first_parameter is None:
            self._args, self._returns = node.args, node.returns
            first_parameter = _first_positional(node.args)
        else:
            self._args = self._returns = None
        self.decorators = [_decorator_name(d) for d in node.decorator_list]
        # (dotted parts or None, whether it is called: `@deco(...)`), to resolve them.
        self.decorator_parts = [_decorator_parts(d) for d in node.decorator_list]
        self.mangle = mangle  # the class whose body defines it: `__x` parameters are `_Class__x`
        # What the body says, read from `node`, or for a def of a skeleton (whose node has no
        # body) from its blanked body when it was checked (`facts`). replaces_without_wraps: as a
        # decorator, it returns a new function that does not copy the one it wraps (no
        # functools.wraps), so what callers meet is that function's signature.
        # returns_first_argument: every return gives back its first argument (a class
        # "decorator" called as X = f(X)).
        self.replaces_without_wraps, returned = _body_facts(node) if facts is None else facts
        self.returns_first_argument = bool(first_parameter) and returned == first_parameter

    @property
    def args(self) -> ast.arguments:
        if self._args is None:
            self._args, self._returns = _parsed_header(self.header)
        return self._args

    @property
    def returns(self) -> Optional[ast.expr]:
        if self._args is None:
            self._args, self._returns = _parsed_header(self.header)
        return self._returns

    def __getstate__(self):
        state = {name: getattr(self, name) for name in Def.__slots__}
        if self.header is not None:
            state["_args"] = state["_returns"] = None
        return None, state


# Parsed def headers (Def.header -> (args, returns)) and what a digest renders of them
# (-> "args dump returns dump"); least recently used first. Versions of a file share most headers.
# The parsed nodes are the large entries and are asked for only when neither a dump here nor a
# rendered signature (aaw_signature) is kept: 256 of them (at 1,024 a 40,000-commit soak grew by
# 8 MB more, at the same speed on aiter's history).
_HEADERS_LIMIT = 1 << 8
_parsed_headers = OrderedDict()
_DUMPS_LIMIT = 1 << 12
_header_dumps = OrderedDict()


def _remembered(cache, limit, key, make):
    value = cache.get(key)
    if value is None:
        value = cache[key] = make(key)
        if len(cache) > limit:
            cache.popitem(last=False)
    else:
        cache.move_to_end(key)
    return value


def _parsed_header(header: bytes):
    return _remembered(_parsed_headers, _HEADERS_LIMIT, header, _parse_header)


def _parse_header(header: bytes):
    """(args, returns) of a def's header followed by a body."""
    node = ast.parse(header + b"\n pass\n").body[0]
    return node.args, node.returns


def _def_dump(definition: Def) -> str:
    def dump(_):
        returns = ast.dump(definition.returns) if definition.returns is not None else ""
        return "%s %s" % (ast.dump(definition.args), returns)
    if definition.header is None:
        return dump(None)
    return _remembered(_header_dumps, _DUMPS_LIMIT, definition.header, dump)


class Class:
    __slots__ = ("name", "line", "index", "scope", "has_bases", "bases", "metaclass", "decorators",
                 "decorator_options", "fields")

    def __init__(self, node, index, scope):
        self.name = node.name
        self.line = node.lineno
        self.index = index
        self.scope = scope
        self.has_bases = bool(node.bases) or any(k.arg == "metaclass" for k in node.keywords)
        # Each base as dotted parts (`Base`, `m.Base`; `Generic[T]` as its subscripted name), or
        # None for an expression we do not follow.
        self.bases = []
        metaclass = [k.value for k in node.keywords if k.arg == "metaclass"]
        for base in node.bases:
            if isinstance(base, ast.Call) and (dotted(base.func) or [""])[-1] == "with_metaclass" and base.args:
                # six.with_metaclass(Meta, *bases): a class of those bases with that metaclass.
                self.bases += [_base_parts(b) for b in base.args[1:]]
                metaclass.append(base.args[0])
            else:
                self.bases.append(_base_parts(base))
        self.metaclass = dotted(metaclass[0]) if metaclass else None
        self.decorators = [_decorator_name(d) for d in node.decorator_list]
        # Literal keyword arguments of called class decorators: {"dataclass": {"kw_only": True}}.
        self.decorator_options = {_decorator_name(d): _literal_keywords(d) for d in node.decorator_list
                                  if isinstance(d, ast.Call)}
        # What a generated __init__ (dataclasses, attrs) is made of: the class body's fields.
        self.fields = _fields(node.body)


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


class Passthrough:  # `X = f(g(X, ...), ...)`: X again, if f and g return their first argument
    __slots__ = ("callees", "index", "line", "node")

    def __init__(self, callees, index, line, node):
        self.callees = callees  # dotted parts of each function called, outermost first
        self.index = index
        self.line = line
        self.node = node        # for the detail when a callee is not a pass-through


class Partial:  # `g = functools.partial(f, 1, b=2)`: f with arguments bound
    __slots__ = ("callee", "function", "positional", "keywords", "index", "line")

    def __init__(self, callee, function, positional, keywords, index, line):
        self.callee = callee          # dotted parts of what is called (functools.partial, partial)
        self.function = function      # dotted parts of the function it binds
        self.positional = positional  # how many positional arguments it binds
        self.keywords = keywords      # [(name, default text)] it binds by keyword
        self.index = index
        self.line = line


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
    __slots__ = ("bindings", "stars", "all_names", "all_dynamic", "dynamic", "imports", "maps", "hooks",
                 "getattr_cases", "dynamic_imports", "digests")

    def __init__(self):
        self.bindings = {}      # name -> [(statement index, binding)], textual order
        self.stars = []         # [(statement index, Star)], textual order
        self.all_names = None   # the literal names of __all__, None without __all__
        self.all_dynamic = False  # __all__ is built from something we cannot read
        self.dynamic = []       # module-level setattr / globals() / __getattr__, as "what (line N)"
        # Every module the body imports when it runs, as (level, dotted name): what loading this
        # module loads (a submodule it loads becomes an attribute of its package).
        self.imports = []
        # Literal dicts of strings bound at module level: {name: {key: value}}.
        self.maps = {}
        # The names an import hook reads: those a module-level __getattr__ or a function put on
        # sys.meta_path refers to (where a map of old module names to new ones is found).
        self.hooks = set()
        # `if name == "f": from .m import f; return f` in a module-level __getattr__:
        # {"f": (level, module, name)} for the simple cases.
        self.getattr_cases = {}
        # The body imports a module by a computed name (importlib.import_module, __import__).
        self.dynamic_imports = False
        # digest() of each set of names asked so far (a summary never changes once made), and the
        # rendered bindings of each name (by the name itself: keys of the two kinds never meet).
        self.digests = {}

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


def summarize(text: str, bodies=None) -> "Union[Scope, ParseFailure]":
    """The summary of a module's source text, or a ParseFailure when it does not parse. For a
    skeleton, `bodies` maps the line of each def it blanked something of to (what its body says
    (_body_facts), or None when the body was kept on the header's line; its header when the skeleton
    blanked its parameters, or None; and then the header's first positional parameter
    (_first_parameter_of))."""
    # An ast is a tree of many small objects and no cycles: with thousands of summaries cached,
    # the cyclic collector would walk all of them again and again while a module is parsed,
    # making each parse several times slower. Reference counting frees what a parse leaves.
    collecting = gc.isenabled()
    gc.disable()
    try:
        source = text.encode("utf-8", "surrogateescape")
        tree = ast.parse(source)
        return Collector(bodies, _may_import_dynamically(text), source).scope(tree.body, module_level=True)
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
    whether as a decorator it replaces a function without functools.wraps) enters a digest: only
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
        parts.append((name, [(b.returns_first_argument, b.replaces_without_wraps)
                             for _, b in summary.bindings.get(name[len(_BODY):], ()) if isinstance(b, Def)]))
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
    of its __getattr__."""
    return (sorted(summary.hooks), sorted((k, sorted(v.items())) for k, v in summary.maps.items()),
            sorted(summary.getattr_cases.items()))


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
        return "def %s %r %r" % (_def_dump(binding), binding.decorator_parts, binding.mangle)
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


def remember(blob: str, summary: "Union[Scope, ParseFailure]", characters: int = 0) -> None:
    """Caches `summary` made from `characters` of source text, evicting the least recently used
    summaries past the limit (the newest is kept even alone past it: the caller is using it)."""
    global _cached_bytes
    previous = _summaries.pop(blob, None)
    if previous is not None:
        _cached_bytes -= previous[1]
    cost = 256 + _BYTES_PER_CHARACTER * characters
    _summaries[blob] = (summary, cost)
    _cached_bytes += cost
    _evict()
    # Cached summaries live long and hold no cycles: keep the cyclic collector from walking them
    # over and over (reference counting still frees the ones the cache lets go). Collect first:
    # frozen cyclic garbage is never freed, and some is made all the time (each ast.dump() call
    # leaves a cycle), which would make memory grow with every commit. The collection walks only
    # what is not frozen yet.
    gc.collect()
    gc.freeze()


def _evict() -> None:
    global _cached_bytes
    while _cached_bytes > _limit_bytes and len(_summaries) > 1:
        _, (_, cost) = _summaries.popitem(last=False)
        _cached_bytes -= cost


class Collector:
    """Walks a module (or class) body in textual order, numbering statements."""

    def __init__(self, bodies=None, may_import_dynamically=True, source=None):
        self.bodies = bodies or {}  # a skeleton's blanked defs, by their line (summarize)
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
                    scope.hooks.update(_names_in(self.defs[name]))
            self.defs = {}
        return scope

    def _block(self, statements, scope, module_level):
        for statement in statements:
            self.index += 1
            if module_level and self.may_import_dynamically and \
                    isinstance(statement, (ast.Expr, ast.Assign, ast.AnnAssign)) and _calls_dynamic_import(statement):
                scope.dynamic_imports = True
            handler = _STATEMENT_HANDLERS.get(type(statement))
            if handler is not None:
                handler(self, statement, self.index, scope, module_level)

    def _def(self, node, index, scope, module_level):
        facts, header, first_parameter = self.bodies.get(node.lineno, (None, None, None))
        scope.bind(node.name, index, Def(node, index, self.class_name, facts, header or self._header(node),
                                         first_parameter))
        if not module_level:
            return
        self.defs[node.name] = node
        if node.name == "__getattr__":
            self._need_body(node)
            scope.dynamic.append("a module-level __getattr__ (line %d)" % node.lineno)
            scope.hooks.update(_names_in(node))
            scope.getattr_cases.update(_getattr_cases(node))

    def _header(self, node) -> Optional[bytes]:
        """A def's text from `def` (or `async`) to where its body starts, right-stripped, which
        parses followed by a body into the same arguments and returns (_parsed_header); None
        when that is not certain: a header that is not ASCII (the parser's columns would not be
        ours under a coding declaration), or a text with a line break other than \\n and \\r\\n
        (whose line numbers would not be the lines split here)."""
        if self.source is None or not node.body:
            return None
        if self.lines is None:
            plain = self.source.count(b"\r") == self.source.count(b"\r\n")
            self.lines = self.source.split(b"\n") if plain else []
        if not self.lines:
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
            raise _BodyNeeded()

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
            parts = dotted(value)
            if parts is not None:
                scope.bind(target.id, index, Alias(parts, index))
                return
            chain = _passthrough_chain(value, target.id)
            if chain:
                scope.bind(target.id, index, Passthrough(chain, index, line, _short(value)))
                return
            partial = _partial(value, index, line)
            if partial is not None:
                scope.bind(target.id, index, partial)
                return
            mapping = _string_map(value)
            if mapping is not None and module_level:
                scope.maps[target.id] = mapping
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


def _literal_keywords(call):
    out = {}
    for keyword in call.keywords:
        if keyword.arg is not None:
            try:
                out[keyword.arg] = ast.literal_eval(keyword.value)
            except ValueError:
                out[keyword.arg] = None
    return out


class Field:
    """One field of a class body, as dataclasses or attrs would make an __init__ parameter of it."""
    __slots__ = ("name", "annotation", "default", "factory", "init", "kw_only", "made_by", "class_var")

    def __init__(self, name, annotation, value):
        self.name = name
        self.annotation = None if annotation is None else ast.unparse(annotation)
        self.class_var = annotation is not None and "ClassVar" in ast.unparse(annotation)
        self.default = None      # source text of the default
        self.factory = False     # the default comes from a factory
        self.init = True
        self.kw_only = False
        self.made_by = None      # the field function called (field, ib, attrib, attr), None for a plain value
        if value is None:
            return
        callee = dotted(value.func) if isinstance(value, ast.Call) else None
        if callee and callee[-1] in ("field", "ib", "attrib", "attr"):
            self.made_by = callee[-1]
            for keyword in value.keywords:
                if keyword.arg == "default":
                    self.default = ast.unparse(keyword.value)
                    factory = dotted(keyword.value.func) if isinstance(keyword.value, ast.Call) else None
                    self.factory = bool(factory and factory[-1] == "Factory")
                elif keyword.arg in ("default_factory", "factory"):
                    self.factory = True
                elif keyword.arg in ("init", "kw_only") and isinstance(keyword.value, ast.Constant):
                    setattr(self, keyword.arg, bool(keyword.value.value))
        else:
            self.default = ast.unparse(value)

    def __repr__(self):
        return "Field(%r, %r, %r, %r, %r, %r, %r)" % (self.name, self.annotation, self.default, self.factory,
                                                      self.init, self.kw_only, self.made_by)


def _fields(body):
    fields = []
    for statement in body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            fields.append(Field(statement.target.id, statement.annotation, statement.value))
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
                isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.Call):
            field = Field(statement.targets[0].id, None, statement.value)
            if field.made_by is not None:
                fields.append(field)
    return fields


def _passthrough_chain(value, name):
    """[callee parts, ...] (outermost first) when `value` is f(g(name, ...), ...): each call's first
    argument is the next call, the innermost's is `name` itself."""
    chain = []
    while isinstance(value, ast.Call) and value.args:
        callee = dotted(value.func)
        if callee is None:
            return None
        chain.append(callee)
        value = value.args[0]
    return chain if chain and isinstance(value, ast.Name) and value.id == name else None


def _names_in(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _own_returns(statements) -> list:
    """The return statements of a body, through its compound statements but not into nested
    functions or classes, and never into expressions (cheap: a summary is made of every def, so
    the blocks are walked with a list of them to do rather than a generator per block)."""
    found = []
    blocks = [statements]
    while blocks:
        for statement in blocks.pop():
            if isinstance(statement, ast.Return):
                found.append(statement)
            elif not isinstance(statement, _NOT_OWN):
                for field in ("body", "orelse", "finalbody"):
                    block = getattr(statement, field, None)
                    if block:
                        blocks.append(block)
                for handler in getattr(statement, "handlers", ()):
                    blocks.append(handler.body)
                for case in getattr(statement, "cases", ()):
                    blocks.append(case.body)
    return found


_NOT_OWN = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)  # their returns are not the body's


def _body_facts(node):
    """(replaces_without_wraps, the name every return of the body gives back or None): what Def
    reads from a def's body, which needs nothing of its header."""
    return _replaces_without_wraps(node), _returned_name(node.body)


def _returned_name(body):
    names = {r.value.id if isinstance(r.value, ast.Name) else None for r in _own_returns(body)}
    return names.pop() if len(names) == 1 else None


def _may_import_dynamically(text) -> bool:
    """Whether a module's text may call import_module or __import__ (identifiers outside ASCII are
    NFKC-normalised by the parser, so such a text always may)."""
    if not isinstance(text, str) or not text.isascii():
        return True
    return "import_module" in text or "__import__" in text


def _calls_dynamic_import(statement):
    for node in ast.walk(statement):
        if isinstance(node, ast.Call):
            parts = dotted(node.func)
            if parts and parts[-1] in ("import_module", "__import__"):
                return True
    return False


def _decorator_parts(node):
    called = isinstance(node, ast.Call)
    return (dotted(node.func if called else node), called)


def _base_parts(node):
    if isinstance(node, ast.Subscript):  # Generic[T], Protocol[T]: the class subscripted
        node = node.value
    return dotted(node)


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


def _string_map(value):
    """{key: value} of a dict literal of strings to strings, else None."""
    if not isinstance(value, ast.Dict) or not value.keys:
        return None
    out = {}
    for key, item in zip(value.keys, value.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)
                and isinstance(item, ast.Constant) and isinstance(item.value, str)):
            return None
        out[key.value] = item.value
    return out


def _getattr_cases(node):
    """{name: (level, module, attribute)} for `if name == "x": from .m import y; return y` (or
    `if name in ("x", ...)`) in a module's __getattr__(name)."""
    if not node.args.args:
        return {}
    parameter = node.args.args[0].arg
    cases = {}
    for statement in node.body:
        if not isinstance(statement, ast.If):
            continue
        names = _compared_names(statement.test, parameter)
        target = _returned_import(statement.body, parameter)
        if names and target is not None:
            for name in names:
                level, module, attribute = target
                cases[name] = (level, module, name if attribute is None else attribute)
    return cases


def _compared_names(test, parameter):
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
            and test.left.id == parameter):
        return None
    right = test.comparators[0]
    if isinstance(test.ops[0], ast.Eq) and isinstance(right, ast.Constant) and isinstance(right.value, str):
        return [right.value]
    if isinstance(test.ops[0], ast.In):
        return _literal_strings(right)
    return None


def _returned_import(body, parameter):
    """(level, module, attribute) when `body` imports a name and returns it (attribute None: the
    name asked for, as `return globals()[name]` after `from .m import *` would)."""
    imported = {}
    for statement in body:
        if isinstance(statement, ast.ImportFrom):
            for alias in statement.names:
                imported[alias.asname or alias.name] = (statement.level or 0, statement.module or "", alias.name)
        elif isinstance(statement, ast.Return) and isinstance(statement.value, ast.Name):
            return imported.get(statement.value.id)
    return None


def _replaces_without_wraps(node):
    """Whether this def, used as a decorator (or a decorator factory), returns a nested function
    that does not copy the decorated one's signature (no functools.wraps / update_wrapper)."""
    nested = {}
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            nested[statement.name] = statement
    for statement in node.body:
        if isinstance(statement, ast.Return) and isinstance(statement.value, ast.Name):
            inner = nested.get(statement.value.id)
            if inner is None:
                continue
            if _copies_signature(inner):
                return False
            # A factory: the nested def is the decorator itself; look one level down.
            return _replaces_without_wraps(inner) if _returns_nested(inner) else bool(inner.args.args or
                                                                                       inner.args.vararg)
    return False


def _returns_nested(node):
    nested = {s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return any(isinstance(s, ast.Return) and isinstance(s.value, ast.Name) and s.value.id in nested
               for s in node.body)


def _copies_signature(node):
    for decorator in node.decorator_list:
        if _decorator_name(decorator) == "wraps":
            return True
    return any(isinstance(n, ast.Call) and (dotted(n.func) or [""])[-1] in ("update_wrapper", "wraps")
               for n in ast.walk(node))


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
