"""The binding model: what a module (or a class body) binds, in textual order.

A Scope maps each name to its bindings (a def, a class, an import, an alias, something opaque),
with the star imports, __all__ and what may define names dynamically. aaw_collector.py makes
Scopes from source text, aaw_digest.py says what resolving some names reads of one, and the
resolver (aaw_resolver.py) follows them. A summary never changes once made, and crosses processes
pickled (the process that parses ahead sends them).
Pure standard library, Python 3.9+.
"""

import ast
from typing import Optional

import aaw_lru
from aaw_nodes import (NO_ATTRIBUTES, base_parts, body_facts, decorator_arguments, decorator_name, decorator_parts,
                       dotted, fields, first_positional, literal_keywords)


class Def:
    __slots__ = ("name", "line", "index", "header", "_args", "_returns", "decorators", "decorator_parts",
                 "decorator_arguments", "mangle", "effect", "returns_first_argument", "writes_frames",
                 "gives_signature", "stores")

    def __init__(self, node, index=0, mangle=None, facts=None, header=None, first_parameter=None,
                 hints=(True, True)):
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
            first_parameter = first_positional(node.args)
        else:
            self._args = self._returns = None
        self.decorators = [decorator_name(d) for d in node.decorator_list]
        # (dotted parts or None, whether it is called: `@deco(...)`), to resolve them.
        self.decorator_parts = [decorator_parts(d) for d in node.decorator_list]
        # The literal arguments of called decorators, parallel to decorator_parts (None where there
        # are none): what names a compile_ops stub's compiled module (aaw_bindings).
        arguments = [decorator_arguments(d) for d in node.decorator_list]
        self.decorator_arguments = arguments if any(a is not None for a in arguments) else None
        self.mangle = mangle  # the class whose body defines it: `__x` parameters are `_Class__x`
        # What the body says, read from `node`, or for a def of a skeleton (whose node has no
        # body) from its blanked body when it was checked (`facts`). effect: what it does, as a
        # decorator, to what it is given (aaw_nodes.decorator_effect). writes_frames: it reaches a
        # frame's f_locals / f_globals, so as a decorator it may define names in its caller.
        # gives_signature: it may give an object what inspect.signature reads before the class's
        # __call__ (`self.__wrapped__ = f`), so an instance its class makes may have a signature of
        # its own. stores: for a method, the attributes it may set on an instance (`self.mm = f`
        # hides the class's mm); returns_first_argument: every return gives back its first
        # argument (a class "decorator" called as X = f(X)).
        self.effect, returned, self.writes_frames, self.gives_signature, stores = \
            body_facts(node, hints) if facts is None else facts
        self.stores = stores if mangle is not None else NO_ATTRIBUTES
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


# Parsed def headers (Def.header -> (args, returns)). Versions of a file share most headers. The
# parsed nodes are the large entries and are asked for only when neither a dump (aaw_digest) nor a
# rendered signature (aaw_signature) is kept, so few are kept (docs/performance.md, "Bounded caches").
PARSED_HEADERS = aaw_lru.Lru(1 << 8)


def _parsed_header(header: bytes):
    return PARSED_HEADERS.remember(header, parse_header)


def parse_header(header: bytes):
    """(args, returns) of a def's header followed by a body."""
    node = ast.parse(header + b"\n pass\n").body[0]
    return node.args, node.returns


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
                self.bases += [base_parts(b) for b in base.args[1:]]
                metaclass.append(base.args[0])
            else:
                self.bases.append(base_parts(base))
        # six.add_metaclass(Meta) as a class decorator makes the class again with that metaclass.
        metaclass += [d.args[0] for d in node.decorator_list if isinstance(d, ast.Call) and len(d.args) == 1
                      and (dotted(d.func) or [""])[-1] == "add_metaclass"]
        self.metaclass = dotted(metaclass[0]) if metaclass else None
        self.decorators = [decorator_name(d) for d in node.decorator_list]
        # Literal keyword arguments of called class decorators: {"dataclass": {"kw_only": True}}.
        self.decorator_options = {decorator_name(d): literal_keywords(d) for d in node.decorator_list
                                  if isinstance(d, ast.Call)}
        # What a generated __init__ (dataclasses, attrs) is made of: the class body's fields.
        self.fields = fields(node.body)


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


class CallAlias:  # `g = make(f, "g")`: a call of a function with plain arguments
    __slots__ = ("callee", "positional", "keywords", "index", "line", "node")

    def __init__(self, callee, positional, keywords, index, line, node):
        self.callee = callee          # dotted parts of what is called
        self.positional = positional  # its arguments (aaw_nodes.decorator_arguments' values)
        self.keywords = keywords
        self.index = index
        self.line = line
        self.node = node              # for a detail


class Opaque:  # bound to something we do not follow (a call, a loop variable, ...)
    __slots__ = ("what", "line", "node", "made")

    def __init__(self, what, line, node=None, made=None):
        self.what = what
        self.line = line
        self.node = node
        self.made = made  # the built-in container a display or comprehension makes: "dict", "list", "set"


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
                 "getattr_cases", "getattr_closed", "dynamic_imports", "digests")

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
        # (line, names) when that __getattr__ answers only the names it compares its argument with
        # and raises AttributeError for every other (aaw_nodes.getattr_closed); None otherwise.
        self.getattr_closed = None
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
