"""What a resolution reaches (aaw_resolver.py), and why it stopped.

A module, a function (a def, maybe a method of a class), a class, a signature computed by a rule
(functools.partial, a generated __init__), a name defined outside the repository, or NotFound with
the status and detail the state will carry. The failures end a function's resolution as a whole.
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
    __slots__ = ("definition", "module", "method_of")

    def __init__(self, definition, module, method_of=None):
        self.definition = definition
        self.module = module        # the Module whose file holds the def
        self.method_of = method_of  # the ClassValue when reached as Class.method

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
