"""The decorator model (aaw_decorators.py): each rule on a synthetic package, checked against what
Python itself says: the package is also written to disk, imported, and read with
inspect.signature. A state is either right (the same parameter names, kinds and defaults) or
flagged unverified; never a plain ok that Python contradicts."""

import importlib
import inspect
import itertools
import os
import sys
import tempfile
import unittest

import aaw_summary
from test_rules import names, resolve

_PACKAGES = itertools.count()


def runtime_shape(files, function_path):
    """[(name, kind, default repr or None)] of `pkg.<function_path>` as inspect.signature gives it,
    the files written under a fresh package name."""
    name = "aawdeco%d" % next(_PACKAGES)
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            target = os.path.join(root, path.replace("pkg/", name + "/", 1))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w") as f:
                f.write(text.replace("from pkg", "from " + name))
        sys.path.insert(0, root)
        try:
            value = importlib.import_module(name)
            for part in function_path.split("."):
                value = getattr(value, part)
            signature = inspect.signature(value)
        finally:
            sys.path.remove(root)
    return [(p.name, p.kind.name, None if p.default is p.empty else repr(p.default))
            for p in signature.parameters.values()]


def static_shape(state):
    return [(p["name"], p["kind"], p["default"]) for p in state["signature"]["parameters"]]


class DecoratorModelTest(unittest.TestCase):
    def setUp(self):
        aaw_summary.clear_cache()

    def judge(self, files, path):
        """The static state of pkg.<path>, asserted to agree with Python unless unverified."""
        state = resolve(files, "import pkg", "pkg." + path)
        self.assertEqual(state["status"], "ok", state)
        if "unverified" not in state:
            self.assertEqual(static_shape(state), runtime_shape(files, path), state)
        return state

    def test_a_wrapper_with_wraps_keeps_the_signature(self):
        files = {"pkg/__init__.py": "import functools\n"
                                    "def logged(f):\n    @functools.wraps(f)\n    def inner(*a, **k):\n"
                                    "        return f(*a, **k)\n    return inner\n"
                                    "@logged\ndef f(x, y=2): pass\n"}
        self.assertNotIn("unverified", self.judge(files, "f"))

    def test_update_wrapper_after_the_def_keeps_it_too(self):
        files = {"pkg/__init__.py": "import functools\n"
                                    "def logged(f):\n    def inner(*a, **k):\n        return f(*a, **k)\n"
                                    "    functools.update_wrapper(inner, f)\n    return inner\n"
                                    "@logged\ndef f(x, *, y=2): pass\n"}
        self.assertNotIn("unverified", self.judge(files, "f"))

    def test_a_wrapper_without_wraps_is_its_own_parameters(self):
        files = {"pkg/__init__.py": "def loose(f):\n    def inner(a, *rest, flag=False):\n        return f(a)\n"
                                    "    return inner\n@loose\ndef f(x, y): pass\n"}
        state = self.judge(files, "f")
        self.assertEqual([p["name"] for p in state["signature"]["parameters"]], ["a", "rest", "flag"])
        self.assertIn("@loose", state["detail"])

    def test_a_factory_is_followed_to_the_decorator_it_returns(self):
        files = {"pkg/__init__.py": "import functools\n"
                                    "def retry(times, delay=0):\n    def deco(fn):\n"
                                    "        @functools.wraps(fn)\n        def call(*a, **k):\n"
                                    "            return fn(*a, **k)\n        return call\n    return deco\n"
                                    "def register(name):\n    def deco(fn):\n        return fn\n    return deco\n"
                                    "@retry(3)\ndef f(x, y=1): pass\n@register('g')\ndef g(z): pass\n"}
        self.assertNotIn("unverified", self.judge(files, "f"))
        self.assertNotIn("unverified", self.judge(files, "g"))

    def test_wraps_of_a_factorys_argument_is_that_functions_signature(self):
        # pyparsing's style: @alias_of(one_of) def oneOf(): ... is one_of's signature.
        files = {"pkg/__init__.py": "from functools import wraps\n"
                                    "def alias_of(target):\n    def deco(stub):\n        @wraps(target)\n"
                                    "        def call(*a, **k):\n            return target(*a, **k)\n"
                                    "        return call\n    return deco\n"
                                    "def one_of(strs, caseless=False, *, as_keyword=False): pass\n"
                                    "@alias_of(one_of)\ndef oneOf(): pass\n"}
        state = self.judge(files, "oneOf")
        self.assertNotIn("unverified", state)
        self.assertEqual([p["name"] for p in state["signature"]["parameters"]], ["strs", "caseless", "as_keyword"])

    def test_wraps_on_the_def_itself_is_the_wrapped_functions_signature(self):
        files = {"pkg/__init__.py": "import functools\ndef base(a, b=3): pass\n"
                                    "@functools.wraps(base)\ndef f(*args, **kwargs): pass\n"}
        self.assertNotIn("unverified", self.judge(files, "f"))

    def test_a_decorator_class_is_unverified(self):
        # networkx's style: an instance replaces the function and computes __signature__.
        files = {"pkg/__init__.py": "import inspect\n"
                                    "class dispatch:\n    def __init__(self, f):\n        self.f = f\n"
                                    "    @property\n    def __signature__(self):\n"
                                    "        s = inspect.signature(self.f)\n"
                                    "        return s.replace(parameters=list(s.parameters.values()) + [\n"
                                    "            inspect.Parameter('backend', inspect.Parameter.KEYWORD_ONLY, "
                                    "default=None)])\n"
                                    "    def __call__(self, *a, **k):\n        return self.f(*a, **k)\n"
                                    "@dispatch\ndef f(G, weight=None): pass\n"}
        state = self.judge(files, "f")
        self.assertIn("instance of class dispatch", state["unverified"])

    def test_a_decorator_class_that_gives_its_instance_no_signature_is_its_call(self):
        # toolz's early curry: the instance keeps the function in an attribute and inspect, finding
        # no __wrapped__ or __signature__ on it, reads __call__. What only pickling runs does not count.
        files = {"pkg/__init__.py": "class curry(object):\n    def __init__(self, func, *args, **kwargs):\n"
                                    "        self.func = func\n        self.__doc__ = func.__doc__\n"
                                    "    def __call__(self, *args, **_kwargs):\n        return self.func(*args)\n"
                                    "    def __setstate__(self, state):\n        self.__dict__.update(state)\n"
                                    "@curry\ndef memoize(func, cache=None, key=None): pass\n"}
        state = self.judge(files, "memoize")
        self.assertNotIn("unverified", state)
        self.assertEqual([p[0] for p in static_shape(state)], ["args", "_kwargs"])
        self.assertIn("callers meet its __call__", state["detail"])

    def test_a_decorator_class_that_may_give_its_instance_a_signature_is_unverified(self):
        head = "import functools, inspect\n"
        call = "    def __call__(self, *a, **k):\n        return self.f(*a, **k)\n"
        tail = "@deco\ndef f(x, y=1): pass\n"
        ways = {"update_wrapper": "    def __init__(self, f):\n        self.f = f\n"
                                  "        functools.update_wrapper(self, f)\n",
                "__signature__": "    def __init__(self, f):\n        self.f = f\n"
                                 "        self.__signature__ = inspect.signature(f)\n",
                "setattr": "    def __init__(self, f):\n        self.f = f\n"
                           "        self.setup(f)\n    def setup(self, f):\n"
                           "        setattr(self, '__wrapped__', f)\n",
                "__getattr__": "    def __init__(self, f):\n        self.f = f\n"
                               "    def __getattr__(self, name):\n        return getattr(self.f, name)\n"}
        for why, body in ways.items():
            with self.subTest(why):
                files = {"pkg/__init__.py": head + "class deco:\n" + body + call + tail}
                state = self.judge(files, "f")
                self.assertIn("unverified", state)
                self.assertEqual([p[0] for p in static_shape(state)], ["x", "y"])
        # Called (@deco(...)): what the instance returns replaces the function.
        files = {"pkg/__init__.py": "class deco:\n    def __init__(self, n): pass\n"
                                    "    def __call__(self, f):\n        return f\n@deco(3)\ndef f(x): pass\n"}
        self.assertIn("unverified", self.judge(files, "f"))

    def test_a_decorator_class_with_get_and_no_set_has_no_signature_inspect_reads(self):
        # inspect takes such an instance for a method descriptor, a built-in, and finds no signature.
        files = {"pkg/__init__.py": "class curry:\n    def __init__(self, f):\n        self.f = f\n"
                                    "    def __call__(self, *a, **k): pass\n"
                                    "    def __get__(self, instance, owner):\n        return self\n"
                                    "@curry\ndef f(x): pass\n"
                                    "class settable(curry):\n    def __set__(self, instance, value): pass\n"
                                    "@settable\ndef g(x): pass\n"}
        state = resolve(files, "import pkg", "pkg.f")
        self.assertEqual(state["status"], "unresolved", state)
        self.assertIn("method descriptor", state["detail"])
        with self.assertRaises(ValueError):
            runtime_shape(files, "f")
        self.assertNotIn("unverified", self.judge(files, "g"))

    def test_a_decorator_of_another_package_is_unverified_unless_known(self):
        files = {"pkg/__init__.py": "import functools, contextlib\nimport somelib\n"
                                    "@somelib.memoize\ndef f(x): pass\n"
                                    "@functools.lru_cache(maxsize=None)\ndef g(x): pass\n"
                                    "@contextlib.contextmanager\ndef h(x):\n    yield x\n"}
        state = resolve(files, "import pkg", "pkg.f")
        self.assertIn("somelib.memoize", state["unverified"])
        self.assertNotIn("unverified", self.judge(dict(files, **{"pkg/__init__.py": files["pkg/__init__.py"].replace(
            "import somelib\n@somelib.memoize\ndef f(x): pass\n", "")}), "g"))
        self.assertNotIn("unverified", resolve(files, "import pkg", "pkg.h"))

    def test_a_decorator_returning_something_else_is_unverified(self):
        files = {"pkg/__init__.py": "REGISTRY = {}\n"
                                    "def odd(f):\n    return REGISTRY.setdefault(f.__name__, lambda *a: f(*a))\n"
                                    "@odd\ndef f(x): pass\n"}
        self.assertIn("@odd", self.judge(files, "f")["unverified"])

    def test_decorators_apply_innermost_first(self):
        # An outer wrapper without wraps hides what the inner unverified decorator did.
        files = {"pkg/__init__.py": "import somelib\n"
                                    "def loose(f):\n    def inner(q):\n        return f(q)\n    return inner\n"
                                    "@loose\n@somelib.jit\ndef f(x): pass\n"
                                    "@somelib.jit\n@loose\ndef g(x): pass\n"}
        state = resolve(files, "import pkg", "pkg.f")
        self.assertEqual(([p["name"] for p in state["signature"]["parameters"]], "unverified" in state),
                         (["q"], False))
        self.assertIn("somelib.jit", resolve(files, "import pkg", "pkg.g")["unverified"])

    def test_a_decorated_method_drops_self_after_the_decorators(self):
        files = {"pkg/__init__.py": "def loose(f):\n    def inner(self, q, r=1):\n        return f(self, q)\n"
                                    "    return inner\n"
                                    "class K:\n    @loose\n    def m(self, x): pass\n"
                                    "    @classmethod\n    @loose\n    def c(cls, x): pass\n"}
        self.assertNotIn("unverified", self.judge(files, "K.m"))
        self.assertEqual([p["name"] for p in resolve(files, "import pkg", "pkg.K.c")["signature"]["parameters"]],
                         ["q", "r"])


class CallAliasTest(unittest.TestCase):
    def setUp(self):
        aaw_summary.clear_cache()

    def judge(self, files, path):
        return DecoratorModelTest.judge(self, files, path)

    def test_an_alias_made_by_a_function_copying_its_argument_is_that_argument(self):
        # pyparsing's replaced_by_pep8("replaceWith", replace_with): a wraps(fn) wrapper, defined
        # in two branches, returned through typing.cast.
        files = {"pkg/__init__.py": "from functools import wraps\nfrom typing import cast\n"
                                    "def pep8(compat_name, fn):\n    fn = getattr(fn, '__func__', fn)\n"
                                    "    if compat_name:\n        @wraps(fn)\n        def _inner(self, *a, **k):\n"
                                    "            return fn(self, *a, **k)\n    else:\n        @wraps(fn)\n"
                                    "        def _inner(*a, **k):\n            return fn(*a, **k)\n"
                                    "    return cast(object, _inner)\n"
                                    "def replace_with(repl_str, *, count=1): pass\n"
                                    "replaceWith = pep8('replaceWith', replace_with)\n"}
        state = self.judge(files, "replaceWith")
        self.assertNotIn("unverified", state)
        self.assertEqual([p["name"] for p in state["signature"]["parameters"]], ["repl_str", "count"])

    def test_an_alias_made_by_a_call_in_a_class_body_finds_the_classs_own_names(self):
        # pyparsing's ParserElement: parseString = replaced_by_pep8("parseString", parse_string).
        files = {"pkg/__init__.py": "from functools import wraps\n"
                                    "def pep8(compat_name, fn):\n    @wraps(fn)\n    def _inner(*a, **k):\n"
                                    "        return fn(*a, **k)\n    return _inner\n"
                                    "class P:\n    def parse_string(self, instring, parse_all=False): pass\n"
                                    "    parseString = pep8('parseString', parse_string)\n"}
        state = self.judge(files, "P.parseString")
        self.assertNotIn("unverified", state)
        self.assertEqual([p["name"] for p in state["signature"]["parameters"]], ["self", "instring", "parse_all"])

    def test_a_staticmethod_of_an_alias_made_by_a_call_is_that_alias(self):
        # pyparsing's enablePackrat = staticmethod(replaced_by_pep8("enablePackrat", enable_packrat)).
        files = {"pkg/__init__.py": "from functools import wraps\n"
                                    "def pep8(compat_name, fn):\n    @wraps(fn)\n    def _inner(*a, **k):\n"
                                    "        return fn(*a, **k)\n    return _inner\n"
                                    "class P:\n    @staticmethod\n    def enable_packrat(cache_size=128, *, force=False): "
                                    "pass\n"
                                    "    enablePackrat = staticmethod(pep8('enablePackrat', enable_packrat))\n"}
        state = self.judge(files, "P.enablePackrat")
        self.assertNotIn("unverified", state)
        self.assertEqual([p["name"] for p in state["signature"]["parameters"]], ["cache_size", "force"])

    def test_an_alias_made_by_a_function_returning_its_argument_is_that_argument(self):
        files = {"pkg/__init__.py": "def export(name, f):\n    return f\ndef g(a, b=1): pass\nh = export('h', g)\n"}
        self.assertNotIn("unverified", self.judge(files, "h"))

    def test_an_alias_made_by_a_call_the_resolver_cannot_follow_is_unverified(self):
        # toolz's style: take = curry(take), curry a class computing its own __signature__.
        files = {"pkg/__init__.py": "class curry:\n    def __init__(self, f):\n        self.f = f\n"
                                    "    def __call__(self, *a, **k):\n        return self.f(*a, **k)\n"
                                    "def take(n, seq): pass\ntake = curry(take)\n"
                                    "def drop(n, seq): pass\ndropper = curry(drop)\n"}
        for name in ("take", "dropper"):
            state = resolve(files, "import pkg", "pkg." + name)
            self.assertEqual([p["name"] for p in state["signature"]["parameters"]], ["n", "seq"])
            self.assertIn("curry(...)", state["unverified"])

    def test_a_call_given_no_function_stays_unresolved(self):
        files = {"pkg/__init__.py": "def make(n):\n    return lambda: n\nLIMIT = 3\nf = make(LIMIT)\n"}
        self.assertEqual(resolve(files, "import pkg", "pkg.f")["status"], "unresolved")


class InstancesAndGeneratedConstructorsTest(unittest.TestCase):
    def setUp(self):
        aaw_summary.clear_cache()

    def judge(self, files, path):
        return DecoratorModelTest.judge(self, files, path)

    def test_a_class_decorator_that_may_write_the_constructor_leaves_it_unverified(self):
        # attrs 15.0's shape: @_add_methods writes __init__ with exec; the body says ().
        files = {"pkg/__init__.py": "from .make import add_methods\nimport functools\n"
                                    "@add_methods(['type_'])\nclass InstanceOf:\n    pass\n"
                                    "@functools.total_ordering\nclass Version:\n"
                                    "    def __init__(self, major): pass\n    def __lt__(self, other): pass\n",
                 "pkg/make.py": "def add_methods(names):\n    def wrap(cl):\n"
                                "        namespace = {}\n"
                                "        exec('def __init__(self, %s): pass' % ', '.join(names), namespace)\n"
                                "        cl.__init__ = namespace['__init__']\n        return cl\n    return wrap\n"}
        self.assertEqual(runtime_shape(files, "InstanceOf"), [("type_", "POSITIONAL_OR_KEYWORD", None)])
        state = resolve(files, "import pkg", "pkg.InstanceOf")
        self.assertEqual(names(state), [])
        self.assertIn("is decorated with @add_methods, which may replace its constructor", state.get("unverified", ""))
        # A decorator known to keep the constructor leaves it vouched for.
        self.assertNotIn("unverified", resolve(files, "import pkg", "pkg.Version"))

    def test_a_protocol_class_without_a_constructor_of_its_own_takes_anything(self):
        # attrs' AttrsInstance(Protocol): typing gives it an __init__ of its own.
        files = {"pkg/__init__.py": "import typing\nfrom typing import Protocol\n"
                                    "class P(Protocol):\n    def f(self): ...\n"
                                    "class C(P):\n    pass\n"
                                    "class D(typing.Protocol):\n    def __init__(self, a): pass\n"
                                    "class Plain:\n    pass\n"}
        for path in ("P", "C", "D", "Plain"):
            expected = runtime_shape(files, path)
            state = resolve(files, "import pkg", "pkg." + path)
            self.assertEqual([(p["name"], p["kind"], p["default"]) for p in state["signature"]["parameters"]],
                             expected, path)

    def test_a_callable_instance_is_its_classs_call_without_self(self):
        # tenacity's stop_never = _stop_never(); render = Renderer(option).
        files = {"pkg/__init__.py": "class _Never:\n    def __call__(self, retry_state, *, why=None): pass\n"
                                    "never = _Never()\n"
                                    "class Renderer:\n    def __init__(self, option): pass\n"
                                    "    def __call__(self, text): pass\n"
                                    "render = Renderer(3)\n"}
        self.assertNotIn("unverified", self.judge(files, "never"))
        self.assertNotIn("unverified", self.judge(files, "render"))

    def test_a_method_of_a_module_level_instance_is_bound_to_it(self):
        # aiter's tgemm = TunedGemm(); vLLM calls tgemm.mm(x, weight, bias).
        files = {"pkg/__init__.py": "class Base:\n    def scale(self, x, factor=2): pass\n"
                                    "class TunedGemm(Base):\n    def __init__(self):\n        self.save = 0\n"
                                    "    def mm(self, inp, weights, bias=None, *, otype=None): pass\n"
                                    "    @staticmethod\n    def pick(m, n): pass\n"
                                    "    @classmethod\n    def load(cls, path): pass\n"
                                    "tgemm = TunedGemm()\n"}
        for path, expected in (("tgemm.mm", ["inp", "weights", "bias", "otype"]), ("tgemm.scale", ["x", "factor"]),
                               ("tgemm.pick", ["m", "n"]), ("tgemm.load", ["path"])):
            with self.subTest(path):
                state = self.judge(files, path)
                self.assertNotIn("unverified", state)
                self.assertEqual([p[0] for p in static_shape(state)], expected)
        self.assertEqual(resolve(files, "import pkg", "pkg.tgemm.gone")["status"], "missing")

    def test_an_instance_attribute_its_methods_may_set_is_not_its_classs(self):
        files = {"pkg/__init__.py": "import torch\n"
                                    "def fast(a): pass\n"
                                    "class Gemm:\n    def __init__(self):\n        self.mm = fast\n"
                                    "    def mm(self, a, b): pass\n"
                                    "    def other(self, a): pass\n"
                                    "g = Gemm()\n"
                                    "class Lazy:\n    def __getattr__(self, name):\n        return fast\n"
                                    "lazy = Lazy()\n"
                                    "class Module(torch.nn.Module):\n    def forward(self, x): pass\n"
                                    "m = Module()\n"}
        state = resolve(files, "import pkg", "pkg.g.mm")
        self.assertEqual(state["status"], "unresolved", state)
        self.assertIn("Gemm.__init__", state["detail"])
        self.assertNotIn("unverified", resolve(files, "import pkg", "pkg.g.other"))
        state = resolve(files, "import pkg", "pkg.lazy.anything")
        self.assertEqual(state["status"], "unresolved", state)
        self.assertIn("__getattr__", state["detail"])
        state = resolve(files, "import pkg", "pkg.m.forward")
        self.assertEqual([p["name"] for p in state["signature"]["parameters"]], ["x"])
        self.assertIn("torch.nn.Module", state["unverified"])

    def test_a_method_of_a_dict_list_or_set_display_is_the_built_in_ones(self):
        # aiter's d_dtypes = {name: globals()[name] for name in aiter_dtypes}; vLLM calls d_dtypes.get.
        files = {"pkg/__init__.py": "names = ['a', 'b']\nd_dtypes = {name: len(name) for name in names}\n"
                                    "order = [1, 2]\nseen = {1}\nTABLE = {'x': 1}\n"
                                    "def f(table=TABLE): pass\n"}
        self.assertEqual(static_shape(self.judge(files, "d_dtypes.get")), runtime_shape(files, "d_dtypes.get"))
        self.judge(files, "order.index")
        state = resolve(files, "import pkg", "pkg.seen.add")  # no signature inspect can read, there either
        self.assertEqual(state["status"], "unresolved")
        self.assertNotIn(" at 0x", state["detail"])
        with self.assertRaises(ValueError):
            runtime_shape(files, "seen.add")
        self.assertIn("a dict, not a function", resolve(files, "import pkg", "pkg.d_dtypes")["detail"])
        self.assertEqual(resolve(files, "import pkg", "pkg.d_dtypes.nothing")["status"], "missing")
        table = resolve(files, "import pkg", "pkg.f")["signature"]["parameters"][0]
        self.assertEqual(table["default_refers_to"], "= {'x': 1}")

    def test_an_instance_of_a_class_given_a_metaclass_by_six_is_judged_by_that_metaclass(self):
        # tenacity's @six.add_metaclass(abc.ABCMeta) class stop_base; stop_never = _stop_never().
        files = {"pkg/__init__.py": "import abc\nimport six\n"
                                    "@six.add_metaclass(abc.ABCMeta)\nclass stop_base(object):\n"
                                    "    def __call__(self, retry_state): pass\n"
                                    "class _stop_never(stop_base):\n    pass\n"
                                    "stop_never = _stop_never()\n"
                                    "class Meta(type):\n    def __call__(cls, *a): return len\n"
                                    "@six.add_metaclass(Meta)\nclass odd_base(object):\n"
                                    "    def __call__(self, x): pass\n"
                                    "class _odd(odd_base):\n    pass\n"
                                    "odd = _odd()\n"}
        self.assertNotIn("unverified", resolve(files, "import pkg", "pkg.stop_never"))
        self.assertIn("metaclass Meta", resolve(files, "import pkg", "pkg.odd")["unverified"])

    def test_an_instance_given_a_wrapped_function_by_its_constructor_is_unverified(self):
        files = {"pkg/__init__.py": "import functools\ndef base(a, b): pass\n"
                                    "class Renderer:\n    def __init__(self, option):\n"
                                    "        self.__wrapped__ = base\n"
                                    "    def __call__(self, text): pass\n"
                                    "render = Renderer(3)\n"}
        state = self.judge(files, "render")
        self.assertIn("Renderer.__init__", state["unverified"])

    def test_an_instance_whose_class_may_give_another_signature_is_unverified(self):
        files = {"pkg/__init__.py": "import inspect\n"
                                    "class Sig:\n    __signature__ = inspect.Signature()\n"
                                    "    def __call__(self, a): pass\n"
                                    "s = Sig()\n"
                                    "class Plain:\n    pass\n"
                                    "p = Plain()\n"}
        self.assertIn("__signature__", self.judge(files, "s")["unverified"])
        state = resolve(files, "import pkg", "pkg.p")
        self.assertEqual(state["status"], "unresolved")
        self.assertIn("no __call__", state["detail"])

    def test_a_method_inherited_from_a_built_in_base_is_the_built_ins(self):
        # pluggy's PluginValidationError(Exception) has no __init__: Class.__init__ is BaseException's.
        files = {"pkg/__init__.py": "class PluginValidationError(Exception):\n    def __str__(self): return 'x'\n"
                                    "class Table(dict):\n    pass\n"
                                    "class Two(ValueError, KeyError):\n    pass\n"
                                    "class Cell:\n    pass\n"
                                    "t = Table()\n"}
        for path in ("PluginValidationError.__init__", "Table.get", "Table.__init__"):
            with self.subTest(path):
                state = self.judge(files, path)
                self.assertNotIn("unverified", state)
                self.assertIn("is built-in", state["detail"])
        self.assertEqual(resolve(files, "import pkg", "pkg.PluginValidationError.nothing")["status"], "missing")
        # Two built-in bases: which of their bases comes first is not read here.
        self.assertEqual(resolve(files, "import pkg", "pkg.Two.__str__")["status"], "unresolved")
        # Through an instance the built-in's method is bound: not followed.
        self.assertEqual(resolve(files, "import pkg", "pkg.t.get")["status"], "unresolved")

    def test_a_named_tuple_is_built_from_its_fields(self):
        files = {"pkg/__init__.py": "import typing\nfrom typing import NamedTuple, ClassVar\n"
                                    "class Point(NamedTuple):\n    x: int\n    y: int = 0\n"
                                    "    label: 'str' = 'p'\n    def norm(self): pass\n"
                                    "class Pair(typing.NamedTuple):\n    a: str\n"}
        self.assertEqual([p[0] for p in static_shape(self.judge(files, "Point"))], ["x", "y", "label"])
        self.judge(files, "Pair")

    def test_what_type_gives_every_class_is_not_missing(self):
        # Retrying.__call__ with no __call__ in the class: Python finds type.__call__.
        files = {"pkg/__init__.py": "class Retrying:\n    def __init__(self, stop=None): pass\n"}
        state = resolve(files, "import pkg", "pkg.Retrying.__call__")
        self.assertEqual(state["status"], "unresolved")
        self.assertIn("metaclass", state["detail"])
        self.assertEqual(resolve(files, "import pkg", "pkg.Retrying.wait")["status"], "missing")


# pkg/util.py of a decorator that writes an alias into its caller's namespace through
# inspect.currentframe().f_back.f_locals (pyparsing's replaces_prePEP8_function).
_CAMEL_ALIAS = ("import inspect\n"
                "def camel(alias):\n    def deco(f):\n"
                "        inspect.currentframe().f_back.f_locals[alias] = f\n"
                "        return f\n    return deco\n")


class NamesWrittenByCodeTest(unittest.TestCase):
    def setUp(self):
        aaw_summary.clear_cache()

    def test_a_decorator_writing_its_callers_namespace_makes_a_name_unresolved_not_missing(self):
        # An alias written through inspect.currentframe().f_back.f_locals: Python finds camelName.
        files = {"pkg/__init__.py": "from .util import camel\n@camel('camelName')\ndef camel_name(a): pass\n",
                 "pkg/util.py": _CAMEL_ALIAS}
        self.assertEqual(runtime_shape(files, "camelName"), [("a", "POSITIONAL_OR_KEYWORD", None)])
        state = resolve(files, "import pkg", "pkg.camelName")
        self.assertEqual(state["status"], "unresolved")
        self.assertIn("@camel (pkg/util.py:2)", state["detail"])
        self.assertEqual(resolve(files, "import pkg", "pkg.camel_name")["status"], "ok")

    def test_what_such_a_decorator_writes_is_found_through_a_star_import_and_in_a_class_body(self):
        # pyparsing 3.0's shape: @replaces_prePEP8_function("countedArray") in helpers.py, exported
        # by the package's `from .helpers import *`, and on methods, where it writes into the class.
        files = {"pkg/__init__.py": "from .helpers import *\nfrom .core import Element\n",
                 "pkg/util.py": _CAMEL_ALIAS,
                 "pkg/helpers.py": "from .util import camel\n@camel('countedArray')\ndef counted_array(expr): pass\n",
                 "pkg/core.py": "from .util import camel\nclass Base:\n"
                                "    @camel('setDebug')\n    def set_debug(self, flag=True): pass\n"
                                "class Element(Base):\n    pass\n"}
        self.assertEqual(runtime_shape(files, "countedArray"), [("expr", "POSITIONAL_OR_KEYWORD", None)])
        self.assertEqual(runtime_shape(files, "Element.setDebug"),
                         [("self", "POSITIONAL_OR_KEYWORD", None), ("flag", "POSITIONAL_OR_KEYWORD", "True")])
        for path in ("pkg.countedArray", "pkg.Element.setDebug"):
            state = resolve(files, "import pkg", path)
            self.assertEqual(state["status"], "unresolved", path)
            self.assertIn("@camel (pkg/util.py:2) writes into its caller's namespace", state["detail"])
        # A name no decorator can have written is missing as before.
        self.assertEqual(resolve(files, "import pkg", "pkg._private")["status"], "missing")
        files["pkg/helpers.py"] = "__all__ = ['counted_array']\n" + files["pkg/helpers.py"]
        self.assertEqual(resolve(files, "import pkg", "pkg.countedArray")["status"], "missing",
                         "__all__ leaves it out of the star import")

    def test_a_getattr_answering_a_fixed_set_proves_other_names_missing(self):
        files = {"pkg/__init__.py": "def __getattr__(name):\n    \"\"\"Old names.\"\"\"\n"
                                    "    if name in ('old_f', 'older_f'):\n        from .m import f\n"
                                    "        return f\n"
                                    "    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')\n",
                 "pkg/m.py": "def f(a): pass\n"}
        self.assertEqual(resolve(files, "import pkg", "pkg.old_f")["status"], "ok")
        state = resolve(files, "import pkg", "pkg.g")
        self.assertEqual(state["status"], "missing")
        self.assertIn("raises AttributeError for every name but old_f, older_f", state["detail"])
        opened = dict(files, **{"pkg/__init__.py": files["pkg/__init__.py"].replace(
            "    raise AttributeError", "    return globals().get(name)\n    raise AttributeError")})
        self.assertEqual(resolve(opened, "import pkg", "pkg.g")["status"], "unresolved")


class DefaultsByWhatTheyNameTest(unittest.TestCase):
    def setUp(self):
        aaw_summary.clear_cache()

    def referents(self, files, path):
        state = resolve(files, "import pkg", "pkg." + path)
        return {p["name"]: p.get("default_refers_to") for p in state["signature"]["parameters"]}

    def test_a_name_default_carries_what_it_refers_to(self):
        files = {"pkg/__init__.py": "import time\nfrom . import _utils\ndefault_clock = time.monotonic\n"
                                    "MAX_LIMIT = 10\n"
                                    "def f(clock=default_clock, limit=MAX_LIMIT, other=time.monotonic, n=3, "
                                    "w=_utils.MAX_WAIT, key=len, d=None): pass\n",
                 "pkg/_utils.py": "import sys\nMAX_WAIT = sys.maxsize / 2\n"}
        self.assertEqual(self.referents(files, "f"),
                         {"clock": "time.monotonic", "limit": "= 10", "other": "time.monotonic", "n": None,
                          "w": "= sys.maxsize / 2", "key": "builtins.len", "d": None})

    def test_a_methods_default_is_read_in_its_class_body_first(self):
        files = {"pkg/__init__.py": "LIMIT = 1\nclass K:\n    LIMIT = 2\n"
                                    "    def m(self, a=LIMIT): pass\n"
                                    "def g(b=LIMIT): pass\n"}
        self.assertEqual(self.referents(files, "K.m")["a"], "= 2")
        ctor = {"pkg/__init__.py": "LIMIT = 1\nclass W:\n    def __init__(self, m=LIMIT): pass\n"}
        self.assertEqual(self.referents(ctor, "W")["m"], "= 1")  # a constructor's, through __init__
        self.assertEqual(self.referents(files, "g")["b"], "= 1")


if __name__ == "__main__":
    unittest.main()
