"""aaw_consumer: the imports of the package a consumer makes and the calls reached through them."""

import json
import os
import tempfile
import textwrap
import unittest
from unittest import mock

import aaw_consumer


def scan_source(text, relative_path, package):
    """The scan of one file's text: `text` written at `relative_path` in a consumer tree of its own."""
    with tempfile.TemporaryDirectory() as root:
        path = os.path.join(root, relative_path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        return aaw_consumer.discover({"path": root, "package": package})


def scan(text, package="aiter"):
    return scan_source(textwrap.dedent(text), "pkg/mod.py", package)


def sites(result, target):
    for entry in result["functions"] + result["classes"]:
        if entry.get("target") == target:
            return entry["call_sites"]
    raise AssertionError("no entry for %s in %s" % (target, [e.get("target") for e in result["functions"]]))


class ImportForms(unittest.TestCase):
    def test_module_alias_call_is_found_with_its_shape(self):
        result = scan("""
            import aiter as rocm_aiter
            def run(x, y):
                return rocm_aiter.topk_softmax(x, y, 1, 2, renormalize=True)
            """)
        [site] = sites(result, "aiter.topk_softmax")
        self.assertEqual(site["line"], 4)
        self.assertEqual(site["caller"], "run")
        self.assertEqual(site["positional"], 4)
        self.assertEqual(site["keywords"], ["renormalize"])
        self.assertEqual(site["import_statement"], "import aiter as rocm_aiter")
        self.assertEqual(site["function_path"], "rocm_aiter.topk_softmax")
        self.assertFalse(site["star_args"] or site["star_kwargs"])

    def test_lazy_from_import_with_alias_inside_a_method(self):
        result = scan("""
            class Ops:
                @staticmethod
                def gemm(a, b):
                    from aiter.ops.triton.gemm_a16w16 import gemm_a16w16 as g
                    return g(a, b, dtype=None)
            def elsewhere(a):
                return g(a)
            """)
        [site] = sites(result, "aiter.ops.triton.gemm_a16w16.gemm_a16w16")
        self.assertEqual(site["caller"], "Ops.gemm")
        self.assertEqual(site["import_statement"], "from aiter.ops.triton.gemm_a16w16 import gemm_a16w16 as g")
        self.assertEqual(site["function_path"], "g")

    def test_dotted_import_and_submodule_alias(self):
        result = scan("""
            import aiter.ops.mha
            import aiter.fused_moe as fm
            def f(q):
                aiter.ops.mha.flash_attn_func(q)
                fm.fused_moe(q, q)
            """)
        self.assertEqual(sites(result, "aiter.ops.mha.flash_attn_func")[0]["function_path"], "aiter.ops.mha.flash_attn_func")
        self.assertEqual(sites(result, "aiter.fused_moe.fused_moe")[0]["positional"], 2)

    def test_other_packages_and_relative_imports_are_ignored(self):
        result = scan("""
            import torch
            from . import aiter
            from aiterx import f
            def g():
                aiter.f(); f(); torch.zeros(1)
            """)
        self.assertEqual(result["functions"], [])

    def test_a_parameter_or_a_rebinding_hides_an_imported_name(self):
        result = scan("""
            from aiter import fused_moe, topk
            def f(fused_moe):
                return fused_moe(1)
            def g():
                topk = make()
                return topk(1)
            def h():
                return fused_moe(2)
            """)
        self.assertEqual([s["caller"] for s in sites(result, "aiter.fused_moe")], ["h"])
        self.assertEqual([e["target"] for e in result["functions"]], ["aiter.fused_moe"])

    def test_type_checking_imports_are_not_calls(self):
        result = scan("""
            from typing import TYPE_CHECKING
            if TYPE_CHECKING:
                from aiter import fused_moe
            def g(x: "fused_moe"):
                return fused_moe(x)
            """)
        self.assertEqual(result["functions"], [])


class Guards(unittest.TestCase):
    def test_try_except_import_error_fallback_guards_the_import(self):
        result = scan("""
            try:
                from aiter.ops.triton.moe.moe_routing import routing
            except ImportError:
                from aiter.ops.triton.moe_routing import routing
            def f(x):
                return routing.routing_from_hash(x, 1)
            """)
        calls = sites(result, "aiter.ops.triton.moe.moe_routing.routing.routing_from_hash")
        self.assertEqual(calls[0]["guards"], ["import fallback"])
        self.assertEqual([f["name"] for f in result["fallbacks"]], ["aiter.ops.triton.moe_routing.routing"])
        self.assertEqual(result["imported_not_called"], [])

    def test_hasattr_probe_guards_the_calls_in_its_branch(self):
        result = scan("""
            import aiter
            def f(x):
                if hasattr(aiter, "new_op"):
                    return aiter.new_op(x)
                return aiter.old_op(x)
            """)
        self.assertEqual(sites(result, "aiter.new_op")[0]["guards"], ["hasattr probe"])
        self.assertEqual(sites(result, "aiter.old_op")[0]["guards"], [])

    def test_signature_probe_guards_calls_in_the_same_function(self):
        result = scan("""
            import inspect
            from aiter import mla_decode_fwd
            def f(q):
                if "causal" in inspect.signature(mla_decode_fwd).parameters:
                    pass
                mla_decode_fwd(q, causal=True)
            """)
        self.assertEqual(sites(result, "aiter.mla_decode_fwd")[0]["guards"], ["signature probe"])

    def test_an_import_fallback_inside_a_function_with_parameters(self):
        # A parameter is a binding that hides nothing imported (None): the fallback logic must
        # skip it (this crashed the scan of a vLLM-shaped tree).
        result = scan("""
            def f(x, layer):
                try:
                    import aiter
                except ImportError:
                    return None
                return aiter.op(x)
            """)
        [site] = sites(result, "aiter.op")
        self.assertEqual(site["caller"], "f")

    def test_a_site_names_the_line_of_its_import_and_whether_it_runs_at_module_level(self):
        result = scan("""
            from aiter.ops import f
            def g(x):
                from aiter import h
                f(x)
                return h(x)
            """)
        self.assertEqual([(s["import_line"], s["import_module_level"]) for s in sites(result, "aiter.ops.f")],
                         [(2, True)])
        self.assertEqual([(s["import_line"], s["import_module_level"]) for s in sites(result, "aiter.h")],
                         [(4, False)])

    def test_a_guard_around_a_def_does_not_guard_its_body(self):
        result = scan("""
            try:
                import aiter
                def f(x):
                    return aiter.op(x)
            except ImportError:
                pass
            """)
        self.assertEqual(sites(result, "aiter.op")[0]["guards"], ["import fallback"])


class HelperGuards(unittest.TestCase):
    """A branch decided by a helper of the file whose result comes from a probe of the package."""

    def guards(self, text, target):
        return [site["guards"] for site in sites(scan(text), target)]

    def test_a_helper_returning_a_signature_probe_guards_the_branch_it_decides(self):
        self.assertEqual(self.guards("""
            import inspect
            import aiter
            def takes_causal():
                return "causal" in inspect.signature(aiter.attn).parameters
            def f(q):
                if takes_causal():
                    return aiter.attn(q, causal=True)
                return aiter.attn(q)
            def g(q):
                return aiter.attn(q, causal=True)
            """, "aiter.attn"), [["signature probe in takes_causal()"], [], []])

    def test_a_helper_defined_after_its_caller_through_a_local_name(self):
        self.assertEqual(self.guards("""
            import inspect
            from aiter import attn
            def f(q):
                if new_api():
                    attn(q, causal=True)
            def new_api():
                parameters = inspect.signature(attn).parameters
                return "causal" in parameters
            """, "aiter.attn"), [["signature probe in new_api()"]])

    def test_methods_called_through_self_cls_and_the_class_and_a_chain_of_helpers(self):
        result = scan("""
            import aiter
            class Ops:
                @staticmethod
                def has_fused():
                    return hasattr(aiter, "fused")
                @classmethod
                def fused_enabled(cls):
                    return cls.has_fused() and ENABLED
                def run(self, x):
                    if self.fused_enabled():
                        return aiter.fused(x)
            def outside(x):
                if Ops.has_fused():
                    aiter.fused(x, 2)
            """)
        self.assertEqual([s["guards"] for s in sites(result, "aiter.fused")],
                         [["hasattr probe in Ops.fused_enabled()"], ["hasattr probe in Ops.has_fused()"]])

    def test_a_try_import_helper_and_a_module_level_flag(self):
        result = scan("""
            import aiter
            def have_gluon():
                try:
                    from aiter.ops.triton.gluon import mla_gluon  # noqa
                    return True
                except ImportError:
                    return False
            HAS_NEW = hasattr(aiter, "new_op")
            def f(x):
                if have_gluon():
                    aiter.ops.triton.gluon.mla_gluon(x)
                if HAS_NEW and x:
                    aiter.new_op(x)
            """)
        self.assertEqual(sites(result, "aiter.ops.triton.gluon.mla_gluon")[0]["guards"],
                         ["import probe in have_gluon()"])
        self.assertEqual(sites(result, "aiter.new_op")[0]["guards"], ["hasattr probe in HAS_NEW"])

    def test_an_attribute_of_self_assigned_a_probe(self):
        self.assertEqual(self.guards("""
            import inspect, aiter
            class Layer:
                def __init__(self):
                    self.fused = "bias" in inspect.signature(aiter.fused).parameters
                    self.other = compute()
                def forward(self, x):
                    if self.fused:
                        aiter.fused(x, bias=1)
                    if self.other:
                        aiter.fused(x)
            """, "aiter.fused"), [["signature probe in self.fused"], []])

    def test_helpers_that_do_not_return_a_probe_guard_nothing(self):
        self.assertEqual(self.guards("""
            import aiter, os
            def probes_but_returns_something_else():
                hasattr(aiter, "x")
                return os.environ.get("X") == "1"
            def probes_something_else():
                return hasattr(os, "fork")
            def recursive():
                return recursive()
            def f(x):
                if probes_but_returns_something_else():
                    aiter.x(x)
                if probes_something_else() or recursive():
                    aiter.x(x, 1)
                def later():
                    return aiter.x(x, 2)
            """, "aiter.x"), [[], [], []])


class Indirect(unittest.TestCase):
    def test_stored_reference_on_self_is_indirect(self):
        result = scan("""
            import aiter
            class Layer:
                def __init__(self):
                    self.fn = aiter.fused_moe
                def forward(self, x):
                    return self.fn(x, 1)
            """)
        [site] = sites(result, "aiter.fused_moe")
        self.assertEqual(site["caller"], "Layer.forward")
        self.assertEqual(site["indirect"], "reached through 'self.fn'")

    def test_the_entry_names_the_function_as_a_direct_call_writes_it(self):
        result = scan_source(textwrap.dedent("""
            import aiter
            import aiter as ra
            class L:
                def __init__(self):
                    self.fn = aiter.topk
                def f(self, a):
                    self.fn(a)
            def g(a):
                return ra.topk(a)
            """), "m.py", "aiter")
        [entry] = result["functions"]
        self.assertEqual((entry["import_statement"], entry["function_path"]), ("import aiter as ra", "ra.topk"))

    def test_local_alias_is_indirect(self):
        result = scan("""
            from aiter.ops.triton.moe import moe_routing as mr
            def f(x):
                route = mr.routing
                return route(x)
            """)
        self.assertIn("local alias 'route'", sites(result, "aiter.ops.triton.moe.moe_routing.routing")[0]["indirect"])

    def test_star_arguments_are_recorded(self):
        result = scan("""
            from aiter.ops.mhc import mhc_pre
            def f(*args, **kwargs):
                return mhc_pre(*args, 1, k=2, **kwargs)
            """)
        [site] = sites(result, "aiter.ops.mhc.mhc_pre")
        self.assertEqual((site["positional"], site["keywords"], site["star_args"], site["star_kwargs"]),
                         (1, ["k"], True, True))

    def test_torch_ops_and_imports_of_computed_names_are_listed_apart(self):
        result = scan("""
            import importlib, torch
            def f(name):
                m = importlib.import_module(f"aiter.ops.{name}")
                torch.ops.aiter.rmsnorm(1, 2)
            """)
        whats = [d["what"] for d in result["dynamic"]]
        self.assertIn("importlib.import_module(f'aiter.ops.{name}')", whats)
        self.assertIn("call of torch.ops.aiter.rmsnorm", whats)

    def test_each_call_through_a_name_holding_torch_ops_is_listed(self):
        result = scan("""
            import torch
            class Sampler:
                def init(self):
                    self.ops = torch.ops.aiter
                def sample(self, p):
                    self.ops.top_k_renorm_probs(p, None, 3)
                    return self.ops.top_p_sampling_from_probs(p)
            """)
        self.assertEqual([d["what"] for d in result["dynamic"]],
                         ["call of torch.ops.aiter.top_k_renorm_probs (through self.ops.top_k_renorm_probs)",
                          "call of torch.ops.aiter.top_p_sampling_from_probs (through self.ops.top_p_sampling_from_probs)"])
        self.assertEqual(result["functions"], [])
        first = result["dynamic"][0]
        self.assertEqual(first["op"], "top_k_renorm_probs")
        self.assertEqual((first["site"]["positional"], first["site"]["indirect"], first["site"]["function_path"]),
                         (3, "through torch.ops.aiter.top_k_renorm_probs", "self.ops.top_k_renorm_probs"))

    def test_a_torch_op_called_by_its_overload_is_the_op(self):
        result = scan("""
            import torch
            def f(x):
                torch.ops.aiter.rms_norm.default(x, eps=1)
            """)
        [entry] = result["dynamic"]
        self.assertEqual((entry["op"], entry["site"]["keywords"]), ("rms_norm", ["eps"]))

    def test_a_find_spec_is_a_probe_not_a_dynamic_call(self):
        result = scan("""
            from importlib.util import find_spec
            HAS = find_spec("aiter") is not None
            """)
        self.assertEqual(result["dynamic"], [])


class Reached(unittest.TestCase):
    """Calls through names the consumer gives package functions: bound unless ambiguous."""

    def test_self_attribute_assigned_once_is_not_ambiguous(self):
        result = scan("""
            from aiter import unified_attention
            class Impl:
                def __init__(self):
                    self.unified_attention = unified_attention
                    self.other = None
                def forward(self, q):
                    self.unified_attention(q, softcap=1)
            """)
        [site] = sites(result, "aiter.unified_attention")
        self.assertIsNone(site["ambiguous"])
        self.assertEqual(site["indirect"], "reached through 'self.unified_attention'")

    def test_self_attribute_given_another_value_is_ambiguous(self):
        result = scan("""
            import functools, aiter
            class Impl:
                def __init__(self, fast):
                    self.fn = aiter.flash_attn_varlen_func
                    if not fast:
                        self.fn = functools.partial(aiter.flash_attn_varlen_func, causal=True)
                def forward(self, q):
                    self.fn(q)
            """)
        [site] = sites(result, "aiter.flash_attn_varlen_func")
        self.assertEqual(site["ambiguous"],
                         "'self.fn' is also assigned functools.partial(aiter.flash_attn_varlen_func, causal=True) "
                         "at line 7")

    def test_local_alias_set_in_two_branches_is_ambiguous_whichever_comes_last(self):
        result = scan("""
            import aiter
            def f(x, new):
                if new:
                    op = aiter.op_v2
                else:
                    op = aiter.op
                return op(x)
            """)
        [site] = sites(result, "aiter.op")
        self.assertEqual(site["ambiguous"], "'op' is also assigned aiter.op_v2 at line 5")

    def test_a_name_given_something_else_in_another_function_is_not_ambiguous(self):
        result = scan("""
            import aiter
            def f(x):
                op = aiter.op
                return op(x)
            def g(x):
                op = len
                return op(x)
            """)
        [site] = sites(result, "aiter.op")
        self.assertIsNone(site["ambiguous"])

    def test_a_function_a_helper_returns_is_called_through_it(self):
        result = scan("""
            import functools
            @functools.lru_cache(maxsize=1)
            def _get_gluon():
                try:
                    from aiter.ops.triton.gluon.mla_gluon import mla_gluon
                    return mla_gluon
                except ModuleNotFoundError:
                    from aiter.ops.triton.gluon.mla_decode_gluon import mla_decode_gluon
                    return mla_decode_gluon
            class Impl:
                def decode(self, q):
                    gluon = _get_gluon()
                    gluon(q_nope=q)
                    return _get_gluon()(q)
            """)
        through_alias, direct = sorted(sites(result, "aiter.ops.triton.gluon.mla_gluon.mla_gluon"),
                                       key=lambda s: s["line"])
        self.assertEqual((through_alias["keywords"], through_alias["indirect"]),
                         (["q_nope"], "reached through the local alias 'gluon'"))
        self.assertEqual(direct["indirect"], "returned by '_get_gluon()'")
        self.assertEqual([f["name"] for f in result["fallbacks"]],
                         ["aiter.ops.triton.gluon.mla_decode_gluon.mla_decode_gluon"])
        self.assertEqual(result["imported_not_called"], [])

    def test_a_helper_that_may_return_two_functions_makes_its_calls_ambiguous(self):
        result = scan("""
            import aiter
            def pick(new):
                if new:
                    return aiter.op_v2
                return aiter.op
            def f(x):
                pick(True)(x)
            """)
        [site] = sites(result, "aiter.op_v2")
        self.assertEqual(site["ambiguous"], "'pick()' may return aiter.op_v2 or aiter.op")

    def test_a_helper_that_returns_something_else_too_is_no_helper(self):
        result = scan("""
            import aiter
            def pick(new):
                if new:
                    return aiter.op
                return len
            def f(x):
                pick(True)(x)
            """)
        self.assertEqual(result["functions"], [])

    def test_importlib_of_a_literal_is_an_import(self):
        result = scan("""
            import importlib
            def f(x):
                m = importlib.import_module("aiter.ops.triton.mha")
                return m.flash_attn_func(x, causal=True)
            """)
        [site] = sites(result, "aiter.ops.triton.mha.flash_attn_func")
        self.assertEqual((site["import_statement"], site["function_path"]),
                         ("import aiter.ops.triton.mha", "aiter.ops.triton.mha.flash_attn_func"))
        self.assertEqual(result["dynamic"], [])

    def test_importlib_of_paths_a_find_spec_picks_checks_every_candidate(self):
        result = scan("""
            import importlib
            from importlib.util import find_spec
            def logits_module():
                path = None
                if find_spec("aiter.ops.triton.pa_mqa_logits") is not None:
                    path = "aiter.ops.triton.pa_mqa_logits"
                elif find_spec("aiter.ops.triton.attention.pa_mqa_logits") is not None:
                    path = "aiter.ops.triton.attention.pa_mqa_logits"
                if path is not None:
                    try:
                        module = importlib.import_module(path)
                        return module
                    except ImportError:
                        return None
                return None
            def run(q):
                module = logits_module()
                if module is not None:
                    fn = module.deepgemm_fp8_paged_mqa_logits
                    fn(q, ChunkK=256)
            """)
        for target in ("aiter.ops.triton.pa_mqa_logits.deepgemm_fp8_paged_mqa_logits",
                       "aiter.ops.triton.attention.pa_mqa_logits.deepgemm_fp8_paged_mqa_logits"):
            [site] = sites(result, target)
            self.assertEqual((site["keywords"], site["guards"]), (["ChunkK"], ["find_spec probe"]), target)
            self.assertIsNone(site["ambiguous"])
        self.assertEqual(result["dynamic"], [])


class Apart(unittest.TestCase):
    def test_modules_classes_and_constants_are_listed_apart_from_functions(self):
        result = scan("""
            from aiter import dtypes, ActivationType, QuantType
            from aiter.jit.core import AITER_CONFIGS
            import aiter
            def f(x):
                QuantType(3)
                return aiter.fused_moe(x, activation=ActivationType.Silu, dtype=dtypes.fp8, c=AITER_CONFIGS)
            """)
        self.assertEqual([e["target"] for e in result["functions"]], ["aiter.fused_moe"])
        self.assertIn("aiter.QuantType", [e.get("target") for e in result["classes"]])
        self.assertIn("aiter.ActivationType", [e.get("name") for e in result["classes"]])
        self.assertIn("aiter.dtypes", [e["name"] for e in result["modules"]])
        self.assertIn("aiter.jit.core.AITER_CONFIGS", [e["name"] for e in result["constants"]])

    def test_a_function_imported_but_never_called_is_listed_apart(self):
        result = scan("""
            from aiter.ops.flydsl.kernels.moe_gemm_2stage import compile_moe_gemm1, compile_moe_gemm2
            compile_moe_gemm1(a=1)
            """)
        self.assertEqual([e["name"] for e in result["imported_not_called"]],
                         ["aiter.ops.flydsl.kernels.moe_gemm_2stage.compile_moe_gemm2"])
        self.assertEqual(result["modules"], [])


class Exclude(unittest.TestCase):
    def test_excluded_directories_and_files_are_left_out_and_counted(self):
        with tempfile.TemporaryDirectory() as root:
            for relative in ("vllm/ops.py", "tests/test_ops.py", "benchmarks/kernels/b.py", "vllm/conftest.py",
                             "vllm/sub/conftest.py"):
                path = os.path.join(root, relative)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write("import aiter\naiter.op(1)\n")
            result = aaw_consumer.discover({"path": root, "package": "aiter",
                                            "exclude": ["tests", "benchmarks/*", "**/conftest.py"]})
            self.assertEqual([s["file"] for s in sites(result, "aiter.op")], ["vllm/ops.py"])
            self.assertEqual((result["files_scanned"], result["files_excluded"]), (1, 4))

    def test_paths_are_relative_to_the_checkout_whichever_directory_of_it_is_scanned(self):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, ".git"))
            os.makedirs(os.path.join(root, "vllm", "v1"))
            with open(os.path.join(root, "vllm", "v1", "ops.py"), "w", encoding="utf-8") as handle:
                handle.write("import aiter\naiter.op(1)\n")
            for scanned in (root, os.path.join(root, "vllm")):
                result = aaw_consumer.discover({"path": scanned, "package": "aiter"})
                self.assertEqual([s["file"] for s in sites(result, "aiter.op")], ["vllm/v1/ops.py"], scanned)

    def test_a_single_star_stays_within_a_directory(self):
        pattern = aaw_consumer._glob("vllm/*.py")
        self.assertTrue(pattern.fullmatch("vllm/a.py"))
        self.assertFalse(pattern.fullmatch("vllm/sub/a.py"))
        self.assertTrue(aaw_consumer._glob("**/a.py").fullmatch("a.py"))
        self.assertTrue(aaw_consumer._glob("vllm/**").fullmatch("vllm/sub/a.py"))


class Tree(unittest.TestCase):
    def test_discover_walks_a_directory_and_reports_bad_files(self):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "a", "__pycache__"))
            with open(os.path.join(root, "a", "x.py"), "w") as f:
                f.write("def g():\n    from aiter import rms_norm\n    rms_norm(1, 2, 3)\n")
            with open(os.path.join(root, "a", "bad.py"), "w") as f:
                f.write("import aiter\ndef (:\n")
            with open(os.path.join(root, "a", "__pycache__", "x.py"), "w") as f:
                f.write("import aiter\naiter.cached()\n")
            with open(os.path.join(root, "plain.py"), "w") as f:
                f.write("x = 1\n")
            result = aaw_consumer.discover({"path": root, "package": "aiter"})
        self.assertEqual(result["files_scanned"], 3)
        self.assertEqual(result["files_importing"], 1)
        self.assertEqual([e["target"] for e in result["functions"]], ["aiter.rms_norm"])
        self.assertEqual(result["functions"][0]["call_sites"][0]["file"], "a/x.py")
        self.assertEqual(result["errors"][0]["file"], "a/bad.py")
        self.assertIn("not valid Python", result["errors"][0]["error"])
        self.assertEqual(result["errors"][0]["line"], 2, "where it fails, for the check's 'not checked' line")

    def test_a_missing_directory_is_an_error_naming_it(self):
        with self.assertRaisesRegex(ValueError, "'/no/such/dir' is not a directory"):
            aaw_consumer.discover({"path": "/no/such/dir"})


class _CacheHost:
    """cache_get/cache_put over a dict, through JSON as the C++ side stores them; counts hits."""

    def __init__(self):
        self.store = {}
        self.hits = 0
        self.failing = False

    def cache_get(self, key):
        if self.failing:
            raise OSError("cache unreadable")
        if key in self.store:
            self.hits += 1
            return json.loads(self.store[key])
        return None

    def cache_put(self, key, value):
        if self.failing:
            raise OSError("cache unwritable")
        self.store[key] = json.dumps(value)


class CachedScan(unittest.TestCase):
    """A file scanned before (same path, same bytes) is taken from the host's cache: the scan is the
    same as without it, and nothing is parsed again."""

    _FILES = {
        "a/attn.py": """\
            import aiter as ra
            from aiter.ops import norm
            try:
                from aiter.new import topk
            except ImportError:
                from aiter.old import topk
            class Layer:
                def __init__(self):
                    self.fn = ra.flash_attn
                def forward(self, q):
                    alias = ra.ops.route
                    alias(q, 8, sm_first=True)
                    if hasattr(ra, "fused"):
                        ra.fused(q)
                    return self.fn(q, q, q, causal=True)
            def run(x):
                norm(x, 1, eps=2)
                topk(x, k=2)
                return ra.SomeClass(x).go(*x)
            """,
        "b/ops.py": """\
            import importlib
            import torch
            m = importlib.import_module("aiter.ops.sampling")
            def sample(p):
                torch.ops.aiter.top_k_sampling(p, 4)
                return m.top_p(p, 0.9)
            """,
        "b/broken.py": "import aiter\ndef (:\n",
        "c/plain.py": "x = 1\n",
    }

    def _scan(self, root, host):
        return aaw_consumer.discover({"path": root, "package": "aiter"}, host)

    def _tree(self, root):
        for relative, text in self._FILES.items():
            path = os.path.join(root, relative)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(textwrap.dedent(text))

    def test_a_second_scan_parses_nothing_and_finds_the_same(self):
        with tempfile.TemporaryDirectory() as root:
            self._tree(root)
            plain = self._scan(root, None)
            host = _CacheHost()
            first = self._scan(root, host)
            self.assertEqual(len(host.store), 3)  # the files naming the package, a broken one too
            with mock.patch.object(aaw_consumer.ast, "parse", side_effect=AssertionError("parsed")):
                second = self._scan(root, host)
        self.assertEqual(host.hits, 3)
        self.assertGreater(len(plain["functions"]), 4)
        self.assertEqual(first.pop("cache_use"), {"parsed": 3, "cached": 0})
        self.assertEqual(second.pop("cache_use"), {"parsed": 0, "cached": 3})
        self.assertNotIn("cache_use", plain)
        self.assertEqual(first, plain)
        self.assertEqual(json.loads(json.dumps(second)), json.loads(json.dumps(plain)))

    def test_a_changed_file_is_scanned_again_and_only_it(self):
        with tempfile.TemporaryDirectory() as root:
            self._tree(root)
            host = _CacheHost()
            self._scan(root, host)
            with open(os.path.join(root, "b", "ops.py"), "a", encoding="utf-8") as handle:
                handle.write("sample(1)\nm.top_k(2)\n")
            host.hits = 0
            changed = self._scan(root, host)
            plain = self._scan(root, None)
        self.assertEqual(host.hits, 2)
        self.assertEqual(changed.pop("cache_use"), {"parsed": 1, "cached": 2})
        self.assertEqual(json.loads(json.dumps(changed)), json.loads(json.dumps(plain)))
        self.assertIn("aiter.ops.sampling.top_k", [e["target"] for e in changed["functions"]])

    def test_a_damaged_or_failing_cache_is_a_miss(self):
        with tempfile.TemporaryDirectory() as root:
            self._tree(root)
            plain = self._scan(root, None)
            host = _CacheHost()
            self._scan(root, host)
            damaged = ["garbage", [["no_such_event", 1]], [["add_site", "s", "t", "w", "not a site"]],
                       [["note_use", "too", "few"]]]
            for key, value in zip(sorted(host.store), damaged):
                host.store[key] = json.dumps(value)
            again = self._scan(root, host)
            host.failing = True
            failing = self._scan(root, host)
        self.assertEqual(again.pop("cache_use"), {"parsed": 3, "cached": 0})
        self.assertEqual(failing.pop("cache_use"), {"parsed": 3, "cached": 0})
        self.assertEqual(json.loads(json.dumps(again)), json.loads(json.dumps(plain)))
        self.assertEqual(failing, plain)


if __name__ == "__main__":
    unittest.main()
