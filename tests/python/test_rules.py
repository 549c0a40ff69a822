"""The resolution rules of issue 10: source roots, import-hook redirects, inheritance, Python's own
rules (loaded submodules, functools.partial, name mangling, decorators), on dict trees."""

import unittest

import aaw_static
import aaw_summary
from dict_host import DictHost


def resolve(files, import_statement, function_path, **options):
    host = DictHost(files)
    args = {"functions": [{"import_statement": import_statement, "function_path": function_path}]}
    args.update(options)
    [entry] = aaw_static.resolve_all(args, host)
    return entry["state"]


def names(state):
    assert state["status"] == "ok", state
    return [p["name"] for p in state["signature"]["parameters"]]


def shape(state):
    assert state["status"] == "ok", state
    return [(p["name"], p["kind"], p["default"]) for p in state["signature"]["parameters"]]


class SourceRootsTest(unittest.TestCase):
    def setUp(self):
        aaw_summary.clear_cache()

    def test_a_src_layout_is_found(self):
        files = {"src/pkg/__init__.py": "from .core import f\n", "src/pkg/core.py": "def f(a, b=1): pass\n",
                 "tests/test_x.py": "import pkg\n"}
        self.assertEqual(names(resolve(files, "import pkg", "pkg.f")), ["a", "b"])
        self.assertEqual(names(resolve(files, "from pkg.core import f", "f")), ["a", "b"])

    def test_the_root_wins_over_src_as_an_unconfigured_checkout_would(self):
        files = {"pkg/__init__.py": "def f(a): pass\n", "src/pkg/__init__.py": "def f(b): pass\n"}
        self.assertEqual(names(resolve(files, "import pkg", "pkg.f")), ["a"])

    def test_declared_package_dirs_are_searched(self):
        body = {"lib/python/pkg/__init__.py": "def f(x): pass\n"}
        for name, text in [
                ("pyproject.toml", '[tool.setuptools]\npackage-dir = {"" = "lib/python"}\n'),
                ("pyproject.toml", '[tool.setuptools.packages.find]\nwhere = ["lib/python"]\n'),
                ("pyproject.toml", '[tool.hatch.build.targets.wheel]\npackages = ["lib/python/pkg"]\n'),
                ("setup.cfg", "[options]\npackage_dir =\n    =lib/python\n"),
                ("setup.py", "from setuptools import setup, find_packages\n"
                             "setup(packages=find_packages('lib/python'), package_dir={'': 'lib/python'})\n"),
                ("setup.py", "from setuptools import setup\nsetup(package_dir={'': 'lib/python'})\n"),
                ("setup.py", "import setuptools as s\ns.setup(packages=s.find_namespace_packages(where='lib/python'))\n"),
                # Python folds identifiers to NFKC: a text that is not ASCII is parsed to be read.
                ("setup.py", "import setuptools as s\ns.setup(packages=s.\uff46ind_packages('lib/python'))\n")]:
            with self.subTest(name=name, text=text):
                self.assertEqual(names(resolve(dict(body, **{name: text}), "import pkg", "pkg.f")), ["x"])

    def test_a_packaging_file_is_read_once_for_every_function_and_commit(self):
        # Every function that meets an outside module (torch) asks the packaging files where
        # packages live: setup.py is read once per blob, not once per function and commit.
        files = {"pkg/__init__.py": "import torch\nfrom .m import *\n", "pkg/m.py": "def f(a): pass\ndef g(b): pass\n",
                 "setup.py": "from setuptools import setup\nsetup(name='pkg')\n"}
        host = DictHost(files)
        setup_blob = host.find_blob("setup.py")
        functions = [{"import_statement": "import pkg", "function_path": "pkg.f"},
                     {"import_statement": "import pkg", "function_path": "pkg.g"},
                     {"import_statement": "import torch", "function_path": "torch.zeros"}]
        for _ in range(3):
            aaw_static.resolve_all({"functions": functions}, host)
        self.assertEqual(host.reads.count(setup_blob), 1)

    def test_a_packaging_file_edit_that_keeps_its_roots_keeps_its_digest(self):
        # The star import after f is looked at first: torch is looked for in every root.
        files = {"pkg/__init__.py": "def f(a): pass\nfrom torch import *\n",
                 "setup.py": "from setuptools import setup\nsetup(name='pkg', version='1.0')\n"}
        host = DictHost(files)
        result = aaw_static.resolve_all({"functions": [{"import_statement": "import pkg", "function_path": "pkg.f"}]},
                                        host)[0]
        probe = next(entry for entry in result["consulted"] if entry["path"] == "setup.py")
        self.assertIsNotNone(probe["digest"])
        digest_of = lambda text: aaw_static.module_digests(
            {"queries": [{"blob": DictHost.blob_id(text), "names": probe["names"]}]}, host)[0]
        host.write("setup.py", "from setuptools import setup\nsetup(name='pkg', version='1.1')\n")
        self.assertEqual(digest_of(host.files["setup.py"]), probe["digest"])
        host.write("setup.py", "from setuptools import setup\nsetup(name='pkg', package_dir={'': 'lib'})\n")
        self.assertNotEqual(digest_of(host.files["setup.py"]), probe["digest"])

    def test_configured_roots_replace_the_search(self):
        files = {"pkg/__init__.py": "def f(a): pass\n", "vendor/pkg/__init__.py": "def f(v): pass\n"}
        self.assertEqual(names(resolve(files, "import pkg", "pkg.f", source_roots=["vendor"])), ["v"])

    def test_a_package_gone_from_every_root_is_unresolved_not_missing(self):
        state = resolve({"README.md": "moved\n"}, "import pkg", "pkg.f")
        self.assertEqual(state["status"], "unresolved")
        self.assertIn("package 'pkg' not found in the tree", state["detail"])

    def test_a_module_gone_from_a_package_that_is_there_is_missing(self):
        state = resolve({"pkg/__init__.py": ""}, "from pkg.gone import f", "f")
        self.assertEqual(state["status"], "missing")


AITER_LIKE = {
    "aiter/__init__.py": "",
    "aiter/ops/__init__.py": "",
    "aiter/ops/triton/__init__.py": (
        "import importlib, sys, types\n"
        "_BACKWARD_COMPAT_MAP = {'gemm_a16w16': 'gemm.basic.gemm_a16w16', 'mha': 'attention.mha'}\n"
        "def __getattr__(name):\n"
        "    if name in _BACKWARD_COMPAT_MAP:\n"
        "        return importlib.import_module(f'{__name__}.{_BACKWARD_COMPAT_MAP[name]}')\n"
        "    raise AttributeError(name)\n"
        "def _backward_compat_find_spec(fullname, path, target=None):\n"
        "    name = fullname.rsplit('.', 1)[-1]\n"
        "    if name in _BACKWARD_COMPAT_MAP:\n"
        "        return importlib.util.find_spec(__name__ + '.' + _BACKWARD_COMPAT_MAP[name])\n"
        "sys.meta_path.insert(0, types.SimpleNamespace(find_spec=_backward_compat_find_spec))\n"),
    "aiter/ops/triton/gemm/__init__.py": "",
    "aiter/ops/triton/gemm/basic/__init__.py": "",
    "aiter/ops/triton/gemm/basic/gemm_a16w16.py": "def gemm_a16w16(x, w, bias=None, dtype=None): pass\n",
    "aiter/ops/triton/attention/__init__.py": "",
    "aiter/ops/triton/attention/mha.py": "def flash_attn_func(q, k, v, causal=False): pass\n",
}


class ImportHookTest(unittest.TestCase):
    def setUp(self):
        aaw_summary.clear_cache()

    def test_legacy_paths_follow_the_hook_map(self):
        old = resolve(AITER_LIKE, "from aiter.ops.triton.gemm_a16w16 import gemm_a16w16", "gemm_a16w16")
        new = resolve(AITER_LIKE, "from aiter.ops.triton.gemm.basic.gemm_a16w16 import gemm_a16w16", "gemm_a16w16")
        self.assertEqual(old, new)
        self.assertEqual(names(resolve(AITER_LIKE, "import aiter.ops.triton.mha as m", "m.flash_attn_func")),
                         ["q", "k", "v", "causal"])

    def test_submodules_of_a_redirected_package_are_found_where_it_really_is(self):
        files = dict(AITER_LIKE)
        files["aiter/ops/triton/__init__.py"] = files["aiter/ops/triton/__init__.py"].replace(
            "'mha': 'attention.mha'", "'mha': 'attention.mha', 'moe_routing': 'moe.moe_routing'")
        files["aiter/ops/triton/moe/moe_routing/routing.py"] = "def routing(logits, n_expts_act): pass\n"
        state = resolve(files, "from aiter.ops.triton.moe_routing.routing import routing", "routing")
        self.assertEqual(names(state), ["logits", "n_expts_act"])

    def test_a_name_a_readable_hook_map_lacks_is_missing(self):
        state = resolve(AITER_LIKE, "from aiter.ops.triton.not_there import f", "f")
        self.assertEqual(state["status"], "missing")

    def test_a_name_the_hook_may_provide_but_we_cannot_read_is_unresolved(self):
        files = dict(AITER_LIKE)
        files["aiter/ops/triton/__init__.py"] = ("import sys\nfrom ._hooks import Finder\n"
                                                 "sys.meta_path.insert(0, Finder())\n")
        state = resolve(files, "from aiter.ops.triton.gemm_a16w16 import gemm_a16w16", "gemm_a16w16")
        self.assertEqual(state["status"], "unresolved")
        self.assertIn("sys.meta_path", state["detail"])

    def test_configured_module_aliases(self):
        files = {"pkg/__init__.py": "", "pkg/new.py": "def f(a): pass\n"}
        state = resolve(files, "from pkg.old import f", "f", module_aliases={"pkg.old": "pkg.new"})
        self.assertEqual(names(state), ["a"])

    def test_simple_module_getattr_shims_are_followed(self):
        files = {"pkg/__init__.py": "def __getattr__(name):\n    if name == 'f':\n"
                                    "        from ._impl import f\n        return f\n    raise AttributeError(name)\n",
                 "pkg/_impl.py": "def f(a, b): pass\n"}
        self.assertEqual(names(resolve(files, "import pkg", "pkg.f")), ["a", "b"])


    def test_a_getattr_that_warns_before_its_cases_still_proves_other_names_missing(self):
        # click 8.1's shape: `import warnings` and a warning inside the case, then AttributeError.
        files = {"pkg/__init__.py": "def f(a): pass\n"
                                    "def __getattr__(name):\n    import warnings\n"
                                    "    if name == 'old':\n        warnings.warn('old', DeprecationWarning)\n"
                                    "        return f\n    raise AttributeError(name)\n"}
        self.assertEqual(resolve(files, "import pkg", "pkg.gone")["status"], "missing")
        self.assertEqual(resolve(files, "import pkg", "pkg.old")["status"], "unresolved")  # a case it answers

    def test_a_getattr_that_rebinds_its_argument_or_returns_before_its_cases_may_answer_anything(self):
        for before in ("    name = _ALIASES.get(name, name)\n", "    for x in ():\n        return x\n"):
            files = {"pkg/__init__.py": "_ALIASES = {}\ndef __getattr__(name):\n" + before +
                                        "    if name == 'old':\n        return 1\n    raise AttributeError(name)\n"}
            state = resolve(files, "import pkg", "pkg.gone")
            self.assertEqual(state["status"], "unresolved", before)
            self.assertIn("__getattr__", state["detail"])

    def test_a_getattr_bound_otherwise_than_by_a_def_may_answer_anything(self):
        # attrs 25's shape: a factory's closure, answering lazy submodules and raising otherwise.
        factory = ("import importlib, sys\n_LAZY = {'validators'}\n"
                   "def _make_getattr(mod_name):\n    def __getattr__(name):\n"
                   "        if name in _LAZY:\n            return importlib.import_module('.' + name, mod_name)\n"
                   "        raise AttributeError(name)\n    return __getattr__\n")
        for bound in ("__getattr__ = _make_getattr(__name__)\n", "from ._compat import __getattr__\n",
                      "def __getattr__(name):\n    raise AttributeError(name)\n"
                      "__getattr__ = _make_getattr(__name__)\n"):
            files = {"pkg/__init__.py": factory + bound, "pkg/_compat.py": factory + "__getattr__ = 1\n",
                     "pkg/validators.py": "def instance_of(type_): pass\n"}
            state = resolve(files, "import pkg", "pkg.validators.instance_of")
            self.assertEqual(state["status"], "unresolved", bound)
            self.assertIn("a module-level __getattr__", state["detail"])
            # What the module defines itself is read as ever.
            self.assertEqual(resolve(files, "import pkg", "pkg._make_getattr")["status"], "ok")
            self.assertEqual(names(resolve(files, "from pkg.validators import instance_of", "instance_of")),
                             ["type_"])


class ClassesTest(unittest.TestCase):
    def setUp(self):
        aaw_summary.clear_cache()

    def test_a_slot_is_a_member_whose_value_is_set_at_run_time(self):
        # pluggy's PluginManager.__slots__ held "hook" and "trace": PluginManager.hook exists.
        files = {"pkg/__init__.py": "class PM:\n    __slots__ = (\n        'trace',\n        'hook',\n    )\n"
                                    "    def __init__(self):\n        self.hook = 1\n"
                                    "    def register(self, plugin): pass\n"
                                    "class One:\n    __slots__ = 'only'\n"}
        for path in ("pkg.PM.hook", "pkg.PM.trace", "pkg.One.only"):
            state = resolve(files, "import pkg", path)
            self.assertEqual(state["status"], "unresolved", path)
            self.assertIn("a slot of __slots__", state["detail"])
        self.assertEqual(names(resolve(files, "import pkg", "pkg.PM.register")), ["self", "plugin"])
        self.assertEqual(resolve(files, "import pkg", "pkg.PM.regster")["status"], "missing")

    def test_inherited_methods_and_constructors_in_mro_order(self):
        files = {"pkg/__init__.py": "from .base import Base\n"
                                    "class Mixin:\n    def run(self, fast): pass\n"
                                    "class K(Mixin, Base):\n    pass\n",
                 "pkg/base.py": "class Base:\n    def __init__(self, n, m=2): pass\n    def run(self, slow): pass\n"
                                "    def stop(self): pass\n"}
        self.assertEqual(names(resolve(files, "import pkg", "pkg.K.run")), ["self", "fast"])
        self.assertEqual(names(resolve(files, "import pkg", "pkg.K.stop")), ["self"])
        self.assertEqual(names(resolve(files, "import pkg", "pkg.K")), ["n", "m"])
        self.assertEqual(resolve(files, "import pkg", "pkg.K.nothing")["status"], "missing")

    def test_inherited_new_comes_before_inherited_init_as_in_inspect(self):
        files = {"pkg/__init__.py": "class N:\n    def __new__(cls, *a, q=1): pass\n"
                                    "class D(N):\n    def __init__(self, y): pass\n"
                                    "class E(D):\n    pass\n"
                                    "class Plain:\n    pass\n"}
        self.assertEqual(names(resolve(files, "import pkg", "pkg.D")), ["y"])
        self.assertEqual(names(resolve(files, "import pkg", "pkg.E")), ["a", "q"])
        self.assertEqual(names(resolve(files, "import pkg", "pkg.Plain")), [])

    def test_a_base_outside_the_repository_leaves_what_it_may_hold_unresolved(self):
        files = {"pkg/__init__.py": "import torch\nclass M(torch.nn.Module):\n    def forward(self, x): pass\n"}
        self.assertEqual(names(resolve(files, "import pkg", "pkg.M.forward")), ["self", "x"])
        state = resolve(files, "import pkg", "pkg.M.to")
        self.assertEqual(state["status"], "unresolved")
        self.assertIn("torch.nn.Module", state["detail"])
        self.assertEqual(resolve(files, "import pkg", "pkg.M")["status"], "unresolved")

    def test_generic_and_abc_bases_add_nothing(self):
        files = {"pkg/__init__.py": "from typing import Generic, TypeVar\nfrom abc import ABC\nT = TypeVar('T')\n"
                                    "class Box(Generic[T], ABC):\n    def __init__(self, item): pass\n"}
        self.assertEqual(names(resolve(files, "import pkg", "pkg.Box")), ["item"])

    def test_dataclass_constructors_are_made_from_their_fields(self):
        files = {"pkg/__init__.py": "import dataclasses\nfrom typing import ClassVar\n"
                                    "@dataclasses.dataclass\nclass P:\n    x: int\n    y: int = 1\n"
                                    "    z: list = dataclasses.field(default_factory=list)\n"
                                    "    hidden: int = dataclasses.field(default=0, init=False)\n"
                                    "    count: ClassVar[int] = 0\n"
                                    "@dataclasses.dataclass(kw_only=True)\nclass Q(P):\n    w: str = 'a'\n"}
        self.assertEqual(shape(resolve(files, "import pkg", "pkg.P")),
                         [("x", "POSITIONAL_OR_KEYWORD", None), ("y", "POSITIONAL_OR_KEYWORD", "1"),
                          ("z", "POSITIONAL_OR_KEYWORD", "<factory>")])
        self.assertEqual([p[0] for p in shape(resolve(files, "import pkg", "pkg.Q"))], ["x", "y", "z", "w"])
        self.assertEqual(names(resolve(files, "import pkg", "pkg.P.__init__")), ["self", "x", "y", "z"])

    def test_attrs_constructors_are_made_from_their_attributes(self):
        files = {"pkg/__init__.py": "import attr\n@attr.s\nclass A:\n    _name = attr.ib()\n"
                                    "    size = attr.ib(default=3)\n    items = attr.ib(default=attr.Factory(list))\n"
                                    "@attr.define\nclass B:\n    a: int\n    b: str = 'x'\n"}
        self.assertEqual(shape(resolve(files, "import pkg", "pkg.A")),
                         [("name", "POSITIONAL_OR_KEYWORD", None), ("size", "POSITIONAL_OR_KEYWORD", "3"),
                          ("items", "POSITIONAL_OR_KEYWORD", "NOTHING")])
        self.assertEqual(names(resolve(files, "import pkg", "pkg.B")), ["a", "b"])

    def test_a_generated_constructor_with_fields_from_outside_stays_unresolved(self):
        files = {"pkg/__init__.py": "import dataclasses, other\n"
                                    "@dataclasses.dataclass\nclass P(other.Base):\n    x: int = 1\n"}
        state = resolve(files, "import pkg", "pkg.P")
        self.assertEqual(state["status"], "unresolved")
        self.assertIn("other.Base", state["detail"])

    def test_six_with_metaclass_bases_are_followed(self):
        files = {"pkg/__init__.py": "import abc\nfrom six import with_metaclass\n"
                                    "class Base(with_metaclass(abc.ABCMeta, object)):\n    def run(self, x): pass\n"
                                    "class K(Base):\n    pass\n"}
        self.assertEqual(names(resolve(files, "import pkg", "pkg.K.run")), ["self", "x"])

    def test_a_class_rebound_through_functions_that_return_it_is_the_class(self):
        files = {"pkg/__init__.py": "def _add_repr(cls, attrs=None):\n    cls.__repr__ = None\n    return cls\n"
                                    "def _other(cls):\n    return object()\n"
                                    "class K:\n    def __init__(self, a): pass\n"
                                    "K = _add_repr(_add_repr(K, attrs=1))\n"
                                    "class L:\n    def __init__(self, b): pass\n"
                                    "L = _other(L)\n"}
        self.assertEqual(names(resolve(files, "import pkg", "pkg.K")), ["a"])
        # _other returns something else: the class's own constructor, flagged as not vouched for.
        rebound = resolve(files, "import pkg", "pkg.L")
        self.assertEqual((names(rebound), rebound["status"]), (["b"], "ok"))
        self.assertIn("calling _other(...)", rebound["unverified"])
        self.assertNotIn("unverified", resolve(files, "import pkg", "pkg.K"))


class PythonRulesTest(unittest.TestCase):
    def setUp(self):
        aaw_summary.clear_cache()

    def test_a_submodule_nothing_imports_is_no_attribute(self):
        files = {"pkg/__init__.py": "", "pkg/sub.py": "def f(a): pass\n"}
        self.assertEqual(resolve(files, "import pkg", "pkg.sub.f")["status"], "missing")
        self.assertEqual(names(resolve(files, "import pkg.sub", "pkg.sub.f")), ["a"])
        loaded = dict(files, **{"pkg/__init__.py": "from .sub import f as _f\n"})
        self.assertEqual(names(resolve(loaded, "import pkg", "pkg.sub.f")), ["a"])
        self.assertEqual(names(resolve(files, "from pkg import sub", "sub.f")), ["a"])

    def test_functools_partial_of_a_repository_function(self):
        files = {"pkg/__init__.py": "import functools\nfrom functools import partial\n"
                                    "def f(a, b, c=5, d=6): pass\n"
                                    "g = functools.partial(f, 1, d=7)\nh = partial(f, b=2)\n"}
        self.assertEqual(shape(resolve(files, "import pkg", "pkg.g")),
                         [("b", "POSITIONAL_OR_KEYWORD", None), ("c", "POSITIONAL_OR_KEYWORD", "5"),
                          ("d", "KEYWORD_ONLY", "7")])
        self.assertEqual(shape(resolve(files, "import pkg", "pkg.h")),
                         [("a", "POSITIONAL_OR_KEYWORD", None), ("b", "KEYWORD_ONLY", "2"),
                          ("c", "KEYWORD_ONLY", "5"), ("d", "KEYWORD_ONLY", "6")])

    def test_a_partial_of_something_else_stays_unresolved(self):
        files = {"pkg/__init__.py": "def partial(f, *a): return f\ndef f(a): pass\ng = partial(f, 1)\n"}
        self.assertEqual(resolve(files, "import pkg", "pkg.g")["status"], "unresolved")

    def test_private_parameters_of_methods_are_mangled(self):
        files = {"pkg/__init__.py": "class _Runner:\n    def invoke(__self, __x, y): pass\n"}
        self.assertEqual(names(resolve(files, "import pkg", "pkg._Runner.invoke")), ["_Runner__self", "_Runner__x", "y"])

    def test_a_decorator_replacing_the_function_with_an_args_kwargs_wrapper_is_flagged(self):
        files = {"pkg/__init__.py": "import functools\n"
                                    "def loose(f):\n    def wrapper(*args, **kwargs):\n        return f(*args)\n"
                                    "    return wrapper\n"
                                    "def kept(f):\n    @functools.wraps(f)\n    def wrapper(*args, **kwargs):\n"
                                    "        return f(*args)\n    return wrapper\n"
                                    "@loose\ndef a(x): pass\n@kept\ndef b(x): pass\n"}
        state = resolve(files, "import pkg", "pkg.a")
        # inspect.signature gives (*args, **kwargs); what binds a call is still a's own signature.
        self.assertEqual(names(state), ["x"])
        self.assertIn("@loose", state["unverified"])
        self.assertNotIn("detail", resolve(files, "import pkg", "pkg.b"))
        self.assertEqual(names(resolve(files, "import pkg", "pkg.b")), ["x"])


if __name__ == "__main__":
    unittest.main()
