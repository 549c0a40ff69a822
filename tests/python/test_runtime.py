"""aaw_runtime (the extraction child's code) on a package written to a temporary directory."""

import pathlib
import sys
import tempfile
import unittest

import aaw_runtime


class RuntimeStateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        root = pathlib.Path(cls.tmp.name)
        (root / "rtpkg").mkdir()
        (root / "rtpkg" / "__init__.py").write_text(
            "SENTINEL = object()\n"
            "def f(a, marker=SENTINEL, key=lambda x: x): pass\n"
            "class K:\n    @property\n    def p(self): return 1\n    def m(self, x): pass\n"
            "class E(Exception): pass\n")
        sys.path.insert(0, str(root))

    @classmethod
    def tearDownClass(cls):
        sys.path.remove(cls.tmp.name)
        cls.tmp.cleanup()

    def state(self, path):
        return aaw_runtime._state({"import_statement": "import rtpkg", "function_path": path})

    def test_defaults_are_printed_without_memory_addresses(self):
        defaults = [p["default"] for p in self.state("rtpkg.f")["signature"]["parameters"]]
        self.assertEqual(defaults, [None, "<object object>", "<function <lambda>>"])

    def test_an_object_without_a_signature_is_unresolved_not_a_failure(self):
        for path, what in [("rtpkg.K.p", "a property"), ("rtpkg.E", "class E")]:
            with self.subTest(path):
                state = self.state(path)
                self.assertEqual(state["status"], "unresolved")
                self.assertIn(what, state["detail"])
                self.assertNotIn(" at 0x", state["detail"])

    def test_no_text_is_sent(self):
        state = self.state("rtpkg.K.m")
        self.assertEqual(state["status"], "ok")
        self.assertNotIn("text", state)

    def test_a_missing_attribute_is_missing(self):
        self.assertEqual(self.state("rtpkg.nothing")["status"], "missing")


class TreeRootsTest(unittest.TestCase):
    """An unbuilt work tree is imported from where static extraction finds its packages."""

    def tree(self, files):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        root = pathlib.Path(tmp.name)
        for path, text in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
        return root

    def roots(self, root, source_roots, *statements):
        functions = [{"import_statement": s, "function_path": "x"} for s in statements]
        return [pathlib.Path(r).relative_to(root).as_posix() for r in
                aaw_runtime.tree_roots(str(root), source_roots, functions)]

    def test_the_root_then_src(self):
        root = self.tree({"flat/__init__.py": "", "src/lay/__init__.py": "", "single.py": ""})
        self.assertEqual(self.roots(root, [], "import flat", "from lay.sub import f", "import single"), [".", "src"])
        self.assertEqual(self.roots(root, [], "import lay.sub as s"), ["src"])

    def test_declared_roots_when_neither_holds_the_package(self):
        root = self.tree({"lib/python/deep/__init__.py": "",
                          "setup.cfg": "[options]\npackage_dir =\n    = lib/python\n"})
        self.assertEqual(self.roots(root, [], "from deep import f"), ["lib/python"])

    def test_configured_roots_only(self):
        root = self.tree({"src/lay/__init__.py": "", "other/lay/__init__.py": ""})
        self.assertEqual(self.roots(root, ["other"], "import lay"), ["other"])
        self.assertEqual(self.roots(root, ["nowhere"], "import lay"), [])

    def test_a_directory_holding_only_bytecode_is_no_package(self):
        root = self.tree({"lay/__pycache__/x.pyc": "", "src/lay/__init__.py": ""})
        self.assertEqual(self.roots(root, [], "import lay"), ["src"])

    def test_monitored_packages_come_from_the_tree_or_nowhere(self):
        root = self.tree({"src/lay/__init__.py": ""})
        finder = aaw_runtime.TreeOnly([str(root), str(root / "src")], ["lay", "json"])
        self.assertTrue(finder.find_spec("lay").origin.startswith(str(root / "src")))
        # json is installed (the standard library), but not in this tree: not found, never the copy.
        with self.assertRaisesRegex(ModuleNotFoundError, "No module named 'json' in the tree"):
            finder.find_spec("json")
        self.assertIsNone(finder.find_spec("os"))  # not monitored: the usual finders answer

    def test_unreadable_statements_and_relative_imports_are_skipped(self):
        root = self.tree({"src/lay/__init__.py": ""})
        self.assertEqual(self.roots(root, [], "from . import f", "import (", "import lay"), ["src"])


if __name__ == "__main__":
    unittest.main()
