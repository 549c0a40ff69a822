#!/usr/bin/python3
"""Makes the function lists of bench/aiter_history.sh from a snapshot of aiter (names only).

    aiter_functions.py AITER_GIT OUT_DIR [--commit REV]

Reads the tree of REV (default HEAD) of the bare clone AITER_GIT with the watcher's own binding
model (src/python/aaw_model.py, aaw_resolver.py) and writes two watcher configs' function lists:
  OUT_DIR/aiter-init.json     every public name `import aiter` + `aiter.NAME` gives that is bound to
                              a function (a def), through aiter/__init__.py's imports and star imports
  OUT_DIR/aiter-modules.json  every public module-level def (name without a leading `_`) of every
                              module of the package whose dotted name is importable, as
                              `from aiter.a.b import f` + `f`
  OUT_DIR/aiter-stubs.json    every module-level def under aiter/ops/ decorated with `compile_ops(...)`,
                              private ones included (docs/bindings.md)
Each file is {"_comment", "commit", "functions_to_monitor": [...]}. Standard library only; nothing
of aiter is written but names.
"""

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "python"))
import aaw_collector  # noqa: E402
import aaw_model  # noqa: E402
import aaw_resolver  # noqa: E402
import aaw_values  # noqa: E402


class TreeHost:
    """aaw_resolver's host over one commit, from `git ls-tree -r`."""

    def __init__(self, repo, commit):
        self.repo = repo
        listing = subprocess.run(["git", "--git-dir", repo, "ls-tree", "-r", "-t", commit], check=True,
                                 capture_output=True, text=True).stdout
        self.blobs, self.trees = {}, set()
        for line in listing.splitlines():
            meta, path = line.split("\t", 1)
            _, kind, oid = meta.split()
            if kind == "blob":
                self.blobs[path] = oid
            elif kind == "tree":
                self.trees.add(path)

    def find_blob(self, path):
        return self.blobs.get(path)

    def is_directory(self, path):
        return path in self.trees

    def read_blob(self, blob):
        return subprocess.run(["git", "--git-dir", self.repo, "cat-file", "blob", blob], check=True,
                              capture_output=True).stdout.decode("utf-8", "surrogateescape")


def init_functions(host):
    """Public names of `aiter` bound to a def, in name order."""
    session = aaw_resolver.Session(host)
    module = session.finder.user_module("aiter")
    scope = session.tree.summary(module)
    candidates = set(scope.bindings)
    pending, seen = [module], set()
    while pending:  # names star imports bring in, through star imports again
        current = pending.pop()
        if current.name in seen:
            continue
        seen.add(current.name)
        for _, star in session.tree.summary(current).stars:
            target = session.import_target(current, star.level, star.module, star.line)
            if isinstance(target, aaw_values.Module) and target.blob is not None:
                target_scope = session.tree.summary(target)
                candidates.update(target_scope.all_names or target_scope.bindings)
                pending.append(target)
    names = []
    for name in sorted(n for n in candidates if not n.startswith("_")):
        session.start_function()
        try:
            value = session.member(module, name)
        except Exception:  # noqa: BLE001 (a name the resolver cannot follow is no candidate)
            continue
        if isinstance(value, aaw_values.Function):
            names.append(name)
    return [{"import_statement": "import aiter", "function_path": "aiter." + name} for name in names]


def module_functions(host):
    """Every public module-level def of every importable module of aiter."""
    return [{"import_statement": "from %s import %s" % (module, name), "function_path": name}
            for module, name, binding in _module_defs(host, "aiter/") if not name.startswith("_")]


def stub_functions(host):
    """Every module-level def under aiter/ops/ decorated with a call of compile_ops."""
    return [{"import_statement": "from %s import %s" % (module, name), "function_path": name}
            for module, name, binding in _module_defs(host, "aiter/ops/")
            if any(called and dotted and dotted[-1] == "compile_ops" for dotted, called in binding.decorator_parts)]


def _module_defs(host, prefix):
    """(module, name, Def) of every module-level def (its last binding) of every importable module
    under `prefix`, in path and name order."""
    for path in sorted(p for p in host.blobs if p.startswith(prefix) and p.endswith(".py")):
        parts = path[:-3].split("/")
        if parts[-1] == "__init__":
            parts.pop()
        if not all(part.isidentifier() for part in parts):
            continue  # no import statement names it
        summary = aaw_collector.summarize(host.read_blob(host.blobs[path]))
        if isinstance(summary, aaw_model.ParseFailure):
            continue
        for name in sorted(summary.bindings):
            binding = summary.bindings[name][-1][1]
            if isinstance(binding, aaw_model.Def):
                yield ".".join(parts), name, binding


def write(path, commit, comment, functions):
    with open(path, "w") as f:
        json.dump({"_comment": comment, "commit": commit, "functions_to_monitor": functions}, f, indent=1)
        f.write("\n")
    print("%s: %d functions" % (path, len(functions)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repo")
    parser.add_argument("out")
    parser.add_argument("--commit", default="HEAD")
    args = parser.parse_args()
    commit = subprocess.run(["git", "--git-dir", args.repo, "rev-parse", args.commit], check=True,
                            capture_output=True, text=True).stdout.strip()
    host = TreeHost(args.repo, commit)
    os.makedirs(args.out, exist_ok=True)
    write(os.path.join(args.out, "aiter-init.json"), commit,
          "Every public function `import aiter` exposes (bench/aiter_functions.py). Names only.",
          init_functions(host))
    write(os.path.join(args.out, "aiter-modules.json"), commit,
          "Every public module-level function of every public aiter module (bench/aiter_functions.py). Names only.",
          module_functions(host))
    write(os.path.join(args.out, "aiter-stubs.json"), commit,
          "Every compile_ops stub under aiter/ops/ (bench/aiter_functions.py). Names only.",
          stub_functions(host))


if __name__ == "__main__":
    main()
