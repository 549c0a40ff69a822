"""Runtime truth for one commit: import each function from an extracted tree and read
inspect.signature, exactly as the runtime extractor's child does (src/python/aaw_runtime.py).

usage: truth_child.py SOURCE_ROOT FUNCTIONS_JSON OUT   -> writes [STATE, ...] as JSON to OUT
Run in a process of its own per commit (an import may crash, hang or leave modules behind).
"""

import importlib.abc
import importlib.machinery
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "python"))
import aaw_runtime  # noqa: E402
from accuracy import top_packages  # noqa: E402  (this script's directory is on sys.path)


class TreeOnly(importlib.abc.MetaPathFinder):
    """Finds the monitored packages in the extracted tree or nowhere: a commit whose tree lacks one
    must not import the copy Debian installed in dist-packages (requests, attrs, pyparsing are)."""

    def __init__(self, root, tops):
        self.root, self.tops = root, tops

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.tops:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, [self.root])
        if spec is None:
            raise ModuleNotFoundError("No module named %r in the tree" % fullname, name=fullname)
        return spec


def main():
    root, functions_file, out = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(functions_file, encoding="utf-8") as f:
        functions = json.load(f)
    sys.meta_path.insert(0, TreeOnly(root, top_packages(functions)))
    states = aaw_runtime.extract_all({"work_tree": root, "venv": None, "functions": functions})
    with open(out, "w", encoding="utf-8") as f:
        json.dump(states, f)
    os._exit(0)


if __name__ == "__main__":
    main()
