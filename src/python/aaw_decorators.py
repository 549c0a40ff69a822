"""The decorator model: what the decorators on a def do to the signature callers meet, decided
the way inspect.signature would see the decorated object, and what a name made by calling a
function (`alias = make_alias("alias", f)`, `take = curry(take)`) is.

Each decorator, innermost first, either keeps the signature (functools.wraps of the function it
is given, a known library decorator, one returning its argument), replaces it (a wrapper without
functools.wraps: its own parameters; wraps() of another function: that function's), or cannot be
followed: then the state is *unverified*: ok with the signature read so far and the reason, never
a plain ok (docs/design.md, "Decorators"). A mixin of the resolver's Session (aaw_resolver.py),
as aaw_classes.ClassRules is.
Pure standard library, Python 3.9+.
"""

import ast

import aaw_bindings
import aaw_digest
import aaw_model
import aaw_signature
from aaw_nodes import NameRef, first_positional
from aaw_values import ClassValue, Computed, Function, Instance, NotFound, Outside

# Decorators known to keep the decorated function's signature, by their last name (the standard
# library's and typing's; handled elsewhere: staticmethod, classmethod, property). inspect follows
# __wrapped__ through every one that wraps.
KEEPING = frozenset({"staticmethod", "classmethod", "property", "cached_property", "setter", "getter", "deleter",
                     "lru_cache", "cache", "overload", "abstractmethod", "final", "override", "contextmanager",
                     "asynccontextmanager", "deprecated", "no_type_check", "singledispatch", "total_ordering",
                     "runtime_checkable", "unique", "abstractproperty", "abstractclassmethod",
                     "abstractstaticmethod", "dataclass_transform", "type_check_only"})

# Decorators of other packages known to keep the signature (they use functools.wraps), by full name.
KEEPING_OUTSIDE = frozenset({"torch.no_grad", "torch.inference_mode", "torch.enable_grad", "torch.compiler.disable",
                             "torch._dynamo.disable", "torch.jit.ignore", "torch.jit.unused",
                             "torch.autograd.grad_mode.no_grad", "torch.autograd.profiler.record_function"})


class DecoratorRules:
    """Needs of the host class: member(module, name, before), attribute(value, name),
    _final_state(value, path), _decorator_value(value, parts), _with_default_referents(state,
    value), tree."""

    def _decorated(self, value, drop_first, note=None):
        """The state callers meet for Function `value`: its def's signature passed through its
        decorators, innermost first; its first parameter dropped when `drop_first` (a method
        reached through an instance, a classmethod)."""
        definition = value.definition
        state = self._with_default_referents(aaw_signature.ok(definition, drop_first=False, note=note), value)
        for (parts, called), arguments in zip(reversed(definition.decorator_parts),
                                              reversed(definition.decorator_arguments or
                                                       [None] * len(definition.decorator_parts))):
            if parts is not None and parts[-1] in KEEPING:
                continue
            state = self._through(value, parts, called, arguments, state)
            if state.get("status") != "ok":
                return state
        if drop_first:
            state = aaw_signature.dropped_first(state, definition.name)
        return state

    def _through(self, value, parts, called, arguments, state):
        """`state` after the decorator `parts` (called with `arguments` when `called`)."""
        if parts is None:
            return _unverified(state, "decorated with an expression the resolver does not follow")
        name = "@" + ".".join(parts) + ("(...)" if called else "")
        decorator = self._decorator_value(value, parts)
        if isinstance(decorator, Outside):
            if decorator.name in KEEPING_OUTSIDE:
                return state
            if decorator.name in ("functools.wraps", "functools.update_wrapper") and called:
                return self._copied_from_argument(value, arguments, name, state)
            return _unverified(state, "decorated with %s, defined outside the repository (%s): what callers meet "
                                      "is whatever it returns" % (name, decorator.name))
        if isinstance(decorator, ClassValue):
            return self._instance_of(decorator, name, called, value, state)
        if not isinstance(decorator, Function):
            why = getattr(decorator, "detail", None) or type(decorator).__name__
            return _unverified(state, "decorated with %s, which the resolver cannot follow: %s" % (name, why))
        if decorator.definition.name == aaw_bindings.STUB_DECORATOR and called:
            # aiter's stubs: what callers meet is the stub's own signature, forwarded to the
            # compiled binding read beside it (aaw_bindings; docs/bindings.md).
            return state
        self.tree.ask(decorator.module, aaw_digest.body_of(decorator.definition.name))
        where = "%s (%s:%d)" % (name, decorator.path, decorator.definition.line)
        effect = decorator.definition.effect
        if called:
            if effect is None or effect[0] != "nested" or effect[4] is None:
                return _unverified(state, "decorated with %s, a decorator factory whose result the resolver "
                                          "cannot follow" % where)
            inner_first = first_positional(_arguments(effect[2]))
            bound = _bound_arguments(decorator.definition.args, arguments)
            return self._effect(effect[4], inner_first, bound, decorator, value, where, state)
        return self._effect(effect, first_positional(decorator.definition.args), {}, decorator, value, where,
                            state)

    def _instance_of(self, decorator, name, called, value, state):
        """`state` after `@name`, a class of the repository: the function is replaced by an
        instance of ClassValue `decorator`, whose signature inspect reads from its class's __call__
        when nothing gives the instance one of its own (aaw_classes' _instance_call). When the
        class may (it copies the function's with update_wrapper, sets __signature__, ...) or the
        decorator is called (`@C(...)`: what the instance returns replaces the function), the
        def's signature is kept, unverified."""
        replaced = "decorated with %s: an instance of class %s (%s:%d) replaces the function" % (
            name, decorator.cls.name, decorator.module.path, decorator.cls.line)
        if called:
            return _unverified(state, replaced)
        made = self._instance_call(decorator, "%s on '%s' (%s:%d)" % (name, value.definition.name,
                                                                     value.module.path, value.definition.line))
        if isinstance(made, NotFound) and self._is_method_descriptor(decorator):
            return aaw_signature.failed(made.status, made.detail)
        if not isinstance(made, Computed) or made.unverified:
            return _unverified(state, replaced)
        return aaw_signature.with_parameters(made.parameters, made.returns,
                                             "%s; callers meet its __call__ (nothing gives the instance a "
                                             "__signature__ or __wrapped__ of its own)" % replaced)

    def _effect(self, effect, given, bound, decorator, value, where, state):
        """`state` through a decorator whose body does `effect` to its parameter `given`; `bound`
        maps the names of a factory's parameters to the arguments of its call."""
        if effect is None:
            return _unverified(state, "decorated with %s, whose result the resolver cannot follow" % where)
        if effect[0] == "returns":
            return state if effect[1] == given else _unverified(
                state, "decorated with %s, which returns something else than the function" % where)
        copies = effect[1]
        if copies is None:
            # A wrapper without functools.wraps: inspect gives its own parameters. When those are
            # only (*args, **kwargs), what binds a call is still the function it forwards to
            # (aiter's torch_compile_guard registers an op with the def's schema): that is kept,
            # flagged, since inspect disagrees.
            arguments = _arguments(effect[2])
            if arguments.vararg and arguments.kwarg and not (arguments.posonlyargs or arguments.args or
                                                             arguments.kwonlyargs):
                return _unverified(state, "decorated with %s, which returns a (%s) wrapper without "
                                          "functools.wraps: inspect shows that; this is the signature of the "
                                          "function it forwards to" % (where, effect[2]))
            parameters = aaw_signature.parameters_of(arguments)
            return aaw_signature.with_parameters(parameters, effect[3],
                                                 "decorated with %s, which returns a new function without "
                                                 "functools.wraps: callers meet its parameters" % where)
        if copies == given:
            return state
        argument = bound.get(copies)
        if isinstance(argument, NameRef):
            target = self.member(value.module, argument.text, value.read_before)
        elif copies.isidentifier() and copies not in bound:
            target = self.member(decorator.module, copies, None)
        else:
            return _unverified(state, "decorated with %s, which copies the signature of %s" % (where, copies))
        return self._copy_of(target, copies, where, state)

    def _copied_from_argument(self, value, arguments, name, state):
        """@functools.wraps(X) on the def itself: callers meet X's signature."""
        if arguments and arguments[0] and isinstance(arguments[0][0], NameRef):
            target = self.member(value.module, arguments[0][0].text, value.definition.index)
            return self._copy_of(target, arguments[0][0].text, name, state)
        return _unverified(state, "decorated with %s of an expression" % name)

    def _copy_of(self, target, text, where, state):
        copied = self._final_state(target, text)
        if copied.get("status") != "ok":
            return _unverified(state, "decorated with %s, which copies the signature of %s: %s"
                               % (where, text, copied.get("detail", copied.get("status"))))
        copied = dict(copied)
        copied["detail"] = "decorated with %s: the signature of %s" % (where, text)
        return copied

    def _frame_writer(self, module, scope):
        """'@name (path:line)' of a decorator of the repository on a def of `scope` that reaches
        its caller's frame (f_locals / f_globals): it may define names Python finds and the
        resolver cannot see. None when there is none."""
        for bound in scope.bindings.values():
            for _, binding in bound:
                if not isinstance(binding, aaw_model.Def):
                    continue
                for parts, _ in binding.decorator_parts:
                    if parts is None or parts[-1] in KEEPING:
                        continue
                    decorator = self._decorator_value(Function(binding, module), parts)
                    if not isinstance(decorator, Function):
                        continue
                    self.tree.ask(decorator.module, aaw_digest.body_of(decorator.definition.name))
                    if decorator.definition.writes_frames:
                        return "@%s (%s:%d)" % (".".join(parts), decorator.path, decorator.definition.line)
        return None

    def _called_alias(self, module, binding, name, lookup=None):
        """What `name = f(args)` (aaw_model.CallAlias) is: when f, defined in the repository,
        returns one of its arguments or a function copying one's signature, that argument; when
        it cannot be followed, the signature of the function it is given, unverified (a Computed);
        for a class of the repository given no function, its Instance; None when no
        argument is a function the resolver finds. `lookup(bare name)` finds the names the
        statement uses (a class body sees its own earlier names first)."""
        if lookup is None:
            def lookup(bare):
                return self.member(module, bare, binding.index)
        callee = lookup(binding.callee[0])
        for attribute in binding.callee[1:]:
            callee = self.attribute(callee, attribute)
        functions = []  # (text, value) of each argument that is a function or class it finds
        for argument in list(binding.positional) + list(binding.keywords.values()):
            if isinstance(argument, NameRef):
                target = lookup(argument.text)
                if isinstance(target, (Function, ClassValue)):
                    functions.append((argument.text, target))
        if isinstance(callee, ClassValue) and not functions:
            # An instance of a class of the repository given no function to wrap: what calling it
            # takes is its __call__'s (a class given one may copy it: update_wrapper(self, f)).
            return Instance(callee, "'%s = %s(...)' at %s:%d" % (name, ".".join(binding.callee), module.path,
                                                               binding.line))
        if isinstance(callee, Function):
            self.tree.ask(callee.module, aaw_digest.body_of(callee.definition.name))
            effect = callee.definition.effect
            given = effect[1] if effect is not None and effect[0] in ("returns", "nested") else None
            argument = _bound_arguments(callee.definition.args, (binding.positional, binding.keywords)).get(given)
            if isinstance(argument, NameRef):
                return lookup(argument.text)
        for text, target in functions:
            state = self._final_state(target, text)
            if state.get("status") == "ok":
                why = state.get("unverified") or (
                    "'%s' is made by calling %s(...) at %s:%d, which the resolver cannot follow; this is the "
                    "signature of its argument %s" % (name, ".".join(binding.callee), module.path, binding.line, text))
                return Computed.from_state(state, state.get("detail"), why)
        return None


def _unverified(state, why):
    if state.get("status") != "ok" or state.get("unverified"):
        return state
    state = dict(state)
    state["unverified"] = why
    return state


def _arguments(text):
    """The ast.arguments of a parameter list's source text."""
    return ast.parse("def _(%s): pass" % text).body[0].args


def _bound_arguments(parameters, arguments):
    """{parameter name: argument} of a call with `arguments` ((positional, {keyword: value}) or
    None) to a def with `parameters` (ast.arguments)."""
    if not arguments:
        return {}
    positional, keywords = arguments
    names = [a.arg for a in parameters.posonlyargs + parameters.args]
    bound = dict(zip(names, positional))
    bound.update(keywords)
    return bound
