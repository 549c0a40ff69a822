"""Runtime truth for one commit: import each function from an extracted tree and read
inspect.signature, exactly as the runtime extractor's child does (src/python/aaw_runtime.py).

usage: truth_child.py SOURCE_ROOT FUNCTIONS_JSON OUT   -> writes [STATE, ...] as JSON to OUT
Run in a process of its own per commit (an import may crash, hang or leave modules behind).
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "python"))
import aaw_runtime  # noqa: E402


def main():
    root, functions_file, out = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(functions_file, encoding="utf-8") as f:
        functions = json.load(f)
    # The monitored packages from the extracted tree or nowhere, never Debian's installed copies.
    sys.meta_path.insert(0, aaw_runtime.TreeOnly([root], aaw_runtime.top_level_names(functions)))
    states = aaw_runtime.extract_all({"work_tree": root, "venv": None, "functions": functions})
    with open(out, "w", encoding="utf-8") as f:
        json.dump(states, f)
    os._exit(0)


if __name__ == "__main__":
    main()
