#!/usr/bin/python3
"""Generates a small package history with a real C extension, for benchmarking runtime extraction.

    generate_runtime_history.py OUT_DIR [--commits 10] [--functions 50] [--seed 1]

Writes:
  OUT_DIR/repo.git            bare repository; `main` has --commits first-parent commits
  OUT_DIR/config-N.json       watcher configs (extractor runtime, bisect off) monitoring N functions,
                              for N in 1 and --functions
  OUT_DIR/functions.txt       the monitored function paths, one a line
  OUT_DIR/manifest.json       arguments and head commit (written last: marks completion)

The package `benchpkg/` has setup.py building `benchpkg._native` from C, `benchpkg/api.py` with
--functions wrappers `f0 ... fN` around it, and `benchpkg/__init__.py` re-exporting them. Every
commit after the first changes one wrapper's signature or one unrelated file; every fifth commit
also edits the C source, so some builds recompile and most do not. Standard library only.
"""

import argparse
import json
import os
import random
import subprocess

AUTHOR = "Bench Author <bench@example.com>"
BASE_TIME = 1_700_000_000

SETUP = """from setuptools import Extension, setup

setup(name="benchpkg", version="0.1", packages=["benchpkg"],
      ext_modules=[Extension("benchpkg._native", ["benchpkg/_native.c"])])
"""

NATIVE = """#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* revision %d */
static PyObject* add(PyObject* self, PyObject* args) {
  long a, b;
  if (!PyArg_ParseTuple(args, "ll", &a, &b)) return NULL;
  return PyLong_FromLong(a + b);
}

static PyMethodDef methods[] = {{"add", add, METH_VARARGS, "a + b"}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", NULL, -1, methods};
PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
"""


def api_source(signatures):
    lines = ["from . import _native", ""]
    for name, params in signatures:
        lines += [f"def {name}({params}):", "    return _native.add(1, 2)", ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--commits", type=int, default=10)
    parser.add_argument("--functions", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    repo = os.path.join(args.out, "repo.git")
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", repo], check=True)

    signatures = [[f"f{i}", "x, y=1"] for i in range(args.functions)]
    native_revision = 0
    stream = []

    def blob(path, text):
        data = text.encode()
        stream.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")

    for c in range(args.commits):
        files = {}
        if c == 0:
            files["setup.py"] = SETUP
            files["benchpkg/_native.c"] = NATIVE % native_revision
            files["benchpkg/__init__.py"] = "from .api import *\n"
            files["benchpkg/api.py"] = api_source(signatures)
            files["README.md"] = "benchpkg\n"
        else:
            if rng.random() < 0.5:
                victim = signatures[rng.randrange(len(signatures))]
                victim[1] += f", p{c}=None"
                files["benchpkg/api.py"] = api_source(signatures)
            else:
                files["README.md"] = f"benchpkg revision {c}\n"
            if c % 5 == 0:
                native_revision += 1
                files["benchpkg/_native.c"] = NATIVE % native_revision
        when = BASE_TIME + c * 3600
        message = f"commit {c}\n".encode()
        header = (f"commit refs/heads/main\nmark :{c + 1}\n"
                  f"author {AUTHOR} {when} +0000\ncommitter {AUTHOR} {when} +0000\n"
                  f"data {len(message)}\n").encode() + message
        if c > 0:
            header += f"from :{c}\n".encode()
        stream.append(header)
        for path, text in sorted(files.items()):
            blob(path, text)
        stream.append(b"\n")
    subprocess.run(["git", "--git-dir", repo, "fast-import", "--quiet"], input=b"".join(stream), check=True)
    head = subprocess.run(["git", "--git-dir", repo, "rev-parse", "main"], capture_output=True, text=True,
                          check=True).stdout.strip()
    first = subprocess.run(["git", "--git-dir", repo, "rev-list", "--max-parents=0", "main"], capture_output=True,
                           text=True, check=True).stdout.strip()
    names = [name for name, _ in signatures]
    with open(os.path.join(args.out, "functions.txt"), "w") as out:
        out.write("\n".join(names) + "\n")
    for count in sorted({1, args.functions}):
        config = {
            "repository_url": repo,
            "branch": "main",
            "functions_to_monitor": [{"import_statement": "import benchpkg", "function_path": f"benchpkg.{n}"}
                                     for n in names[:count]],
            "start_commit": first,
            "extractor": "runtime",
            "build": {"env": {}, "submodules": False, "timeout_seconds": 600},
            "runtime": {"bisect": False, "extract_timeout_seconds": 120},
            "sandbox": {"kind": "auto"},
        }
        with open(os.path.join(args.out, f"config-{count}.json"), "w") as out:
            json.dump(config, out, indent=2)
    with open(os.path.join(args.out, "manifest.json"), "w") as out:
        json.dump({"commits": args.commits, "functions": args.functions, "seed": args.seed, "head": head,
                   "first": first}, out, indent=2)


if __name__ == "__main__":
    main()
