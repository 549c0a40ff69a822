"""aaw_ops: the function behind each torch.ops.<package>.<op>, from the registrations the modules
importing the package (and those the consumer imports) hold."""

import unittest

import aaw_ops
import aaw_summary
from dict_host import DictHost

_FILES = {
    "aiter/__init__.py": "from .ops.attention import *\n",
    "aiter/ops/__init__.py": "",
    "aiter/ops/attention.py": (
        "import torch\n"
        "from csrc.torch_utils import direct_register_custom_op\n"
        "from aiter.jit.core import compile_ops\n\n"
        "def paged_attention_v1(out, query, scale: float, partition_size: int = 256):\n    pass\n\n"
        "direct_register_custom_op('paged_attention_v1', paged_attention_v1, ['out'])\n\n"
        "@compile_ops('module_attention')\n"
        "def pa_fwd(Q: torch.Tensor, K: torch.Tensor) -> None: ...\n\n"
        "@compile_ops('module_attention', fc_name='flags')\n"
        "def get_flags(level: int) -> int: ...\n"),
    "aiter/ops/sampling.py": (
        "from csrc.torch_utils import direct_register_custom_op\n\n"
        "def top_k_renorm_probs(probs, maybe_top_k_arr, top_k_val: int):\n    pass\n\n"
        "direct_register_custom_op(op_name='top_k_renorm_probs', op_func=top_k_renorm_probs, mutates_args=[])\n"),
}


def find(ops, modules=()):
    return aaw_ops.find_ops({"package": "aiter", "modules": list(modules), "ops": list(ops)}, DictHost(_FILES))


class FindOps(unittest.TestCase):
    def setUp(self):
        aaw_summary.clear_cache()

    def test_a_direct_registration_names_the_function_it_registers(self):
        result = find(["paged_attention_v1"])
        self.assertEqual(result["ops"]["paged_attention_v1"],
                         {"import_statement": "from aiter.ops.attention import paged_attention_v1",
                          "function_path": "paged_attention_v1", "target": "aiter.ops.attention.paged_attention_v1",
                          "file": "aiter/ops/attention.py", "line": 8,
                          "how": "direct_register_custom_op at aiter/ops/attention.py:8", "prepends_tensor": False})
        self.assertIsNone(result["unknown"])

    def test_a_compile_ops_stub_is_the_op_of_its_name_with_a_leading_tensor_unless_its_first_is_one(self):
        result = find(["pa_fwd", "get_flags"])
        self.assertFalse(result["ops"]["pa_fwd"]["prepends_tensor"])
        self.assertTrue(result["ops"]["get_flags"]["prepends_tensor"])
        self.assertEqual(result["ops"]["get_flags"]["how"], "@compile_ops at aiter/ops/attention.py:13")

    def test_a_module_only_the_consumer_imports_is_searched_too(self):
        self.assertIsNone(find(["top_k_renorm_probs"])["ops"]["top_k_renorm_probs"])
        found = find(["top_k_renorm_probs"], ["aiter.ops.sampling"])["ops"]["top_k_renorm_probs"]
        self.assertEqual(found["import_statement"], "from aiter.ops.sampling import top_k_renorm_probs")

    def test_an_op_registered_nowhere_is_none(self):
        self.assertEqual(find(["nope"])["ops"], {"nope": None})

    def test_a_module_on_the_way_that_does_not_parse_or_is_a_link_makes_the_search_unknown(self):
        for broken, detail in [({"aiter/__init__.py": "from .ops.attention import *\ndef (:\n"}, "invalid syntax"),
                               ({"aiter/__init__.py": "from .ops import attention\n"}, None)]:
            host = DictHost(dict(_FILES, **broken))
            if detail is None:
                host.links = {"aiter/ops/attention.py": "../attention_impl.py"}
                detail = "'aiter/ops/attention.py' is a symbolic link"
            aaw_summary.clear_cache()
            result = aaw_ops.find_ops({"package": "aiter", "ops": ["paged_attention_v1"]}, host)
            self.assertEqual(result["ops"], {"paged_attention_v1": None})
            self.assertIn(detail, result["unknown"] or "")


if __name__ == "__main__":
    unittest.main()
