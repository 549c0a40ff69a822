"""aaw_static.locate_all: where each monitored function is defined (for SARIF and annotations)."""

import unittest

import aaw_static
import aaw_summary
from dict_host import DictHost


def locate(files, import_statement, function_path):
    [entry] = aaw_static.locate_all({"functions": [{"import_statement": import_statement,
                                                     "function_path": function_path}]}, DictHost(files))
    return entry


class LocateTest(unittest.TestCase):
    def setUp(self):
        aaw_summary.clear_cache()

    def test_a_reexported_function_is_located_at_its_def_in_the_defining_file(self):
        files = {"pkg/__init__.py": "from .impl import f\n", "pkg/impl.py": "import os\n\n\ndef f(a, b):\n    pass\n"}
        self.assertEqual(locate(files, "import pkg", "pkg.f"), {"file": "pkg/impl.py", "line": 4})

    def test_a_method_is_located_at_its_own_def(self):
        files = {"pkg/__init__.py": "class C:\n    x = 1\n\n    def m(self, a):\n        pass\n"}
        self.assertEqual(locate(files, "import pkg", "pkg.C.m"), {"file": "pkg/__init__.py", "line": 4})

    def test_a_constructor_is_located_at_init_else_at_the_class(self):
        with_init = {"pkg/__init__.py": "\nclass C:\n    def __init__(self, a):\n        pass\n"}
        self.assertEqual(locate(with_init, "import pkg", "pkg.C"), {"file": "pkg/__init__.py", "line": 3})
        without = {"pkg/__init__.py": "\n\nclass C:\n    pass\n"}
        self.assertEqual(locate(without, "import pkg", "pkg.C"), {"file": "pkg/__init__.py", "line": 3})

    def test_a_missing_function_has_no_location(self):
        self.assertIsNone(locate({"pkg/__init__.py": "def g(): pass\n"}, "import pkg", "pkg.f"))

    def test_the_line_follows_a_moved_def_even_when_its_summary_is_cached(self):
        host = DictHost({"pkg/__init__.py": "def f(a): pass\n"})
        request = {"functions": [{"import_statement": "import pkg", "function_path": "pkg.f"}]}
        aaw_static.resolve_all(request, host)
        host.write("pkg/__init__.py", "\n\ndef f(a): pass\n")
        self.assertEqual(aaw_static.locate_all(request, host), [{"file": "pkg/__init__.py", "line": 3}])


if __name__ == "__main__":
    unittest.main()
