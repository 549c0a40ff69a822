"""What a resolution reaches (aaw_resolver.py), and why it stopped.

A module, a function (a def, maybe a method of a class), a class, an instance of one, a built-in
container, a signature computed by a rule (functools.partial, a generated __init__), a name
defined outside the repository, or NotFound with the status and detail the state will carry. The
failures end a function's resolution as a whole.
Pure standard library, Python 3.9+.
"""


class Module:
    __slots__ = ("name", "path", "blob", "is_package")

    def __init__(self, name, path, blob, is_package):
        self.name = name
        self.path = path          # the file, or the directory of a namespace package
        self.blob = blob          # None for a namespace package
        self.is_package = is_package


class Function:
    __slots__ = ("definition", "module", "method_of", "bound")

    def __init__(self, definition, module, method_of=None, bound=False):
        self.definition = definition
        self.module = module        # the Module whose file holds the def
        self.method_of = method_of  # the ClassValue when reached as Class.method
        self.bound = bound          # reached through an instance (instance.method): bound to it

    @property
    def path(self):
        return self.module.path

    @property
    def read_before(self):
        """The statement of its module before which the names around its def are read: the def's
        own, or its class's for a method."""
        return self.definition.index if self.method_of is None else self.method_of.cls.index


class ClassValue:
    __slots__ = ("cls", "module")

    def __init__(self, cls, module):
        self.cls = cls
        self.module = module


class Container:
    """A built-in dict, list or set made by a display or comprehension of the repository
    (`d_dtypes = {name: ... for name in aiter_dtypes}`): not a function; its methods are the
    built-in type's."""
    __slots__ = ("kind", "detail", "expression")

    def __init__(self, kind, detail, expression):
        self.kind = kind              # "dict", "list" or "set"
        self.detail = detail          # where it is made, quoted as a NotFound's detail is
        self.expression = expression  # its text when short, as NotFound.expression


class Instance:
    """An instance of a class of the repository, made by `name = Class(...)` (`made_at` says so
    in details): calling it is calling its class's __call__; its attributes are its class's,
    methods bound to it."""
    __slots__ = ("of", "made_at")

    def __init__(self, of, made_at):
        self.of = of            # the ClassValue
        self.made_at = made_at  # "'tgemm = TunedGemm(...)' at aiter/tuned_gemm.py:663"


class Computed:
    """A signature made here, not read off one def (a functools.partial of a function); with the
    reason the resolver cannot vouch for it, when it cannot (`unverified`)."""
    __slots__ = ("parameters", "returns", "note", "unverified")

    def __init__(self, parameters, returns, note, unverified=None):
        self.parameters = parameters
        self.returns = returns
        self.note = note
        self.unverified = unverified

    @classmethod
    def from_state(cls, state, note, unverified):
        """The signature of an ok STATE again, with another note and reason for doubt."""
        signature = state["signature"]
        return cls(signature["parameters"], signature["return_annotation"], note, unverified)


class BuiltinMember(Computed):
    """A member a class of the repository inherits from a built-in base (BaseException.__init__),
    with the signature inspect gives it read on the class (an instance binds it: not followed)."""
    __slots__ = ()


class Outside:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class NotFound:
    __slots__ = ("status", "detail", "cycle", "expression")

    def __init__(self, status, detail, cycle=False, expression=None):
        self.status = status      # "missing" or "unresolved"
        self.detail = detail
        self.cycle = cycle        # only an import cycle hid the name
        self.expression = expression  # the text of the expression the name is bound to, if it is


class SyntaxFailure(Exception):
    pass


class HostFailure(Exception):
    pass


class TooDeep(Exception):
    """Valid code nested past what resolution follows: an import chain longer than _MAX_CHAIN
    modules, or an expression deeper than Python's recursion limit."""


class Unfollowed(TooDeep):
    """A symbolic link where resolution looked: Python's import system follows it, the static reader
    does not (a link may lead anywhere, even out of the repository), so what depends on it is
    unresolved, never missing."""

    def __init__(self, path):
        super().__init__("'%s' is a symbolic link, which static extraction does not follow (Python does; "
                         "the runtime extractor sees what it leads to)" % path)
