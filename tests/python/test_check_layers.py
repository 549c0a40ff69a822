"""scripts/check_layers.py on small trees: what it lets through and what it refuses."""

import importlib.util
import pathlib
import tempfile
import unittest

_SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "check_layers.py"
_spec = importlib.util.spec_from_file_location("check_layers", _SCRIPT)
check_layers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_layers)


class CheckLayersTest(unittest.TestCase):
    def tree(self, files):
        root = pathlib.Path(self.enterContext(tempfile.TemporaryDirectory()))
        for path, text in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")
        return root

    def test_includes_down_the_layers_pass(self):
        root = self.tree({"src/core/a.cpp": '#include "aaw/util/result.hpp"\n#include "aaw/core/a.hpp"\n',
                          "src/cli/main.cpp": '#include "aaw/io/x.hpp"\n#include "app.hpp"\n',
                          "include/aaw/extract/s.hpp": '#include "aaw/core/signature_source.hpp"\n'})
        self.assertEqual(list(check_layers.offences(root)), [])

    def test_an_include_back_up_or_across_is_named(self):
        root = self.tree({"src/core/w.cpp": '#include "aaw/io/libgit2_mirror.hpp"\n',
                          "include/aaw/notify/n.hpp": '\n#include "aaw/extract/static_memo.hpp"\n',
                          "src/io/x.cpp": '#include "../cli/app.hpp"\n'})
        found = list(check_layers.offences(root))
        self.assertEqual(len(found), 3, found)
        self.assertIn("include/aaw/notify/n.hpp:2", "\n".join(found))
        self.assertIn("layer core", found[2] if "w.cpp" in found[2] else "\n".join(found))

    def test_a_file_outside_the_layer_folders_is_named(self):
        root = self.tree({"src/stray.cpp": ""})
        self.assertEqual(len(list(check_layers.offences(root))), 1)


if __name__ == "__main__":
    unittest.main()
