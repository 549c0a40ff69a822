"""aaw_lookup: whether a monitored function is there, and the names bound where it was looked for."""

import unittest

import aaw_lookup
import aaw_summary
from dict_host import DictHost

FILES = {
    "pkg/__init__.py": "from .ops import *\nfrom .moe import fused_moe as fmoe\nclass Runner:\n"
                       "    def run(self, x): pass\n    def stop(self): pass\n",
    "pkg/ops.py": "def gemm_a8w8(x, w): pass\ndef gemm_a16w16(x, w): pass\ndef _private(): pass\n",
    "pkg/moe.py": "def fused_moe(h, w1, w2): pass\ndef moe_sorting(ids): pass\n",
    "pkg/dyn.py": "globals()['made'] = object()\n",
}


def lookup(statement, path, files=None):
    [entry] = aaw_lookup.lookup_all(
        {"functions": [{"import_statement": statement, "function_path": path}]}, DictHost(files or FILES))
    return entry


class LookupTest(unittest.TestCase):
    def setUp(self):
        aaw_summary.clear_cache()

    def test_a_function_that_resolves_is_found(self):
        for statement, path in [("import pkg", "pkg.gemm_a8w8"), ("import pkg.moe as m", "m.fused_moe"),
                                ("from pkg import fmoe", "fmoe"), ("import pkg", "pkg.Runner.run")]:
            with self.subTest(path):
                self.assertEqual(lookup(statement, path)["verdict"], "found")

    def test_a_misspelt_attribute_gives_the_names_of_its_module_with_star_imports(self):
        entry = lookup("import pkg", "pkg.gemm_a8w9")
        self.assertEqual(entry["verdict"], "not_found")
        self.assertEqual(entry["name"], "gemm_a8w9")
        self.assertIn("gemm_a8w8", entry["names"])
        self.assertIn("fmoe", entry["names"])
        self.assertNotIn("_private", entry["names"], "a star import does not bind private names")
        self.assertIn("not found in module 'pkg'", entry["detail"])

    def test_a_path_that_names_a_module_is_no_function_to_watch(self):
        for statement, path in [("import pkg.moe as m", "m"), ("import pkg", "pkg.ops")]:
            with self.subTest(path):
                entry = lookup(statement, path)
                self.assertEqual(entry["verdict"], "not_found")
                self.assertIn("is a module, not a function: name a function of it", entry["detail"])

    def test_a_misspelt_method_gives_the_names_of_its_class(self):
        entry = lookup("import pkg", "pkg.Runner.runn")
        self.assertEqual((entry["verdict"], entry["name"]), ("not_found", "runn"))
        self.assertEqual(entry["names"], ["run", "stop"])

    def test_a_path_the_import_statement_does_not_bind_gives_the_names_it_binds(self):
        entry = lookup("import pkg.moe as rocm_moe", "rocm_aiter.fused_moe")
        self.assertEqual((entry["verdict"], entry["name"], entry["names"]),
                         ("not_found", "rocm_aiter", ["rocm_moe"]))

    def test_a_misspelt_module_gives_the_names_of_its_package(self):
        entry = lookup("import pkg.moee as m", "m.fused_moe")
        self.assertEqual((entry["verdict"], entry["name"]), ("not_found", "moee"))
        self.assertIn("Runner", entry["names"])
        entry = lookup("import pkgg", "pkgg.gemm_a8w8")
        self.assertEqual((entry["verdict"], entry["name"], entry["names"]), ("not_found", "pkgg", []))

    def test_a_misspelt_from_import_gives_the_names_of_the_module(self):
        entry = lookup("from pkg.moe import fused_moee", "fused_moee")
        self.assertEqual((entry["verdict"], entry["name"]), ("not_found", "fused_moee"))
        self.assertEqual(entry["names"], ["fused_moe", "moe_sorting"])

    def test_stray_spaces_and_statements_that_are_no_import_are_not_found(self):
        self.assertEqual(lookup("import pkg", " pkg.gemm_a8w8")["verdict"], "not_found")
        self.assertEqual(lookup("import pkg", "pkg. gemm_a8w8")["verdict"], "not_found")
        self.assertEqual(lookup("  import pkg  ", "pkg.gemm_a8w8")["verdict"], "found",
                         "spaces around a statement change nothing")
        self.assertEqual(lookup("pkg = 1", "pkg.f")["verdict"], "not_found")
        self.assertEqual(lookup("from . import pkg", "pkg.f")["verdict"], "not_found")

    def test_what_static_reading_cannot_tell_is_unknown_not_missing(self):
        entry = lookup("import pkg.dyn as d", "d.made")
        self.assertEqual(entry["verdict"], "unknown")
        self.assertIn("globals()", entry["detail"])
        broken = dict(FILES, **{"pkg/moe.py": "def fused_moe(:\n"})
        self.assertEqual(lookup("import pkg.moe as m", "m.fused_moe", broken)["verdict"], "unknown")


if __name__ == "__main__":
    unittest.main()
