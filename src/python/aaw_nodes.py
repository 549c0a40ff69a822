"""Readers of `ast` nodes: the small facts a module summary (aaw_collector.py) and its model
(aaw_model.py) take from a statement, an expression or a def's body, with no knowledge of modules,
scopes or caches.
Pure standard library, Python 3.9+.
"""

import ast
import unicodedata

from aaw_signature import source_text


def first_positional(args: ast.arguments) -> str:
    """The name of the first positional parameter, "" when there is none."""
    positional = args.posonlyargs + args.args
    return positional[0].arg if positional else ""


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


def short(node):
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


def literal_keywords(call):
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
        self.annotation = None if annotation is None else source_text(annotation)
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
                    self.default = source_text(keyword.value)
                    factory = dotted(keyword.value.func) if isinstance(keyword.value, ast.Call) else None
                    self.factory = bool(factory and factory[-1] == "Factory")
                elif keyword.arg in ("default_factory", "factory"):
                    self.factory = True
                elif keyword.arg in ("init", "kw_only") and isinstance(keyword.value, ast.Constant):
                    setattr(self, keyword.arg, bool(keyword.value.value))
        else:
            self.default = source_text(value)

    def __repr__(self):
        return "Field(%r, %r, %r, %r, %r, %r, %r)" % (self.name, self.annotation, self.default, self.factory,
                                                      self.init, self.kw_only, self.made_by)


def fields(body):
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


_CONTAINERS = {ast.Dict: "dict", ast.DictComp: "dict", ast.List: "list", ast.ListComp: "list", ast.Set: "set",
               ast.SetComp: "set"}


def container_made(value):
    """"dict", "list" or "set" when the expression is a display or comprehension that makes one
    (its methods are the built-in type's), else None."""
    return _CONTAINERS.get(type(value))


def passthrough_chain(value, name):
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


def names_in(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _own_returns(statements) -> list:
    """The return statements of a body, through its compound statements but not into nested
    functions or classes, and never into expressions."""
    return [statement for statement in _own_statements(statements) if isinstance(statement, ast.Return)]


_NOT_OWN = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)  # their returns are not the body's


def body_facts(node, hints=(True, True)):
    """(decorator_effect, the name every return of the body gives back or None, whether it reaches
    a frame's namespace, whether it may give an object a signature of its own, the attributes it
    sets on names: stored_attributes): what Def reads from a def's body, which needs nothing of its
    header. `hints` (text_hints of the text the body is in, numbered as the node's lines) spare
    those walks where the text cannot say the thing, and keep them to the lines where it may."""
    returns = _own_returns(node.body)
    reaches, names = hints
    return (decorator_effect(node, returns), _returned_name(returns), bool(reaches) and _writes_frames(node, reaches),
            bool(names) and _may_give_signature(node, names), stored_attributes(node))


NO_ATTRIBUTES = frozenset()


def stored_attributes(node) -> frozenset:
    """The attribute names the body (nested functions included) assigns on a plain name
    (`self.mm = ...`, `obj.x += 1`): what a method may put on an instance, hiding its class's
    attribute of that name (names set by setattr, __dict__ or vars are _may_give_signature's)."""
    # Statements only (assignment targets, the bodies of compound ones): an attribute is stored
    # nowhere else, and a walk of every expression would cost as much as the parse.
    stored = set()
    statements = list(node.body)
    while statements:
        statement = statements.pop()
        targets = _STORING.get(type(statement))
        if targets is not None:
            for target in targets(statement):
                _stored_in(target, stored)
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            statements.extend(getattr(statement, field, ()))
    return frozenset(stored) if stored else NO_ATTRIBUTES


_STORING = {ast.Assign: lambda s: s.targets, ast.AugAssign: lambda s: [s.target],
            ast.AnnAssign: lambda s: [s.target], ast.For: lambda s: [s.target], ast.AsyncFor: lambda s: [s.target],
            ast.With: lambda s: [i.optional_vars for i in s.items if i.optional_vars is not None],
            ast.AsyncWith: lambda s: [i.optional_vars for i in s.items if i.optional_vars is not None]}


def _stored_in(target, stored):
    if isinstance(target, ast.Attribute):
        if isinstance(target.value, ast.Name):
            stored.add(target.attr)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _stored_in(element, stored)
    elif isinstance(target, ast.Starred):
        _stored_in(target.value, stored)


def text_hints(text, first_line=1) -> tuple:
    """(where a text may name f_locals or f_globals, where it may name what gives an object a
    signature of its own: _SIGNATURE_WORDS), each False (nowhere), the set of line numbers where
    it does (the text's first line numbered `first_line`: a walk of the body looks at those lines
    only, _on_lines), or True (anywhere: a text whose line breaks the parser counts otherwise than
    \\n, a bare \\r). The parser NFKC-normalises identifiers outside ASCII, so such a text is
    looked at normalised: no character normalises to a line break, so its lines are the text's."""
    if not isinstance(text, str):
        return True, True
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    frames = _lines_naming(text, ("f_locals", "f_globals"), first_line)
    signature = _lines_naming(text, _SIGNATURE_WORDS, first_line)
    if (frames or signature) and text.count("\r") != text.count("\r\n"):
        return bool(frames), bool(signature)
    return frames, signature


def _lines_naming(text, words, first_line):
    lines = set()
    for word in words:
        line, counted = first_line, 0  # the line of text[counted], counted on from the last hit
        at = text.find(word)
        while at >= 0:
            line += text.count("\n", counted, at)
            counted = at
            lines.add(line)
            at = text.find(word, at + len(word))
    return frozenset(lines) if lines else False


def _on_lines(node, lines):
    """The nodes of node's tree (node first), all of them when `lines` is True, else only those
    whose lines include one of `lines` and the nodes without positions between them: the subtrees
    on other lines are never walked. A def's or class's lines start at its first decorator; inside
    an f-string nothing is left out (this Python's positions there are not always the text's)."""
    if lines is True:
        yield from ast.walk(node)
        return
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.JoinedStr):
            yield from ast.walk(current)
            continue
        yield current
        for child in ast.iter_child_nodes(current):
            start = getattr(child, "lineno", None)
            if start is not None:
                decorators = getattr(child, "decorator_list", None)
                if decorators:
                    start = min([start] + [decorator.lineno for decorator in decorators])
                end = getattr(child, "end_lineno", None) or start
                if not any(start <= line <= end for line in lines):
                    continue
            stack.append(child)


def _writes_frames(node, lines=True):
    """Whether the body (nested functions included) touches a frame's f_locals or f_globals: as
    a decorator, it may write names into its caller's module (an alias under another name).
    `lines`: where the text names them (text_hints)."""
    return any(isinstance(n, ast.Attribute) and n.attr in ("f_locals", "f_globals") for n in _on_lines(node, lines))


# What inspect.signature reads of an object before its class's __call__ (__wrapped__, followed;
# __signature__; a function's own __code__), and what writes attributes by a name it is given.
_SIGNATURE_ATTRIBUTES = frozenset({"__signature__", "__wrapped__", "__code__", "__dict__"})
_SIGNATURE_WRITERS = frozenset({"setattr", "__setattr__", "update_wrapper", "wraps", "vars"})
_SIGNATURE_WORDS = tuple(sorted(_SIGNATURE_ATTRIBUTES | _SIGNATURE_WRITERS))


def _may_give_signature(node, lines=True):
    """Whether the body (nested functions included) may give some object (an instance its class
    makes: `self.__signature__ = ...`, `update_wrapper(self, f)`) what inspect.signature reads
    before the class's __call__: any mention of those attributes, of a writer of attributes by
    name, or a string naming one of them. `lines`: where the text names them (text_hints)."""
    for child in _on_lines(node, lines):
        if isinstance(child, ast.Attribute):
            if child.attr in _SIGNATURE_ATTRIBUTES or child.attr in _SIGNATURE_WRITERS:
                return True
        elif isinstance(child, ast.Name):
            if child.id in _SIGNATURE_WRITERS:
                return True
        elif isinstance(child, ast.Constant) and isinstance(child.value, str):
            if child.value in _SIGNATURE_ATTRIBUTES:
                return True
    return False


def _returned_name(returns):
    names = {r.value.id if isinstance(r.value, ast.Name) else None for r in returns}
    return names.pop() if len(names) == 1 else None


def may_import_dynamically(text) -> bool:
    """Whether a module's text may call import_module or __import__ (identifiers outside ASCII are
    NFKC-normalised by the parser, so such a text always may)."""
    if not isinstance(text, str) or not text.isascii():
        return True
    return "import_module" in text or "__import__" in text


def calls_dynamic_import(statement):
    for node in ast.walk(statement):
        if isinstance(node, ast.Call):
            parts = dotted(node.func)
            if parts and parts[-1] in ("import_module", "__import__"):
                return True
    return False


def decorator_parts(node):
    called = isinstance(node, ast.Call)
    return (dotted(node.func if called else node), called)


class _Marker:
    """A decorator's argument kept as text, compared and pickled by its type and text."""
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self.text)

    def __eq__(self, other):
        return type(other) is type(self) and other.text == self.text

    def __hash__(self):
        return hash((type(self).__name__, self.text))

    def __reduce__(self):
        return (type(self), (self.text,))


class NameRef(_Marker):
    """A bare name given as a decorator's argument (`@compile_ops(MD_NAME)`), to look up later."""
    __slots__ = ()


class Expression(_Marker):
    """A decorator's argument that is neither a literal nor a bare name: its text, to say so."""
    __slots__ = ()


def decorator_arguments(node):
    """(positional, {keyword: value}) of a called decorator, each value a literal, a NameRef, or
    an Expression; None for a decorator not called or called without arguments."""
    if not isinstance(node, ast.Call) or not (node.args or node.keywords):
        return None
    return (tuple(_argument_value(a) for a in node.args),
            {k.arg: _argument_value(k.value) for k in node.keywords if k.arg is not None})


def _argument_value(node):
    if isinstance(node, ast.Name):
        return NameRef(node.id)
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool, type(None))):
        return node.value
    text = ast.unparse(node)
    return Expression(text if len(text) <= 60 else text[:57] + "...")


def base_parts(node):
    if isinstance(node, ast.Subscript):  # Generic[T], Protocol[T]: the class subscripted
        node = node.value
    return dotted(node)


def string_map(value):
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


def getattr_cases(node):
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


def getattr_closed(node):
    """The names a module-level __getattr__(name) can answer, when its body only tests its
    argument against literal names (`if name == "x"`, `if name in ("x", "y")`) and ends by raising
    AttributeError: Python then raises for every other name. None otherwise."""
    if not node.args.args or not node.body:
        return None
    parameter = node.args.args[0].arg
    body = node.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # its docstring
    if not body or not _raises_attribute_error(body[-1]):
        return None
    names = set()
    for statement in body[:-1]:
        compared = _compared_names(statement.test, parameter) if isinstance(statement, ast.If) else None
        if compared is not None and not statement.orelse:
            names.update(compared)
        elif not _answers_nothing(statement, parameter):
            return None
    return tuple(sorted(names))


def _answers_nothing(statement, parameter):
    """Whether a statement of __getattr__ can neither answer a name (it returns nothing) nor change
    which name the tests after it see (it leaves the parameter alone): `import warnings`, a call
    that warns, an assignment to another name."""
    for node in ast.walk(statement):
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)):
            return False
        if isinstance(node, ast.Name) and node.id == parameter and not isinstance(node.ctx, ast.Load):
            return False
        if isinstance(node, (ast.Global, ast.Nonlocal)) and parameter in node.names:
            return False
    return True


def _raises_attribute_error(statement):
    if not isinstance(statement, ast.Raise) or statement.exc is None:
        return False
    exc = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
    return (dotted(exc) or [""])[-1] == "AttributeError"


def _compared_names(test, parameter):
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
            and test.left.id == parameter):
        return None
    right = test.comparators[0]
    if isinstance(test.ops[0], ast.Eq) and isinstance(right, ast.Constant) and isinstance(right.value, str):
        return [right.value]
    if isinstance(test.ops[0], ast.In):
        return literal_strings(right)
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


def decorator_effect(node, returns=None):
    """What this def does to what it is given, read from its body alone (its parameters are
    named, not known here), for the decorator model (aaw_decorators.py):
      ("returns", NAME)  every return gives back the name NAME (or typing.cast(T, NAME));
      ("nested", COPIES, ARGS, RETURNS, INNER)  every return gives back a function the body
          defines: COPIES is the dotted text of what it copies the signature of
          (functools.wraps / update_wrapper), or None; ARGS and RETURNS its own parameters and
          return annotation as source text; INNER its own effect (when this def is a factory,
          called as @deco(...), the nested function is the decorator);
      None  anything else (no return, several different ones, an expression).
    Hashable and picklable: summaries cross processes and digests render it."""
    if returns is None:
        returns = _own_returns(node.body)
    if not returns:
        return None
    nested = {}
    for statement in _own_statements(node.body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            nested.setdefault(statement.name, []).append(statement)
    effects = set()
    for statement in returns:
        value = _uncast(statement.value)
        if not isinstance(value, ast.Name):
            return None
        defs = nested.get(value.id)
        if defs is None:
            effects.add(("returns", value.id))
            continue
        for inner in defs:
            copies = _copied(inner, node)
            effects.add(("nested", copies, ast.unparse(inner.args),
                         None if inner.returns is None else ast.unparse(inner.returns),
                         decorator_effect(inner)))
        if len(effects) > 1 and len({e[:2] for e in effects}) == 1 and all(e[1] for e in effects):
            # Wrappers defined in two branches that copy the same function: what they take apart
            # from that does not reach callers, who meet the copied signature.
            effects = {min(effects, key=repr)}
    return effects.pop() if len(effects) == 1 else None


def _uncast(value):
    """x for typing.cast(T, x), else value."""
    if isinstance(value, ast.Call) and len(value.args) == 2 and (dotted(value.func) or [""])[-1] == "cast":
        return value.args[1]
    return value


def _own_statements(statements) -> list:
    """Every statement of a body, through its compound statements but not into nested functions
    or classes (cheap: a summary is made of every def, so the blocks are walked with a list of
    them to do rather than a generator per block)."""
    found = []
    blocks = [statements]
    while blocks:
        for statement in blocks.pop():
            found.append(statement)
            if not isinstance(statement, _NOT_OWN):
                for field in ("body", "orelse", "finalbody"):
                    block = getattr(statement, field, None)
                    if block:
                        blocks.append(block)
                for handler in getattr(statement, "handlers", ()):
                    blocks.append(handler.body)
                for case in getattr(statement, "cases", ()):
                    blocks.append(case.body)
    return found


def _copied(inner, outer):
    """The dotted text of what the nested def `inner` copies the signature of: `@wraps(X)` on it,
    or `update_wrapper(inner, X)` / `inner = wraps(X)(inner)` in the body around it; None."""
    for decorator in inner.decorator_list:
        if isinstance(decorator, ast.Call) and decorator_name(decorator) == "wraps" and decorator.args:
            return ast.unparse(decorator.args[0])
    for statement in _own_statements(outer.body):
        for call in ast.walk(statement) if isinstance(statement, (ast.Expr, ast.Assign, ast.Return)) else ():
            if not isinstance(call, ast.Call):
                continue
            name = (dotted(call.func) or [""])[-1]
            if name == "update_wrapper" and len(call.args) >= 2 and _is_name(call.args[0], inner.name):
                return ast.unparse(call.args[1])
            if (isinstance(call.func, ast.Call) and decorator_name(call.func) == "wraps" and call.func.args
                    and call.args and _is_name(call.args[0], inner.name)):
                return ast.unparse(call.func.args[0])
    return None


def _is_name(node, name):
    return isinstance(node, ast.Name) and node.id == name


def decorator_name(node):
    if isinstance(node, ast.Call):
        node = node.func
    parts = dotted(node)
    return parts[-1] if parts else None


def literal_strings(node):
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        names = []
        for element in node.elts:
            if not (isinstance(element, ast.Constant) and isinstance(element.value, str)):
                return None
            names.append(element.value)
        return names
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = literal_strings(node.left), literal_strings(node.right)
        if left is not None and right is not None:
            return left + right
    return None


def is_namespace_call(node):
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("globals", "vars", "locals") and not node.args)


def is_main_guard(test):
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
            and test.left.id == "__name__" and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq) and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


def is_type_checking(test):
    parts = dotted(test)
    return parts is not None and parts[-1] == "TYPE_CHECKING"
