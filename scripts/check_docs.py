#!/usr/bin/env python3
"""Checks the user documentation: README.md and docs/*.md.

    /usr/bin/python3 scripts/check_docs.py REPOSITORY_ROOT

Rules:
- README.md is at most 300 lines (the rest lives in docs/);
- every relative Markdown link in README.md and docs/*.md names a file or directory that exists
  inside the repository, and a `#anchor` into a Markdown file names one of its headings (GitHub's
  slugs: lower case, punctuation dropped, spaces to hyphens, -1, -2, ... for repeated headings);
- nothing mentions `../shared`, and the only DESIGN.md mentioned is docs/design.md;
- every docs/*.md is linked from docs/README.md;
- docs/configuration.md and schemas/config.schema.json name the same keys: every key of the
  schema that is not a section (nested ones as `static.cache_mb`) is in the first cell of a table
  row of the reference, and
  every key a row names is in the schema. A row may name several keys: `notify.webhook.url`,
  `.min_severity` (a leading dot: a sibling of the first), `notify.*.only_if_consumer_breaks` (a
  star: any one key). Checked when both files exist.

Prints each problem as `file:line: problem` and exits 1, or exits 0 when there is none.
Python 3.11 standard library only.
"""

from __future__ import annotations

import json
import re
import sys
import urllib.parse
from pathlib import Path

README_MAX_LINES = 300

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
# [text](target "title") and ![alt](target); text may hold one level of brackets.
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
_REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
_ATX = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_HTML_ANCHOR = re.compile(r"<a\s[^>]*?(?:name|id)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_DESIGN = re.compile(r"[\w./~:-]*design\.md", re.IGNORECASE)


def documents(root: Path) -> list[Path]:
    """README.md and docs/*.md, those that exist."""
    found = [root / "README.md"] if (root / "README.md").is_file() else []
    docs = root / "docs"
    if docs.is_dir():
        found += sorted(p for p in docs.glob("*.md") if p.is_file())
    return found


def lines_outside_code(text: str):
    """(line number, line) of each line that is not inside a fenced code block."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            continue
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                    and not line.strip()[len(match.group(1)):].strip():
                fence = None
            continue
        yield number, line


def slug(heading: str) -> str:
    """GitHub's anchor of a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # HTML tags
    text = text.replace("`", "")
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor a Markdown text defines: its headings' slugs (repeats numbered) and HTML anchors."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    previous = ""
    for _, line in lines_outside_code(text):
        heading = None
        atx = _ATX.match(line)
        if atx:
            heading = atx.group(2)
        elif _SETEXT.match(line) and previous.strip() and not previous.lstrip().startswith(("|", "-", "*", ">")):
            heading = previous.strip()
        if heading is not None:
            base = slug(heading)
            count = seen.get(base, 0)
            seen[base] = count + 1
            out.add(base if count == 0 else f"{base}-{count}")
        out.update(m.group(1) for m in _HTML_ANCHOR.finditer(line))
        previous = line
    return out


def link_targets(text: str):
    """(line number, target) of every Markdown link outside code."""
    for number, line in lines_outside_code(text):
        bare = _INLINE_CODE.sub("", line)
        for match in _LINK.finditer(bare):
            yield number, match.group(1)
        reference = _REFERENCE.match(bare)
        if reference:
            yield number, reference.group(1)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def check_links(root: Path, doc: Path, text: str, cache: dict[Path, set[str]]) -> list[str]:
    problems = []
    name = _relative(doc, root)
    for number, raw in link_targets(text):
        target = raw[1:-1] if raw.startswith("<") and raw.endswith(">") else raw
        if not target:
            problems.append(f"{name}:{number}: empty link target")
            continue
        if _SCHEME.match(target) or target.startswith("//"):
            continue  # http(s):, mailto: ...: not ours to check
        path_part, _, fragment = target.partition("#")
        path_part = urllib.parse.unquote(path_part)
        fragment = urllib.parse.unquote(fragment)
        if path_part.startswith("/"):
            problems.append(f"{name}:{number}: link '{target}' is absolute; make it relative")
            continue
        resolved = (doc.parent / path_part).resolve() if path_part else doc.resolve()
        if resolved != root.resolve() and root.resolve() not in resolved.parents:
            problems.append(f"{name}:{number}: link '{target}' leads outside the repository")
            continue
        if not resolved.exists():
            problems.append(f"{name}:{number}: link '{target}': {_relative(resolved, root.resolve())} does not exist")
            continue
        if fragment and resolved.is_file() and resolved.suffix.lower() == ".md":
            if resolved not in cache:
                cache[resolved] = anchors(resolved.read_text(encoding="utf-8", errors="replace"))
            if fragment not in cache[resolved]:
                problems.append(f"{name}:{number}: link '{target}': no heading '#{fragment}' in "
                                f"{_relative(resolved, root.resolve())}")
    return problems


def check_mentions(root: Path, doc: Path, text: str) -> list[str]:
    problems = []
    name = _relative(doc, root)
    design = (root / "docs" / "design.md").resolve()
    for number, line in enumerate(text.splitlines(), 1):
        if "../shared" in line:
            problems.append(f"{name}:{number}: mentions '../shared' (point at docs/design.md instead)")
        for match in _DESIGN.finditer(line):
            token = match.group(0)
            ok = Path(token).name == "design.md" and any(
                (base / token).resolve() == design for base in (root, doc.parent))
            if not ok:
                problems.append(f"{name}:{number}: mentions '{token}'; the design is docs/design.md")
    return problems


def check_index(root: Path) -> list[str]:
    docs = root / "docs"
    if not docs.is_dir():
        return []
    index = docs / "README.md"
    pages = sorted(p for p in docs.glob("*.md") if p.is_file() and p.name != "README.md")
    if not index.is_file():
        return [f"docs/README.md:1: missing: it must link every doc in docs/"] if pages else []
    linked = set()
    for _, raw in link_targets(index.read_text(encoding="utf-8", errors="replace")):
        target = raw[1:-1] if raw.startswith("<") and raw.endswith(">") else raw
        if _SCHEME.match(target):
            continue
        path_part = urllib.parse.unquote(target.partition("#")[0])
        if path_part:
            linked.add((docs / path_part).resolve())
    return [f"docs/README.md:1: docs/{page.name} is not linked from docs/README.md"
            for page in pages if page.resolve() not in linked]


_ROW_KEYS = re.compile(r"^\|\s*(`[^|]*?)\s*\|")
_KEY = re.compile(r"`([^`]+)`")


def schema_keys(schema: dict) -> list[tuple[str, bool]]:
    """(key, is a leaf) of every property of a JSON Schema's object tree, nested ones joined with dots."""
    definitions = schema.get("definitions", {}) | schema.get("$defs", {})

    def resolve(node: dict) -> dict:
        while isinstance(node, dict) and "$ref" in node:
            node = definitions.get(node["$ref"].rsplit("/", 1)[-1], {})
        return node

    keys = []

    def walk(node: dict, prefix: str) -> None:
        for name, child in resolve(node).get("properties", {}).items():
            section = "properties" in resolve(child)
            keys.append((prefix + name, not section))
            if section:
                walk(child, prefix + name + ".")

    walk(schema, "")
    return keys


def documented_keys(text: str):
    """(line number, key pattern) of the keys each table row of a reference names first."""
    for number, line in lines_outside_code(text):
        match = _ROW_KEYS.match(line)
        if not match:
            continue
        names = _KEY.findall(match.group(1))
        if not names:
            continue
        parent = names[0].rpartition(".")[0]
        for name in names:
            yield number, (parent + name if name.startswith(".") else name)


def check_config_reference(root: Path) -> list[str]:
    reference = root / "docs" / "configuration.md"
    schema_file = root / "schemas" / "config.schema.json"
    if not reference.is_file() or not schema_file.is_file():
        return []
    keys = schema_keys(json.loads(schema_file.read_text(encoding="utf-8")))
    rows = list(documented_keys(reference.read_text(encoding="utf-8", errors="replace")))

    def matches(pattern: str, key: str) -> bool:
        return re.fullmatch(re.escape(pattern).replace(r"\*", r"[^.]+"), key) is not None

    found = [f"docs/configuration.md:{number}: `{pattern}` is not a key of schemas/config.schema.json"
             for number, pattern in rows if not any(matches(pattern, key) for key, _ in keys)]
    # A section (`static`, `notify.webhook`) is documented by the rows of its keys.
    found += [f"docs/configuration.md:1: `{key}` (schemas/config.schema.json) has no row in the reference"
              for key, leaf in keys if leaf and not any(matches(pattern, key) for _, pattern in rows)]
    return found


def problems(root: Path) -> list[str]:
    root = Path(root)
    found = []
    readme = root / "README.md"
    if not readme.is_file():
        found.append("README.md:1: missing")
    else:
        count = len(readme.read_text(encoding="utf-8", errors="replace").splitlines())
        if count > README_MAX_LINES:
            found.append(f"README.md:{README_MAX_LINES + 1}: {count} lines; at most {README_MAX_LINES} "
                         "(move the detail into docs/)")
    cache: dict[Path, set[str]] = {}
    for doc in documents(root):
        text = doc.read_text(encoding="utf-8", errors="replace")
        found += check_links(root, doc, text, cache)
        found += check_mentions(root, doc, text)
    found += check_index(root)
    found += check_config_reference(root)
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(f"usage: {argv[0]} REPOSITORY_ROOT", file=sys.stderr)
        return 2
    root = Path(argv[1])
    if not root.is_dir():
        print(f"{argv[0]}: '{root}' is not a directory", file=sys.stderr)
        return 2
    found = problems(root)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
