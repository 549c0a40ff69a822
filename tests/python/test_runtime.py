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


if __name__ == "__main__":
    unittest.main()
