#!/usr/bin/env python3
"""Fails when an include runs back up the layers (ARCHITECTURE.md, "Layering").

util -> core -> {extract, notify, io} -> cli: a file under src/<layer>/ or include/aaw/<layer>/
may include "aaw/<other>/..." only when <other> is its own layer or one below it. extract, notify
and io are siblings: none of them includes another. A private header of another folder reached
through a relative path ("../io/x.hpp") is an error too. Prints one line per offence and exits 1.
"""

import pathlib
import re
import sys

ALLOWED = {
    "util": {"util"},
    "core": {"util", "core"},
    "extract": {"util", "core", "extract"},
    "notify": {"util", "core", "notify"},
    "io": {"util", "core", "io"},
    "cli": {"util", "core", "extract", "notify", "io", "cli"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def layer_of(path, root):
    parts = path.relative_to(root).parts
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[:2] == ("include", "aaw") and len(parts) > 3:
        return parts[2]
    return None


def offences(root):
    for path in sorted(list((root / "src").rglob("*.[ch]pp")) + list((root / "include").rglob("*.hpp"))):
        layer = layer_of(path, root)
        if layer not in ALLOWED:
            yield "%s: not in a layer folder (%s)" % (path.relative_to(root), ", ".join(ALLOWED))
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target = match.group(1)
            where = "%s:%d" % (path.relative_to(root), number)
            if target.startswith("aaw/"):
                other = target.split("/")[1]
                if other not in ALLOWED[layer]:
                    yield "%s: %s (layer %s) includes %s (layer %s)" % (where, path.name, layer, target, other)
            elif "/" in target and not target.startswith("support/"):
                yield "%s: relative include '%s' reaches into another folder" % (where, target)


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    found = list(offences(root))
    for line in found:
        print(line)
    if found:
        print("%d include(s) run against the layering util -> core -> {extract, notify, io} -> cli" % len(found))
        return 1
    print("layering ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
