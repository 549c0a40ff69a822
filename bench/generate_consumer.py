#!/usr/bin/env python3
"""A vLLM-sized consumer of aiter for `discover` and `check`, generated from call shapes.

bench/consumer_shapes.json lists, for each aiter callable vLLM called statically on its main of
2026-08 (table 4a of the research notes on vLLM's aiter usage), the import as vLLM writes it, where
(lazy inside a function, at module level, or stored on self), the name it calls it by, the number
of positional arguments, the keyword names, whether it forwards *args/**kwargs, and how many call
sites. Shapes only: no vLLM code. Each shape becomes that many call sites in a file at vLLM's path;
then plain files that never mention aiter fill the tree up to --files.

    /usr/bin/python3 bench/generate_consumer.py OUT_DIR [--files 2200] [--mention-every 50]
        [--shapes bench/consumer_shapes.json]
"""

import argparse
import json
import os

_FILLER = '''"""Generated module {n}: ordinary code that does not import the watched package.{mention}"""
import functools
import math
from dataclasses import dataclass


@dataclass
class Config{n}:
    size: int = {n}
    scale: float = 1.0
    name: str = "m{n}"


class Layer{n}:
    def __init__(self, config: Config{n}):
        self.config = config
        self.cache = {{}}

    def forward(self, x, *, residual=None):
        y = [v * self.config.scale for v in x]
        if residual is not None:
            y = [a + b for a, b in zip(y, residual)]
        return self.post(y)

    def post(self, y):
        return [math.tanh(v) for v in y]


@functools.lru_cache
def helper_{n}(a, b=2, *args, **kwargs):
    total = a * b
    for value in args:
        total += value
    return total + len(kwargs)
'''


def call(shape, indent):
    arguments = ["a%d" % i for i in range(shape["positional"])]
    arguments += ["%s=None" % k for k in shape["keywords"]]
    if shape["star"] in ("*", "**"):
        arguments.append("*args")
    if shape["star"] == "**":
        arguments.append("**kwargs")
    return "%sreturn %s(%s)\n" % (indent, shape["via"], ", ".join(arguments))


def import_statement(shape):
    text = shape["import"]
    if text.startswith(("import ", "from ")) and "..." not in text and "\u2026" not in text:
        return text
    module, name = shape["target"].rsplit(".", 1)
    local = shape["via"].split(".")[0]
    return "from %s import %s" % (module, name) + ("" if local == name else " as %s" % local)


def parameters(shape):
    names = ["a%d" % i for i in range(shape["positional"])]
    return ", ".join(names + ["*args", "**kwargs"])


def write_shape(out, shape, index):
    """Appends the shape's call sites to the text of its file; returns (header, body)."""
    if shape["target"].startswith("torch.ops."):
        return "import torch\n", "def dispatch_%d(*args, **kwargs):\n    return %s(*args)\n\n\n" % (index, shape["via"])
    if shape["context"] == "local_alias":  # try/except ImportError between two paths, then `f = mod.f`
        body = ""
        for site in range(shape["sites"]):
            body += "def call_%d_%d(%s):\n    try:\n        %s\n    except ImportError:\n        %s\n" % (
                index, site, parameters(shape), shape["import"], shape["fallback_import"])
            body += "    %s = %s\n" % (shape["via"], shape["alias_of"]) + call(shape, "    ") + "\n\n"
        return "", body
    if shape["context"] == "alias":
        attribute = shape["via"].split(".", 1)[1]
        module, name = shape["target"].rsplit(".", 1)
        body = "class Holder%d:\n    def __init__(self):\n        from %s import %s\n        self.%s = %s\n\n" % (
            index, module, name, attribute, name)
        for site in range(shape["sites"]):
            body += "    def run_%d(self, %s):\n" % (site, parameters(shape)) + call(shape, "        ") + "\n"
        return "", body + "\n"
    header = import_statement(shape) + "\n" if shape["context"] == "module" else ""
    body = ""
    for site in range(shape["sites"]):
        body += "def call_%d_%d(%s):\n" % (index, site, parameters(shape))
        if shape["context"] != "module":
            body += "    %s\n" % import_statement(shape)
        body += call(shape, "    ") + "\n\n"
    return header, body


def generate(out, shapes, files, mention_every):
    by_file = {}
    for index, shape in enumerate(shapes):
        header, body = write_shape(out, shape, index)
        headers, bodies = by_file.setdefault(shape["file"], ([], []))
        if header and header not in headers:
            headers.append(header)
        bodies.append(body)
    for relative, (headers, bodies) in by_file.items():
        path = os.path.join(out, "vllm", relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            handle.write("".join(headers) + "\n\n" + "".join(bodies))
    for n in range(max(0, files - len(by_file))):
        directory = os.path.join(out, "vllm", "generated", "d%02d" % (n // 100))
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "m%04d.py" % n), "w") as handle:
            mention = " Unlike aiter's kernels." if mention_every and n % mention_every == 0 else ""
            handle.write(_FILLER.format(n=n, mention=mention))
    return len(by_file)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--files", type=int, default=2200)
    parser.add_argument("--mention-every", type=int, default=50,
                        help="every Nth plain file names aiter in its docstring, so the scanner must parse it "
                             "(vLLM: 63 files name aiter, 32 import it); 1: every file, 0: none")
    parser.add_argument("--shapes", default=os.path.join(os.path.dirname(__file__), "consumer_shapes.json"))
    args = parser.parse_args()
    with open(args.shapes) as handle:
        shapes = json.load(handle)
    importing = generate(args.out, shapes, args.files, args.mention_every)
    sites = sum(s["sites"] for s in shapes)
    print("%d files (%d importing aiter), %d shapes, %d call sites" % (max(args.files, importing), importing,
                                                                       len(shapes), sites))


if __name__ == "__main__":
    main()
