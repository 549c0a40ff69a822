"""scripts/check_layers.py on small trees: what it lets through and what it refuses."""

import importlib.util
import pathlib
import unittest

from file_tree import file_tree

_SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "check_layers.py"
_spec = importlib.util.spec_from_file_location("check_layers", _SCRIPT)
check_layers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_layers)

_GOOD = {
    "src/util/result.hpp": "",
    "src/core/ports/signature_source.hpp": '#include "util/result.hpp"\n',
    "src/core/model/a.hpp": "",
    "src/core/model/a.cpp": '#include "core/model/a.hpp"\n#include "util/result.hpp"\n',
    "src/io/x/x.hpp": '#include "core/ports/signature_source.hpp"\n',
    "src/io/x/x.cpp": '#include "io/x/x.hpp"\n#include "io/x/x_handles.hpp"\n',
    "src/io/x/x_handles.hpp": "// Internal to src/io/x/: handles.\n#pragma once\n",
    "src/extract/s/s.hpp": '#include "core/ports/signature_source.hpp"\n',
    "src/cli/main.cpp": '#include "io/x/x.hpp"\n#include "extract/s/s.hpp"\n',
    "tests/core/model/a_test.cpp": '#include "core/model/a.hpp"\n#include "support/fake.hpp"\n',
    "tests/io/x/x_test.cpp": '#include "io/x/x_handles.hpp"\n',
    "tests/support/fake.hpp": "",
    "tests/integration/cli_test.cpp": "",
}


class CheckLayersTest(unittest.TestCase):
    def tree(self, files):
        return file_tree(self, files)

    def offences(self, changes):
        return list(check_layers.offences(self.tree({**_GOOD, **changes})))

    def test_a_tree_that_keeps_every_rule_passes(self):
        self.assertEqual(self.offences({}), [])

    def test_an_include_back_up_or_across_the_layers_is_named(self):
        found = self.offences({"src/core/model/w.cpp": '#include "io/x/x.hpp"\n',
                               "src/notify/n.hpp": '\n#include "extract/s/s.hpp"\n'})
        self.assertEqual(len(found), 2, found)
        self.assertIn("src/core/model/w.cpp:1: w.cpp (layer core) includes io/x/x.hpp (layer io)", found)
        self.assertIn("src/notify/n.hpp:2: n.hpp (layer notify) includes extract/s/s.hpp (layer extract)", found)

    def test_an_include_not_spelled_from_src_is_named(self):
        found = self.offences({"src/io/x/y.cpp": '#include "x.hpp"\n#include "../x/x.hpp"\n'})
        self.assertEqual(len(found), 2, found)
        self.assertTrue(all("not spelled from src/" in line for line in found), found)

    def test_a_header_internal_to_a_folder_is_refused_outside_it(self):
        found = self.offences({"src/io/y/y.cpp": '#include "io/x/x_handles.hpp"\n',
                               "src/cli/c.cpp": '#include "io/x/x_handles.hpp"\n'})
        self.assertEqual(sorted(found), ["src/cli/c.cpp:1: includes io/x/x_handles.hpp, which is internal to src/io/x/",
                                         "src/io/y/y.cpp:1: includes io/x/x_handles.hpp, which is internal to src/io/x/"])

    def test_a_header_internal_to_a_layer_is_open_to_its_subfolders(self):
        found = self.offences({"src/io/shared.hpp": "// Internal to src/io/: shared.\n",
                               "src/io/x/z.cpp": '#include "io/shared.hpp"\n'})
        self.assertEqual(found, [])

    def test_an_include_folder_is_named(self):
        found = self.offences({"include/aaw/core/a.hpp": ""})
        self.assertEqual(found, ["include/: headers sit beside their sources under src/"])

    def test_a_file_outside_the_layer_folders_is_named(self):
        found = self.offences({"src/stray.cpp": ""})
        self.assertEqual(len(found), 1, found)
        self.assertIn("not in a layer folder", found[0])

    def test_a_test_that_does_not_mirror_its_source_is_named(self):
        found = self.offences({"tests/core/a_test.cpp": '#include "core/model/a.hpp"\n'})
        self.assertEqual(found, ["tests/core/a_test.cpp: tests nothing at src/core/a.cpp or .hpp"])

    def test_the_architecture_page_names_every_folder_and_only_paths_that_exist(self):
        page = "| `src/util/` | `src/core/model/` `src/core/ports/` `src/io/x/` `src/extract/s/` `src/cli/` |\n"
        self.assertEqual(self.offences({"ARCHITECTURE.md": page}), [])
        found = self.offences({"ARCHITECTURE.md": page.replace("`src/io/x/` ", "") + "See `docs/gone.md`.\n"})
        self.assertEqual(found, ["ARCHITECTURE.md: does not name the folder src/io/x/",
                                 "ARCHITECTURE.md: names docs/gone.md, which does not exist"])

    def test_a_folder_with_too_many_files_is_named(self):
        crowd = {"src/util/f%02d.hpp" % i: "" for i in range(check_layers.MAX_FILES)}
        found = self.offences(crowd)
        self.assertEqual(len(found), 1, found)
        self.assertIn("src/util: %d files" % (check_layers.MAX_FILES + 1), found[0])


if __name__ == "__main__":
    unittest.main()
