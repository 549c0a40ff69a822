"""aaw_bindings and aaw_cpp: the compiled binding behind a compile_ops stub, read from a fixture
tree that copies aiter's real forms (a macro with line continuations in csrc/include/rocm_ops.hpp,
an inline m.def, a module name held in a constant, an overload, py::kw_only, a ctypes entry point
written through aiter's AITER_CTYPES_DEFINE_ENTRYPOINT macro and one after AITER_C_ITFS)."""

import json
import unittest

import aaw_bindings
import aaw_cpp
import aaw_static
import aaw_summary
from dict_host import DictHost

_CONFIG = {
    "module_moe_asm": {"srcs": ["f'{AITER_CSRC_DIR}/pybind/moe_op_pybind.cu'",
                                "f'{AITER_CSRC_DIR}/kernels/topk_softmax_kernels.cu'"]},
    "module_custom": {"srcs": ["f'{AITER_CSRC_DIR}/pybind/custom_pybind.cu'"]},
    "module_fmoe_asm": {"srcs": ["f'{AITER_CSRC_DIR}/py_itfs_cu/asm_fmoe.cu'"]},
    "module_pa": {"srcs": ["f'{AITER_CSRC_DIR}/py_itfs_cu/asm_pa.cu'"]},
    "module_ck": {"srcs": ["f'{CK_DIR}/example/ck_tile/gemm.cpp'"]},
}

_ROCM_OPS = (
    "#pragma once\n"
    "#define MOE_OP_PYBIND                                                \\\n"
    "    m.def(\"topk_softmax\",                                          \\\n"
    "          &aiter::topk_softmax,                                      \\\n"
    "          py::arg(\"topk_weights\"),                                 \\\n"
    "          py::arg(\"gating_output\"),   /* a comment */             \\\n"
    "          py::arg(\"num_shared_experts\")         = 0,               \\\n"
    "          py::arg(\"shared_expert_scoring_func\") = \"\",            \\\n"
    "          \"Apply topk softmax to the gating outputs.\");           \\\n"
    "    m.def(\"grouped_topk\",                                          \\\n"
    "          &grouped_topk,                                             \\\n"
    "          py::arg(\"gating_output\"),                                \\\n"
    "          py::arg(\"topk_grp\"),                                     \\\n"
    "          py::arg(\"is_softmax\") = true,                            \\\n"
    "          py::arg(\"routed_scaling_factor\") = 1.0f);                \\\n"
    "    m.def(\"moe_sum\", &aiter::moe_sum, \"moe_sum(Tensor! input, Tensor output) -> ()\");\n"
    "#define AITER_ENUM_PYBIND py::enum_<QuantType>(m, \"QuantType\").value(\"No\", QuantType::No);\n"
)

_FILES = {
    "aiter/__init__.py": "from .ops.moe_op import *\n",
    "aiter/jit/__init__.py": "",
    "aiter/jit/core.py": "def compile_ops(_md_name, fc_name=None, gen_func=None, gen_fake=None, ffi_type='pybind'):\n"
                         "    def decorator(func):\n        return func\n    return decorator\n",
    "aiter/jit/optCompilerConfig.json": json.dumps(_CONFIG, indent=4),
    "aiter/ops/__init__.py": "",
    "aiter/ops/moe_op.py": (
        "from ..jit.core import compile_ops\n"
        "MD_NAME = 'module_moe_asm'\n\n"
        "@compile_ops('module_moe_asm', fc_name='topk_softmax')\n"
        "def topk_softmax(topk_weights, gating_output, num_shared_experts: int = 0,\n"
        "                 shared_expert_scoring_func: str = '') -> None: ...\n\n"
        "@compile_ops(MD_NAME)\n"
        "def grouped_topk(gating_output, topk_group, is_softmax: bool = True,\n"
        "                 routed_scaling_factor: float = 1.0) -> None: ...\n\n"
        "@compile_ops(MD_NAME)\n"
        "def moe_sum(input, output) -> None: ...\n\n"
        "@compile_ops('module_custom')\n"
        "def wv_split_k(a, b, cu_count, *, out=None) -> None: ...\n\n"
        "@compile_ops('module_custom')\n"
        "def scale(x, factor) -> None: ...\n\n"
        "@compile_ops('module_fmoe_asm', ffi_type='ctypes')\n"
        "def fmoe_g1u1(out, input, topk: int, kernel_name: str = '') -> None: ...\n\n"
        "@compile_ops('module_pa', fc_name='pa_fwd', ffi_type='ctypes')\n"
        "def _pa_fwd_asm(Q, K, max_qlen: int = 1) -> None: ...\n\n"
        "@compile_ops(MD_NAME, fc_name='QuantType')\n"
        "def _quant_type(value: int) -> None: ...\n\n"
        "@compile_ops('module_ck')\n"
        "def ck_gemm(a, b) -> None: ...\n\n"
        "@compile_ops('module_missing')\n"
        "def nowhere(a) -> None: ...\n\n"
        "@compile_ops(MD_NAME, fc_name=f'{MD_NAME}_x')\n"
        "def computed(a) -> None: ...\n\n"
        "def plain(a, b=1):\n    return a\n"),
    "csrc/include/rocm_ops.hpp": _ROCM_OPS,
    "csrc/pybind/moe_op_pybind.cu": (
        "#include \"rocm_ops.hpp\"\n#include \"moe_op.h\"\n\n"
        "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)\n{\n    MOE_OP_PYBIND;\n    AITER_ENUM_PYBIND\n}\n"),
    "csrc/pybind/custom_pybind.cu": (
        "#include <torch/extension.h>\n"
        "PYBIND11_MODULE(TORCH_EXTENSION_NAME, mod) {\n"
        "  mod.def(\"wv_split_k\", [](at::Tensor a, at::Tensor b, int cu, std::optional<at::Tensor> out) {},\n"
        "          py::arg(\"a\").noconvert(), py::arg(\"b\"), py::arg(\"cu_count\"), py::kw_only(),\n"
        "          py::arg(\"out\") = std::nullopt);\n"
        "  mod.def(\"scale\", &scale_f, py::arg(\"x\"), py::arg(\"factor\"));\n"
        "  mod.def(\"scale\", &scale_i, py::arg(\"x\"), py::arg(\"int_factor\"));\n"
        "}\n"),
    "csrc/kernels/topk_softmax_kernels.cu": "__global__ void kernel(int* a) { a[0] = 1; }\n",
    "csrc/py_itfs_cu/asm_fmoe.cu": (
        "#include \"aiter_ctypes_error.h\"\n"
        "AITER_CTYPES_DEFINE_ENTRYPOINT_VOID(\n    fmoe_g1u1,\n    (\n"
        "    aiter_tensor_t* out,   // [tokens, dim]\n    aiter_tensor_t* input,\n    int topk,\n"
        "    const char* kernel_name,\n    hipStream_t stream),\n"
        "    (out, input, topk, kernel_name, stream))\n{\n    fmoe_g1u1_impl(out);\n}\n"),
    "csrc/py_itfs_cu/asm_pa.cu": (
        "static void helper(int x) { pa_fwd(nullptr, nullptr, 1, nullptr); }\n"
        "AITER_C_ITFS\nvoid pa_fwd(aiter_tensor_t* Q, aiter_tensor_t* K, int max_qlen,\n"
        "            hipStream_t stream)\n{\n}\n"),
}


def resolve(name, files=_FILES):
    result = aaw_static.resolve_all({"functions": [{"import_statement": "from aiter.ops.moe_op import %s" % name,
                                                    "function_path": name}]}, DictHost(files))[0]
    return result


class Bindings(unittest.TestCase):
    def setUp(self):
        aaw_summary.clear_cache()
        aaw_cpp.SOURCES.clear()
        aaw_bindings.MODULES.clear()
        aaw_bindings._LAST_READS.clear()

    def binding(self, name, files=_FILES):
        state = resolve(name, files)["state"]
        self.assertEqual(state["status"], "ok", state)
        return state.get("binding")

    def names(self, binding):
        return [(p["name"], p["default"]) for p in binding["parameters"]]

    def test_a_macro_with_continuations_in_an_included_header(self):
        binding = self.binding("topk_softmax")
        self.assertEqual(binding["status"], "ok", binding)
        self.assertEqual((binding["kind"], binding["name"], binding["module"], binding["file"], binding["line"]),
                         ("pybind11", "topk_softmax", "module_moe_asm", "csrc/include/rocm_ops.hpp", 3))
        self.assertEqual(self.names(binding), [("topk_weights", None), ("gating_output", None),
                                               ("num_shared_experts", "0"), ("shared_expert_scoring_func", '""')])
        self.assertTrue(binding["named"])

    def test_a_module_name_held_in_a_constant_and_a_differently_named_argument(self):
        binding = self.binding("grouped_topk")
        self.assertEqual(self.names(binding), [("gating_output", None), ("topk_grp", None), ("is_softmax", "true"),
                                               ("routed_scaling_factor", "1.0f")])

    def test_a_def_without_py_arg_is_unnamed(self):
        binding = self.binding("moe_sum")
        self.assertEqual((binding["status"], binding["named"], binding["parameters"]), ("ok", False, []))

    def test_an_inline_def_with_a_lambda_and_keyword_only_arguments(self):
        binding = self.binding("wv_split_k")
        self.assertEqual(binding["file"], "csrc/pybind/custom_pybind.cu")
        self.assertEqual([(p["name"], p["kind"]) for p in binding["parameters"]],
                         [("a", "POSITIONAL_OR_KEYWORD"), ("b", "POSITIONAL_OR_KEYWORD"),
                          ("cu_count", "POSITIONAL_OR_KEYWORD"), ("out", "KEYWORD_ONLY")])
        self.assertEqual(binding["parameters"][-1]["default"], "std::nullopt")

    def test_an_overload_is_kept_beside_the_first_def(self):
        binding = self.binding("scale")
        self.assertEqual(self.names(binding), [("x", None), ("factor", None)])
        self.assertEqual([[p["name"] for p in o] for o in binding["overloads"]], [["x", "int_factor"]])

    def test_a_ctypes_entry_point_through_aiters_macro_and_after_aiter_c_itfs(self):
        binding = self.binding("fmoe_g1u1")
        self.assertEqual((binding["status"], binding["kind"], binding["file"]),
                         ("ok", "ctypes", "csrc/py_itfs_cu/asm_fmoe.cu"))
        self.assertEqual([p["name"] for p in binding["parameters"]], ["out", "input", "topk", "kernel_name"])
        binding = self.binding("_pa_fwd_asm")
        self.assertEqual((binding["name"], binding["line"]), ("pa_fwd", 3))
        self.assertEqual([p["name"] for p in binding["parameters"]], ["Q", "K", "max_qlen"])

    def test_what_cannot_be_followed_is_unresolved_with_the_reason(self):
        cases = {
            "_quant_type": "binds 'QuantType' as a type (py::enum_)",
            "ck_gemm": "not followed: {CK_DIR}/example/ck_tile/gemm.cpp",
            "nowhere": "aiter/jit/optCompilerConfig.json has no entry 'module_missing'",
            "computed": "fc_name of @compile_ops is an expression (f'{MD_NAME}_x'), not read statically",
        }
        for name, reason in cases.items():
            binding = self.binding(name)
            self.assertEqual(binding["status"], "unresolved", binding)
            self.assertIn(reason, binding["detail"])

    def test_a_function_that_is_no_stub_has_no_binding(self):
        self.assertIsNone(self.binding("plain"))

    def test_a_macro_defined_twice_differently_is_not_guessed_at(self):
        files = dict(_FILES)
        files["csrc/include/rocm_ops.hpp"] = _ROCM_OPS + "#ifdef OTHER\n#define MOE_OP_PYBIND m.def(\"x\", &x);\n#endif\n"
        binding = self.binding("topk_softmax", files)
        self.assertEqual(binding["status"], "unresolved")
        self.assertIn("MOE_OP_PYBIND is defined more than once", binding["detail"])

    def test_an_unbalanced_def_is_unreadable_not_a_crash(self):
        files = dict(_FILES)
        files["csrc/pybind/custom_pybind.cu"] = "PYBIND11_MODULE(n, mod) {\n  mod.def(\"scale\", &f, py::arg(\"x\"\n"
        binding = self.binding("scale", files)
        self.assertEqual(binding["status"], "unresolved")
        self.assertIn("cannot read the binding: unbalanced brackets", binding["detail"])

    def test_every_file_read_is_consulted(self):
        consulted = {entry["path"] for entry in resolve("topk_softmax")["consulted"]}
        self.assertTrue({"aiter/jit/optCompilerConfig.json", "csrc/pybind/moe_op_pybind.cu",
                         "csrc/include/rocm_ops.hpp"} <= consulted, consulted)

    def test_only_the_parts_read_of_a_header_and_of_the_config_are_digested(self):
        entries = {e["path"]: e for e in resolve("topk_softmax")["consulted"]}
        header = entries["csrc/include/rocm_ops.hpp"]
        self.assertEqual(header["names"], ["<cpp>#include", "<cpp>bind:csrc/pybind/moe_op_pybind.cu|topk_softmax"])
        self.assertEqual(entries["aiter/jit/optCompilerConfig.json"]["names"], ["<json>module_moe_asm"])
        self.assertEqual(entries["csrc/kernels/topk_softmax_kernels.cu"]["names"], ["<cpp>PYBIND11_MODULE"])

        def digest_of(path, files):
            host = DictHost(files)
            query = {"blob": host.find_blob(path), "names": entries[path]["names"]}
            return aaw_static.module_digests({"queries": [query]}, host)[0]
        rocm_ops = "csrc/include/rocm_ops.hpp"
        self.assertEqual(digest_of(rocm_ops, _FILES), header["digest"])
        other_macro = dict(_FILES, **{rocm_ops: "#define OTHER_PYBIND m.def(\"o\", &o);\n" + _ROCM_OPS})
        self.assertEqual(digest_of(rocm_ops, other_macro), header["digest"])
        renamed = dict(_FILES, **{rocm_ops: _ROCM_OPS.replace("topk_weights", "weights")})
        self.assertNotEqual(digest_of(rocm_ops, renamed), header["digest"])
        # Another op's binding in the same macro: nothing this stub reads.
        other_op = dict(_FILES, **{rocm_ops: _ROCM_OPS.replace("topk_grp", "topk_group")})
        self.assertEqual(digest_of(rocm_ops, other_op), header["digest"])
        # The module file itself: another macro expanded in its body.
        module = "csrc/pybind/moe_op_pybind.cu"
        more = dict(other_macro, **{module: _FILES[module].replace("AITER_ENUM_PYBIND", "AITER_ENUM_PYBIND\n    OTHER_PYBIND")})
        self.assertEqual(digest_of(module, more), entries[module]["digest"])
        kernel = "csrc/kernels/topk_softmax_kernels.cu"
        edited = dict(_FILES, **{kernel: _FILES[kernel] + "__global__ void other() {}\n"})
        self.assertEqual(digest_of(kernel, edited), entries[kernel]["digest"])
        config = dict(_CONFIG, module_new={"srcs": []})
        other_entry = dict(_FILES, **{"aiter/jit/optCompilerConfig.json": json.dumps(config)})
        self.assertEqual(digest_of("aiter/jit/optCompilerConfig.json", other_entry),
                         entries["aiter/jit/optCompilerConfig.json"]["digest"])

    def test_a_binding_read_again_after_lines_moved_above_it_has_its_new_line(self):
        moved = dict(_FILES, **{"csrc/include/rocm_ops.hpp": "#define OTHER m.def(\"o\", &o);\n\n" + _ROCM_OPS})
        self.binding("topk_softmax")  # the module's reading, then moved to the new header
        again = self.binding("grouped_topk", moved)
        aaw_bindings.MODULES.clear()
        aaw_bindings._LAST_READS.clear()
        self.assertEqual(again, self.binding("grouped_topk", moved))
        self.assertEqual(again["line"], 12)
        changed = dict(moved, **{"csrc/include/rocm_ops.hpp": moved["csrc/include/rocm_ops.hpp"].replace(
            "topk_grp", "topk_group")})
        self.assertEqual([p["name"] for p in self.binding("grouped_topk", changed)["parameters"]][1], "topk_group")

    def test_fc_name_names_the_def_looked_for(self):
        files = dict(_FILES)
        files["aiter/ops/moe_op.py"] = files["aiter/ops/moe_op.py"].replace(
            "@compile_ops('module_moe_asm', fc_name='topk_softmax')", "@compile_ops('module_moe_asm', fc_name='topk')")
        self.assertEqual(self.binding("topk_softmax", files)["detail"],
                         "module 'module_moe_asm' binds no 'topk' (csrc/pybind/moe_op_pybind.cu)")


class Tokens(unittest.TestCase):
    def test_strings_comments_and_continuations(self):
        toks = aaw_cpp.tokens('a = "x, // y" /* c, d */ + R"(raw, ")" \\\n  + \'c\' // end\nb')
        self.assertEqual([t.text for t in toks], ["a", "=", '"x, // y"', "+", 'R"(raw, ")"', "+", "'c'", "b"])
        self.assertEqual(toks[-1].line, 3)

    def test_a_huge_body_is_refused(self):
        with self.assertRaises(aaw_cpp.Unreadable):
            aaw_cpp.tokens("x " * (aaw_cpp.MAX_TOKENS + 1))

    def test_a_self_referencing_macro_is_expanded_once(self):
        source = aaw_cpp.Source("#define A m.def(\"a\", &a); B\n#define B A m.def(\"b\", &b);\n")
        defines = source.defines()

        def lookup(name):
            return (name, source.define_tokens(defines[name][-1], "h.hpp")) if name in defines else None
        expanded = aaw_cpp.expand(aaw_cpp.tokens("A"), lookup)
        self.assertEqual([d.name for d in aaw_cpp.module_defs("m", expanded)], ["a", "b"])


if __name__ == "__main__":
    unittest.main()
