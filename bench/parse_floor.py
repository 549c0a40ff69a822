#!/usr/bin/python3
"""What parsing a repository's whole history costs at the least, whatever reads it afterwards.

    bench/parse_floor.py AITER_GIT [PATHSPEC]

Reads every distinct blob of PATHSPEC (default aiter/*.py) in the repository's first-parent
history once, then times (CPU time of this process) three ways of parsing all of them:

- ast.parse of each whole text: Python objects for every node;
- compile() of each whole text to bytecode: CPython's parser without the Python objects, the
  cheapest check that a text parses which the standard library offers;
- the watcher's scheme: ast.parse of each distinct skeleton (every def's body blanked line for
  line, as src/extract/static/python_skeleton.cpp does) and of each distinct body once, wrapped in
  a def, as aaw_summary checks them.

A replay that must know, at every commit, whether each module on an import path parses pays at
least the third for the blobs it reads; a replay of every function pays it for all of them
(docs/performance.md, "The floor"). Standard library only.
"""

import ast
import sys
import time

from body_statements import defs, distinct_blobs, first_line, read_blobs


def skeleton_and_bodies(text):
    """(the text with every def's body blanked line for line, the bodies blanked), or None when it
    does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    lines = text.split("\n")
    bodies = []
    for node in defs(tree.body):
        if node.body[0].lineno == node.lineno:
            continue
        start = first_line(node.body[0])
        bodies.append((isinstance(node, ast.AsyncFunctionDef), "\n".join(lines[start - 1:node.end_lineno])))
        first = lines[start - 1]
        lines[start - 1] = first[:len(first) - len(first.lstrip())] + "pass"
        for at in range(start, node.end_lineno):
            lines[at] = ""
    return "\n".join(lines), bodies


def timed(parse, texts):
    """CPU seconds to parse every text, and how many did not parse."""
    failed = 0
    started = time.process_time()
    for text in texts:
        try:
            parse(text)
        except (SyntaxError, ValueError):
            failed += 1
    return time.process_time() - started, failed


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: bench/parse_floor.py AITER_GIT [PATHSPEC]")
    repo, pathspec = sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else "aiter/*.py"
    texts = [data for _, data in read_blobs(repo, distinct_blobs(repo, pathspec))]
    skeletons, bodies = set(), set()
    for text in texts:
        cut = skeleton_and_bodies(text.decode("utf-8", "replace"))
        if cut is not None:
            skeletons.add(cut[0])
            bodies.update(("async def _():\n" if is_async else "def _():\n") + body for is_async, body in cut[1])
    megabytes = lambda strings: sum(len(s) for s in strings) / 1e6
    whole, whole_failed = timed(ast.parse, texts)
    compiled, _ = timed(lambda text: compile(text, "<blob>", "exec", dont_inherit=True), texts)
    skeleton_time, _ = timed(ast.parse, skeletons)
    body_time, _ = timed(ast.parse, bodies)
    print("%d distinct blobs of %s, %.1f MB (%d do not parse)" % (len(texts), pathspec, megabytes(texts),
                                                                   whole_failed))
    print("| parsed | texts | MB | CPU (s) |")
    print("|---|---|---|---|")
    print("| ast.parse, whole texts | %d | %.1f | %.2f |" % (len(texts), megabytes(texts), whole))
    print("| compile() to bytecode, whole texts | %d | %.1f | %.2f |" % (len(texts), megabytes(texts), compiled))
    print("| ast.parse, distinct skeletons | %d | %.1f | %.2f |" % (len(skeletons), megabytes(skeletons),
                                                                   skeleton_time))
    print("| ast.parse, distinct bodies | %d | %.1f | %.2f |" % (len(bodies), megabytes(bodies), body_time))
    print("| the watcher's scheme (skeletons and bodies) | | | %.2f |" % (skeleton_time + body_time))


if __name__ == "__main__":
    main()
