#!/usr/bin/env python3
"""Checks the rules of ARCHITECTURE.md ("Layering" and "Folders") on the source tree.

1. Layers: util -> core -> {extract, notify, io} -> cli. A file under src/<layer>/ may include
   "<other>/..." only when <other> is its own layer or one below it; extract, notify and io are
   siblings and never include one another.
2. Every include of ours is spelled from src/ ("core/model/signature.hpp"), or from tests/ for the
   test support ("support/git_fixture.hpp"), and names a file that exists: no relative includes.
3. A header whose leading comment says "Internal to src/<folder>/" is included only by files of
   that folder (and its subfolders) and by their tests under tests/<folder>/.
4. Headers sit beside their sources: there is no include/ directory.
5. Tests mirror the sources: tests/<path>/<name>_test.cpp tests src/<path>/<name>.cpp or .hpp
   (tests/integration, tests/system, tests/support and tests/python excepted).
6. No source folder holds more than MAX_FILES files.
7. ARCHITECTURE.md (when there is one) names every source folder as `src/<folder>/`, and every
   path it quotes in backticks exists.

Prints one line per offence and exits 1; prints "layering ok" and exits 0 otherwise.
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
PYTHON_FOLDER = "python"  # the embedded Python half: no C++ includes
MAX_FILES = 24
TEST_FOLDERS_APART = {"integration", "support", "python", "system"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
INTERNAL = re.compile(r"Internal to src/([\w/]+?)/?[\s.:,(]")
QUOTED_PATH = re.compile(r"`((?:src|tests|scripts|docs|bench|schemas|docker|ci|cmake)/[\w./-]*)`")


def code_files(root, top):
    base = root / top
    if not base.is_dir():
        return []
    return sorted(p for p in base.rglob("*") if p.suffix in (".cpp", ".hpp"))


def leading_comment(path):
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("//"):
            break
        lines.append(line[2:])
    return " ".join(lines) + " "


def internal_folders(root):
    """header path relative to src/ -> the folder it is internal to (relative to src/)."""
    found = {}
    for path in code_files(root, "src"):
        if path.suffix != ".hpp":
            continue
        match = INTERNAL.search(leading_comment(path))
        if match:
            found[path.relative_to(root / "src").as_posix()] = match.group(1)
    return found


def include_offences(root, path, internal):
    relative = path.relative_to(root)
    in_tests = relative.parts[0] == "tests"
    layer = None if in_tests else relative.parts[1]
    home = relative.parent.relative_to(relative.parts[0]).as_posix()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = INCLUDE.match(line)
        if not match:
            continue
        target = match.group(1)
        where = "%s:%d" % (relative.as_posix(), number)
        if in_tests and target.startswith("support/"):
            if not (root / "tests" / target).is_file():
                yield "%s: '%s' names no file under tests/" % (where, target)
            continue
        if not (root / "src" / target).is_file():
            yield "%s: '%s' is not spelled from src/ (or names no file)" % (where, target)
            continue
        other = target.split("/")[0]
        if layer is not None and other not in ALLOWED[layer]:
            yield "%s: %s (layer %s) includes %s (layer %s)" % (where, path.name, layer, target, other)
        folder = internal.get(target)
        if folder is not None and not (home == folder or home.startswith(folder + "/")):
            yield "%s: includes %s, which is internal to src/%s/" % (where, target, folder)


def layer_offences(root):
    if (root / "include").exists():
        yield "include/: headers sit beside their sources under src/"
    for path in code_files(root, "src"):
        parts = path.relative_to(root).parts
        if len(parts) < 3 or parts[1] not in ALLOWED:
            yield "%s: not in a layer folder (%s)" % (path.relative_to(root).as_posix(), ", ".join(ALLOWED))


def test_offences(root):
    for path in code_files(root, "tests"):
        parts = path.relative_to(root / "tests").parts
        if len(parts) < 2 or parts[0] in TEST_FOLDERS_APART or not path.name.endswith("_test.cpp"):
            continue
        stem = path.name[: -len("_test.cpp")]
        source = root / "src" / pathlib.Path(*parts[:-1]) / stem
        if not (source.with_suffix(".cpp").is_file() or source.with_suffix(".hpp").is_file()):
            yield "%s: tests nothing at src/%s.cpp or .hpp" % (
                path.relative_to(root).as_posix(), (pathlib.Path(*parts[:-1]) / stem).as_posix())


def size_offences(root):
    source = root / "src"
    if not source.is_dir():
        return
    for folder in sorted([source] + [p for p in source.rglob("*") if p.is_dir()]):
        files = [p for p in folder.iterdir() if p.is_file()]
        if len(files) > MAX_FILES:
            yield "%s: %d files, more than %d: split it by concern" % (
                folder.relative_to(root).as_posix(), len(files), MAX_FILES)


def architecture_offences(root):
    page = root / "ARCHITECTURE.md"
    if not page.is_file():
        return
    text = page.read_text(encoding="utf-8")
    source = root / "src"
    folders = [p for p in source.rglob("*") if p.is_dir() and any(f.is_file() for f in p.iterdir())]
    for folder in sorted(folders):
        name = "src/%s/" % folder.relative_to(source).as_posix()
        if "`%s`" % name not in text:
            yield "ARCHITECTURE.md: does not name the folder %s" % name
    for quoted in sorted(set(QUOTED_PATH.findall(text))):
        if not (root / quoted).exists():
            yield "ARCHITECTURE.md: names %s, which does not exist" % quoted


def offences(root):
    yield from layer_offences(root)
    internal = internal_folders(root)
    for path in code_files(root, "src") + code_files(root, "tests"):
        yield from include_offences(root, path, internal)
    yield from test_offences(root)
    yield from size_offences(root)
    yield from architecture_offences(root)


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    found = list(offences(root))
    for line in found:
        print(line)
    if found:
        print("%d offence(s) against ARCHITECTURE.md's layering and folder rules" % len(found))
        return 1
    print("layering ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
