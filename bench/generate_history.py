#!/usr/bin/python3
"""Generates a synthetic aiter-like git history for benchmarking `aiter-api-watcher watch --once`.

    generate_history.py OUT_DIR [--commits 3000] [--modules 200] [--functions 50]
                                [--touch-rate 0.05] [--seed 1]

Writes, for a given set of arguments always the same bytes (and so the same commit ids):
  OUT_DIR/repo.git              bare repository; `main` has exactly --commits first-parent commits
  OUT_DIR/config.json           watcher config monitoring --functions functions from the start commit
  OUT_DIR/expected_changes.txt  one line per planted signature change: "<commit> <function_path> <mutation>"
  OUT_DIR/manifest.json         arguments, head commit, counts, generation time (written last: marks completion)

The package `pkg/` mirrors aiter's layout: pkg/__init__.py star-imports every pkg/ops/mNNN.py,
modules import `compile_ops` from pkg/jit/core.py and decorate `def f(...) -> None: ...` stubs with it,
about half of the modules declare `__all__`. The first commit creates everything; each later commit
modifies 1-3 files. About --touch-rate of them change the signature of one monitored function
(expected_changes.txt); all the others only edit bodies, comments, signatures of functions nobody
monitors, pkg/__init__.py, or unrelated docs/*.md and csrc/*.cu files — so many commits change blobs
the resolver has to read without changing any monitored signature.

The history is written as one `git fast-import` stream (seconds for thousands of commits).
Standard library only.
"""

import argparse
import ast
import json
import os
import random
import subprocess
import sys
import time

AUTHOR = "Bench Author <bench@example.com>"
BASE_TIME = 1_700_000_000  # 2023-11-14; commit i is dated BASE_TIME + i * 3600
WORDS = ["gemm", "moe", "norm", "rope", "attn", "quant", "topk", "sort", "act", "smooth", "reduce",
         "cache", "paged", "mla", "fmha", "sample", "gather", "scatter", "pad", "shuffle"]
PARAM_NAMES = ["input", "weight", "bias", "out", "scale", "eps", "topk", "block_size", "dtype",
               "residual", "group_size", "num_experts", "sorted_ids", "sorted_weights", "x_scale",
               "w_scale", "kernel_name", "activation", "quant_type", "stride", "alpha", "beta",
               "seq_lens", "block_tables", "k_cache", "v_cache", "max_seq_len", "num_heads",
               "head_size", "is_causal", "dropout_p", "softmax_scale", "splitk", "padding", "layout"]
ANNOTATIONS = [None, "torch.Tensor", "torch.Tensor", "int", "float", "bool", "str",
               "Optional[torch.Tensor]", "Optional[int]", "torch.dtype", "list[int]"]
DEFAULTS = ["None", "0", "1", "-1", "1.0", "1e-06", "True", "False", "'auto'", "'silu'", "128",
            "torch.float16", "(1, 1)", "32", "0.5"]
MUTATIONS = ["add_optional", "add_kwonly", "insert_required", "rename", "change_default", "remove_param",
             "swap_params", "change_annotation", "change_return", "make_kwonly", "remove_default",
             "add_varkw"]


def canonical(expr):
    """An expression as `ast.unparse` prints it: the watcher compares defaults/annotations this way."""
    return None if expr is None else ast.unparse(ast.parse(expr, mode="eval").body)


class Param:
    def __init__(self, name, annotation=None, default=None):
        self.name, self.annotation, self.default = name, annotation, default

    def render(self):
        text = self.name
        if self.annotation is not None:
            text += ": " + self.annotation
        if self.default is not None:
            text += (" = " if self.annotation is not None else "=") + self.default
        return text


class Function:
    def __init__(self, name, stub):
        self.name, self.stub = name, stub
        self.pos = []        # positional-or-keyword: required ones first, then ones with defaults
        self.varargs = None  # name of *args or None
        self.kwonly = []
        self.varkw = None    # name of **kwargs or None
        self.ret = None
        self.rev = 0         # body revision: bumped by body edits
        self.note = "initial version"

    def names(self):
        return [p.name for p in self.pos + self.kwonly] + [n for n in (self.varargs, self.varkw) if n]

    def signature_key(self):
        """What the watcher compares: names, kinds, order, canonical defaults and annotations."""
        def key(p, kind):
            return (p.name, kind, canonical(p.default), canonical(p.annotation))
        return ([key(p, "pos") for p in self.pos], self.varargs, [key(p, "kw") for p in self.kwonly],
                self.varkw, canonical(self.ret))

    def n_required(self):
        return sum(1 for p in self.pos if p.default is None)

    def render_params(self):
        parts = [p.render() for p in self.pos]
        if self.varargs:
            parts.append("*" + self.varargs)
        elif self.kwonly:
            parts.append("*")
        parts += [p.render() for p in self.kwonly]
        if self.varkw:
            parts.append("**" + self.varkw)
        return parts

    def render(self, module):
        parts = self.render_params()
        ret = " -> " + self.ret if self.ret else ""
        head = "def %s(%s)%s:" % (self.name, ", ".join(parts), ret)
        if len(head) > 96:  # aiter style: one parameter a line
            head = "def %s(\n%s\n)%s:" % (self.name, "\n".join("    %s," % p for p in parts), ret)
        if self.stub:
            return ("# %s (rev %d)\n@compile_ops(\"module_%s\")\n%s ...\n"
                    % (self.note, self.rev, module.name, head))
        return ('%s\n    """%s: %s (rev %d)."""\n'
                "    # %s\n"
                "    state = _%s_prepare(%r, %d)\n"
                "    if state is None:\n"
                "        return None\n"
                "    return _%s_dispatch(state, %d)\n"
                % (head, self.name, WORDS[module.index % len(WORDS)], self.rev, self.note, module.name,
                   self.name, self.rev, module.name, self.rev * 7 % 101))


class Module:
    def __init__(self, index):
        self.index = index
        self.name = "m%03d" % index
        self.path = "pkg/ops/%s.py" % self.name
        self.functions = []
        self.has_all = False
        self.not_exported = None  # a public function left out of __all__
        self.comment_rev = 0

    def render(self):
        out = ["# SPDX-License-Identifier: MIT",
               "# Copyright (C) 2024, Synthetic Benchmark Authors. All rights reserved.",
               '"""pkg.ops.%s: synthetic operators (comment rev %d)."""' % (self.name, self.comment_rev),
               "import functools",
               "from typing import Optional",
               "",
               "import torch",
               "",
               "from ..jit.core import compile_ops",
               ""]
        if self.has_all:
            exported = [f.name for f in self.functions if f.name != self.not_exported]
            out.append("__all__ = [%s]" % ", ".join(repr(n) for n in exported))
            out.append("")
        out += ["",
                "def _%s_prepare(name, rev):" % self.name,
                "    return (name, rev)",
                "",
                "",
                "@functools.lru_cache(maxsize=None)",
                "def _%s_dispatch(state, salt):" % self.name,
                "    return hash((state, salt))",
                ""]
        for f in self.functions:
            out += ["", f.render(self)]
        return "\n".join(out).rstrip("\n") + "\n"


class TextFile:
    """docs/*.md or csrc/*.cu: a list of blocks, edited by replacing/adding/removing one."""

    def __init__(self, path, rng):
        self.path, self.rng = path, rng
        self.cuda = path.endswith(".cu")
        self.serial = 0
        self.blocks = [self.new_block() for _ in range(rng.randint(4, 10))]

    def new_block(self):
        self.serial += 1
        n = self.serial
        if self.cuda:
            c = self.rng.randint(1, 999)
            return ("__global__ void kernel_%d(float* out, const float* in, int n) {\n"
                    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "  if (i < n) out[i] = in[i] * %d.0f + %d;  // tuned v%d\n}\n" % (n, c, n, c))
        words = " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(8, 30)))
        return "## Section %d\n\n%s.\n" % (n, words.capitalize())

    def edit(self):
        r = self.rng.random()
        if r < 0.2 and len(self.blocks) < 14:
            self.blocks.append(self.new_block())
        elif r < 0.3 and len(self.blocks) > 3:
            del self.blocks[self.rng.randrange(len(self.blocks))]
        else:
            self.blocks[self.rng.randrange(len(self.blocks))] = self.new_block()

    def render(self):
        if self.cuda:
            return "// SPDX-License-Identifier: MIT\n#include <hip/hip_runtime.h>\n\n" + "\n".join(self.blocks)
        return "# %s\n\n" % os.path.basename(self.path) + "\n".join(self.blocks)


class Generator:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.modules = [self.make_module(i) for i in range(args.modules)]
        self.text_files = ([TextFile("docs/%s_%02d.md" % (WORDS[i % len(WORDS)], i), self.rng) for i in range(30)]
                           + [TextFile("csrc/kernels/%s_%03d.cu" % (WORDS[i % len(WORDS)], i), self.rng)
                              for i in range(60)])
        self.pkg_version = 0
        self.core_rev = 0
        self.monitored = []  # (module, function, import_statement, function_path)
        self.choose_monitored()

    # --- the package ------------------------------------------------------------------------------
    def new_param(self, f, required):
        used = f.names()
        free = [n for n in PARAM_NAMES if n not in used]
        name = self.rng.choice(free) if free else "arg%d" % len(used)
        while name in used:
            name += "_"
        default = None if required else self.rng.choice(DEFAULTS)
        return Param(name, self.rng.choice(ANNOTATIONS), default)

    def make_module(self, index):
        m = Module(index)
        m.has_all = self.rng.random() < 0.5
        count = self.rng.randint(6, 10)
        suffixes = self.rng.sample(WORDS, count)
        for k, suffix in enumerate(suffixes):
            stub = k == count - 1  # one compile_ops stub a module
            f = Function("f%03d_%s" % (index, suffix + ("_asm" if stub else "")), stub)
            for _ in range(self.rng.randint(1, 4)):
                f.pos.append(self.new_param(f, required=True))
            for _ in range(self.rng.randint(0, 3)):
                f.pos.append(self.new_param(f, required=False))
            if self.rng.random() < 0.3:
                for _ in range(self.rng.randint(1, 2)):
                    f.kwonly.append(self.new_param(f, required=self.rng.random() < 0.2))
            if self.rng.random() < 0.1:
                f.varargs = "args"
            if self.rng.random() < 0.15:
                f.varkw = "kwargs"
            f.ret = "None" if stub else self.rng.choice([None, "torch.Tensor", "tuple[torch.Tensor, torch.Tensor]"])
            m.functions.append(f)
        return m

    def choose_monitored(self):
        a = self.args
        order = self.rng.sample(range(a.modules), min(a.functions, a.modules))
        while len(order) < a.functions:  # more functions than modules: several a module
            order.append(order[len(order) % a.modules])
        taken = []
        for k, mi in enumerate(sorted(order) if a.functions <= a.modules else order):
            m = self.modules[mi]
            free = [f for f in m.functions if f not in taken]
            stub = [f for f in free if f.stub]
            f = stub[0] if (k % 4 == 3 and stub) else self.rng.choice(free)
            taken.append(f)
            if k % 2 == 0:
                self.monitored.append((m, f, "import pkg", "pkg." + f.name))
            else:
                self.monitored.append((m, f, "from pkg.ops.%s import %s" % (m.name, f.name), f.name))
        monitored = [f for _, f, _, _ in self.monitored]
        for m in self.modules:  # leave one function nobody monitors out of __all__
            if m.has_all:
                candidates = [f.name for f in m.functions if f not in monitored]
                if candidates and self.rng.random() < 0.5:
                    m.not_exported = self.rng.choice(candidates)
        self.monitored_functions = monitored
        self.monitored_modules = []
        for m, _, _, _ in self.monitored:
            if m not in self.monitored_modules:
                self.monitored_modules.append(m)

    def render_init(self):
        lines = ['"""Synthetic aiter-like package for aiter-api-watcher benchmarks."""',
                 "# version bumped by release commits",
                 '__version__ = "0.1.%d"' % self.pkg_version, ""]
        lines += ["from .ops.%s import *  # noqa: F401,F403" % m.name for m in self.modules]
        return "\n".join(lines) + "\n"

    def render_core(self):
        return ('"""JIT glue: compile_ops wraps a Python stub with the compiled kernel (rev %d)."""\n'
                "import functools\n\n\n"
                "def compile_ops(module_name, fc_name=None, develop=False):\n"
                "    def decorator(func):\n"
                "        @functools.wraps(func)\n"
                "        def wrapper(*args, **kwargs):\n"
                "            return _load(module_name, fc_name or func.__name__)(*args, **kwargs)\n"
                "        return wrapper\n"
                "    return decorator\n\n\n"
                "def _load(module_name, name):\n"
                "    raise RuntimeError('kernel %%s.%%s is not built (rev %d)' %% (module_name, name))\n"
                % (self.core_rev, self.core_rev))

    # --- signature mutations ----------------------------------------------------------------------
    def mutate_signature(self, f):
        """Changes f's signature (always observably, always valid Python); returns the mutation name."""
        before = f.signature_key()
        for _ in range(100):
            kind = self.rng.choice(MUTATIONS)
            if self.apply(f, kind) and f.signature_key() != before:
                return kind
        raise RuntimeError("no mutation applies to " + f.name)

    def apply(self, f, kind):
        rng, params = self.rng, f.pos + f.kwonly
        if kind == "add_optional":
            f.pos.append(self.new_param(f, required=False))
        elif kind == "add_kwonly":
            f.kwonly.append(self.new_param(f, required=False))
        elif kind == "insert_required":
            f.pos.insert(rng.randint(0, f.n_required()), self.new_param(f, required=True))
        elif kind == "rename":
            if not params:
                return False
            p = rng.choice(params)
            p.name = self.new_param(f, required=True).name
        elif kind == "change_default":
            with_default = [p for p in params if p.default is not None]
            if not with_default:
                return False
            p = rng.choice(with_default)
            p.default = rng.choice([d for d in DEFAULTS if canonical(d) != canonical(p.default)])
        elif kind == "remove_param":
            if not params:
                return False
            p = rng.choice(params)
            (f.pos if p in f.pos else f.kwonly).remove(p)
        elif kind == "swap_params":  # two neighbours of the same sort (both required or both not)
            pairs = [i for i in range(len(f.pos) - 1)
                     if (f.pos[i].default is None) == (f.pos[i + 1].default is None)]
            if not pairs:
                return False
            i = rng.choice(pairs)
            f.pos[i], f.pos[i + 1] = f.pos[i + 1], f.pos[i]
        elif kind == "change_annotation":
            if not params:
                return False
            p = rng.choice(params)
            p.annotation = rng.choice([a for a in ANNOTATIONS if canonical(a) != canonical(p.annotation)])
        elif kind == "change_return":
            f.ret = rng.choice([r for r in [None, "None", "torch.Tensor", "int", "tuple[torch.Tensor, torch.Tensor]"]
                                if canonical(r) != canonical(f.ret)])
        elif kind == "make_kwonly":  # last positional parameter becomes keyword-only
            if not f.pos or f.varargs:
                return False
            f.kwonly.insert(0, f.pos.pop())
        elif kind == "remove_default":  # only where Python allows it: the first defaulted positional or a kw-only
            candidates = [p for p in f.kwonly if p.default is not None]
            if f.n_required() < len(f.pos):
                candidates.append(f.pos[f.n_required()])
            if not candidates:
                return False
            rng.choice(candidates).default = None
        elif kind == "add_varkw":
            if f.varkw or "kwargs" in f.names():
                return False
            f.varkw = "kwargs"
        else:
            raise AssertionError(kind)
        return True

    def edit_module(self, m, allow_signature):
        """A change to m that never touches a monitored signature."""
        r = self.rng.random()
        unmonitored = [f for f in m.functions if f not in self.monitored_functions]
        if allow_signature and r < 0.25 and unmonitored:
            self.mutate_signature(self.rng.choice(unmonitored))
        elif r < 0.35:
            m.comment_rev += 1
        else:
            f = self.rng.choice(m.functions)
            f.rev += 1
            f.note = self.rng.choice(["tune launch bounds", "fix stride handling", "use fp32 accumulation",
                                      "handle empty input", "cleanup", "pick the asm kernel for gfx942",
                                      "fall back to the ck kernel", "avoid a device sync"])

    # --- the history ------------------------------------------------------------------------------
    def initial_files(self):
        files = {"README.md": "# pkg\n\nSynthetic aiter-like package for benchmarks.\n",
                 "setup.py": "from setuptools import setup, find_packages\n\nsetup(name='pkg', packages=find_packages())\n",
                 "pkg/__init__.py": self.render_init(),
                 "pkg/ops/__init__.py": '"""Operators."""\n',
                 "pkg/jit/__init__.py": "",
                 "pkg/jit/core.py": self.render_core()}
        for m in self.modules:
            files[m.path] = m.render()
        for t in self.text_files:
            files[t.path] = t.render()
        return files

    def next_commit(self, planted):
        """Returns (subject, {path: content}, planted (function_path, mutation) or None)."""
        rng = self.rng
        touched = {}  # path -> render callable, in order
        change = None
        subject = None

        def touch_module(m, allow_signature=True):
            if m.path not in touched:
                touched[m.path] = m.render
            self.edit_module(m, allow_signature)

        if planted:
            k = rng.randrange(len(self.monitored))
            m, f, _, path = self.monitored[k]
            mutation = self.mutate_signature(f)
            touched[m.path] = m.render
            change = (path, mutation)
            subject = "%s: %s" % (f.name, mutation.replace("_", " "))
            if rng.random() < 0.3:
                self.edit_module(m, allow_signature=False)
        if rng.random() < 0.7:  # most commits touch docs or kernels
            t = rng.choice(self.text_files)
            t.edit()
            touched[t.path] = t.render
            subject = subject or "%s: update %s" % (t.path.split("/")[0], os.path.basename(t.path))
        if rng.random() < 0.5:  # a module the resolver reads for a monitored function
            m = rng.choice(self.monitored_modules)
            touch_module(m)
            subject = subject or "ops/%s: %s" % (m.name, rng.choice(["tune", "fix", "refactor", "cleanup"]))
        if rng.random() < 0.3:
            m = rng.choice(self.modules)
            touch_module(m)
            subject = subject or "ops/%s: update" % m.name
        if rng.random() < 0.03:
            if rng.random() < 0.6:
                self.pkg_version += 1
                touched["pkg/__init__.py"] = self.render_init
                subject = subject or "release 0.1.%d" % self.pkg_version
            else:
                self.core_rev += 1
                touched["pkg/jit/core.py"] = self.render_core
                subject = subject or "jit: core rev %d" % self.core_rev
        if not touched:
            t = rng.choice(self.text_files)
            t.edit()
            touched[t.path] = t.render
            subject = "%s: update %s" % (t.path.split("/")[0], os.path.basename(t.path))
        paths = list(touched)
        if len(paths) > 3:
            # keep the planted module (first) and two others; dropped edits land in a later commit
            paths = paths[:3]
        return subject, {p: touched[p]() for p in paths}, change


def data(payload):
    return b"data %d\n" % len(payload) + payload + b"\n"


def run_fast_import(repo, marks, stream_writer):
    proc = subprocess.Popen(["git", "-C", repo, "fast-import", "--quiet", "--done",
                             "--export-marks=" + marks], stdin=subprocess.PIPE)
    try:
        stream_writer(proc.stdin)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    if proc.wait() != 0:
        sys.exit("git fast-import failed")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--commits", type=int, default=3000)
    parser.add_argument("--modules", type=int, default=200)
    parser.add_argument("--functions", type=int, default=50)
    parser.add_argument("--touch-rate", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.commits < 1 or args.modules < 1 or args.functions < 1 or not 0 <= args.touch_rate <= 1:
        parser.error("--commits, --modules and --functions must be >= 1, --touch-rate in [0, 1]")
    if args.functions > args.modules * 6:
        parser.error("at most 6 monitored functions a module (--functions <= 6 * --modules)")

    started = time.monotonic()
    out = os.path.abspath(args.out_dir)
    repo = os.path.join(out, "repo.git")
    if os.path.exists(repo):
        sys.exit("%s exists: remove it or choose another OUT_DIR" % repo)
    os.makedirs(out, exist_ok=True)
    subprocess.run(["git", "init", "--quiet", "--bare", "--initial-branch=main", repo], check=True)

    gen = Generator(args)
    n_planted = min(args.commits - 1, round(args.commits * args.touch_rate))
    planted_at = set(gen.rng.sample(range(1, args.commits), n_planted))
    planted = []  # (commit index, function_path, mutation)
    marks = os.path.join(out, "marks")

    def write_stream(sink):
        for i in range(args.commits):
            if i == 0:
                subject, files, change = "initial import of pkg", gen.initial_files(), None
            else:
                subject, files, change = gen.next_commit(i in planted_at)
            if change:
                planted.append((i, change[0], change[1]))
            when = BASE_TIME + i * 3600
            chunks = [b"commit refs/heads/main\nmark :%d\n" % (i + 1),
                      b"author %s %d +0000\n" % (AUTHOR.encode(), when),
                      b"committer %s %d +0000\n" % (AUTHOR.encode(), when),
                      data(subject.encode())]
            if i > 0:
                chunks.append(b"from :%d\n" % i)
            for path, content in files.items():
                chunks.append(b"M 100644 inline %s\n" % path.encode())
                chunks.append(data(content.encode()))
            sink.write(b"".join(chunks))
        sink.write(b"done\n")

    run_fast_import(repo, marks, write_stream)
    shas = {}
    with open(marks) as fh:
        for line in fh:
            mark, sha = line.split()
            shas[int(mark[1:]) - 1] = sha
    os.remove(marks)

    config = {"repository_url": repo,
              "branch": "main",
              "functions_to_monitor": [{"import_statement": imp, "function_path": path}
                                       for _, _, imp, path in gen.monitored],
              "start_commit": shas[0],
              "state_dir": os.path.join(out, "state"),
              "log": {"file": os.path.join(out, "watcher.log")}}
    with open(os.path.join(out, "config.json"), "w") as fh:
        json.dump(config, fh, indent=2)
        fh.write("\n")
    with open(os.path.join(out, "expected_changes.txt"), "w") as fh:
        fh.write("# planted signature changes, oldest first: commit function_path mutation\n")
        for i, path, mutation in planted:
            fh.write("%s %s %s\n" % (shas[i], path, mutation))
    seconds = time.monotonic() - started
    manifest = {"commits": args.commits, "modules": args.modules, "functions": args.functions,
                "touch_rate": args.touch_rate, "seed": args.seed, "start_commit": shas[0],
                "head": shas[args.commits - 1], "planted_changes": len(planted),
                "generation_seconds": round(seconds, 2)}
    with open(os.path.join(out, "manifest.json"), "w") as fh:
        json.dump(manifest, fh, indent=2)
        fh.write("\n")
    print("generated %d commits (%d planted signature changes, %d monitored functions) in %.2f s: %s"
          % (args.commits, len(planted), args.functions, seconds, out), file=sys.stderr)


if __name__ == "__main__":
    main()
