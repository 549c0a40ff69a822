#!/usr/bin/python3
"""How much less text checking function bodies one top-level statement at a time would parse.

    bench/body_statements.py AITER_GIT [PATHSPEC]

Reads every distinct blob of PATHSPEC (default aiter/*.py) in the repository's first-parent
history, and for every def whose body is not on its header's line (as the skeleton blanks them:
module-level functions and methods) counts the distinct body texts and the distinct texts of their
top-level statements (decorators with their def, from a statement's first line to the next one's),
with their sizes: each distinct text is parsed once in either scheme, so the sizes compare the
parsing (docs/performance.md, "One function at a time"). Standard library only.
"""

import ast
import subprocess
import sys


def distinct_blobs(repo, pathspec):
    log = subprocess.run(["git", "--git-dir", repo, "log", "--first-parent", "--reverse", "--format=", "--raw",
                          "--no-abbrev", "HEAD", "--", pathspec], check=True, capture_output=True, text=True).stdout
    blobs, seen = [], set()
    for line in log.splitlines():
        fields = line.split()
        if len(fields) >= 6 and set(fields[3]) != {"0"} and fields[3] not in seen:
            seen.add(fields[3])
            blobs.append(fields[3])
    return blobs


def read_blobs(repo, blobs):
    """(blob, its bytes) for each blob, in order, read by one `git cat-file --batch`."""
    with subprocess.Popen(["git", "--git-dir", repo, "cat-file", "--batch"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE) as cat:
        for blob in blobs:
            cat.stdin.write((blob + "\n").encode())
            cat.stdin.flush()
            size = int(cat.stdout.readline().split()[2])
            data = cat.stdout.read(size)
            cat.stdout.read(1)
            yield blob, data


def defs(statements):
    """The defs a skeleton blanks: at module level, in classes, and under module-level if/try."""
    for node in statements:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node
        elif isinstance(node, ast.ClassDef):
            yield from defs(node.body)
        elif isinstance(node, (ast.If, ast.Try)):
            handlers = [s for h in getattr(node, "handlers", []) for s in h.body]
            yield from defs(node.body + node.orelse + getattr(node, "finalbody", []) + handlers)


def first_line(statement):
    return min([statement.lineno] + [d.lineno for d in getattr(statement, "decorator_list", [])])


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: bench/body_statements.py AITER_GIT [PATHSPEC]")
    repo, pathspec = sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else "aiter/*.py"
    blobs = distinct_blobs(repo, pathspec)
    bodies, statements = {}, {}
    for _, data in read_blobs(repo, blobs):
        try:
            text = data.decode("utf-8")
            tree = ast.parse(text)
        except (SyntaxError, ValueError, UnicodeDecodeError):
            continue
        lines = text.split("\n")
        for node in defs(tree.body):
            if node.body[0].lineno == node.lineno:
                continue
            starts = [first_line(s) for s in node.body] + [node.end_lineno + 1]
            body = "\n".join(lines[starts[0] - 1:node.end_lineno])
            bodies[body] = len(body)
            for begin, end in zip(starts, starts[1:]):
                chunk = "\n".join(lines[begin - 1:end - 1])
                statements[chunk] = len(chunk)
    print("%d distinct blobs of %s: %d distinct function bodies, %.1f MB; %d distinct top-level statements "
          "of them, %.1f MB" % (len(blobs), pathspec, len(bodies), sum(bodies.values()) / 1e6, len(statements),
                                sum(statements.values()) / 1e6))


if __name__ == "__main__":
    main()
