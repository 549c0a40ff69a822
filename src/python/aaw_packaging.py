"""The source roots a repository's packaging files declare (pyproject.toml, setup.cfg, setup.py):
where top-level packages are looked for when neither the repository root nor src/ holds them.
Pure standard library, Python 3.9+.
"""

import ast

import aaw_lru
import aaw_nodes

# The roots each packaging file declares, by (path, blob): a package's setup.py is asked about by
# every function that meets a module from outside the repository (torch, ...), at every commit.
DECLARED = aaw_lru.Lru(64)


def directory(root):
    """A source root as a path prefix: "" for the repository root, else "src/"."""
    root = root.strip().strip("/")
    return "" if root in ("", ".") else root + "/"


def candidate_roots(source_roots, declared):
    """The source roots (path prefixes) a top-level package is looked for in, in order: the
    configured `source_roots` (prefixes; None or empty: not configured), else the root and src/,
    then the roots declared() reads from the packaging files. declared() is called only when
    neither the root nor src/ holds the package: packaging files change at every release, and each
    change would send every function that read them back to be resolved again."""
    if source_roots:
        yield from source_roots
        return
    yield ""
    yield "src/"
    for root in declared():
        if root not in ("", "src/"):
            yield root


# The pseudo-name under which a packaging file's probe carries the digest of its declared roots:
# "<roots>setup.py" (module_digests reads it back with declared_roots_digest).
ROOTS = "<roots>"


def declared_roots_digest(path, blob, read):
    """The digest of the roots the packaging file `path` at `blob` declares (read(blob): its text)."""
    reader = dict(PACKAGING_FILES).get(path)
    if reader is None:
        return None
    return roots_digest(declared_roots(path, blob, reader, read))


def declared_roots(path, blob, reader, read):
    """The source roots (as path prefixes) the packaging file `path` at `blob` declares, read once
    per blob with `reader` from read(blob)."""
    declared = DECLARED.get((path, blob))
    if declared is None:
        text = read(blob)
        declared = [directory(root) for root in reader(text if isinstance(text, str) else "")]
        DECLARED.put((path, blob), declared)
    return declared


def roots_digest(declared):
    return "roots:" + repr(declared)


def _roots_in_pyproject(text):
    try:
        import tomllib
    except ImportError:  # Python < 3.11: the root and src/ are still searched
        return []
    try:
        data = tomllib.loads(text)
    except Exception:
        return []
    tool = data.get("tool", {}) if isinstance(data, dict) else {}
    roots = []
    setuptools = tool.get("setuptools", {})
    package_dir = setuptools.get("package-dir", {})
    if isinstance(package_dir, dict) and isinstance(package_dir.get(""), str):
        roots.append(package_dir[""])
    where = setuptools.get("packages", {})
    where = where.get("find", {}).get("where", []) if isinstance(where, dict) else []
    roots += [w for w in (where if isinstance(where, list) else [where]) if isinstance(w, str)]
    wheel = tool.get("hatch", {}).get("build", {}).get("targets", {}).get("wheel", {})
    for package in wheel.get("packages", []) if isinstance(wheel, dict) else []:
        if isinstance(package, str) and "/" in package:
            roots.append(package.rsplit("/", 1)[0])
    for package in tool.get("poetry", {}).get("packages", []):
        if isinstance(package, dict) and isinstance(package.get("from"), str):
            roots.append(package["from"])
    pdm = tool.get("pdm", {}).get("build", {})
    if isinstance(pdm, dict) and isinstance(pdm.get("package-dir"), str):
        roots.append(pdm["package-dir"])
    return roots


def _roots_in_setup_cfg(text):
    import configparser
    parser = configparser.ConfigParser()
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    roots = []
    if parser.has_option("options", "package_dir"):
        for line in parser.get("options", "package_dir").splitlines():
            key, _, value = line.partition("=")
            if not key.strip() and value.strip():
                roots.append(value.strip())
    if parser.has_option("options.packages.find", "where"):
        roots.append(parser.get("options.packages.find", "where").strip())
    return roots


# What a setup.py must name for _roots_in_setup_py to find a root in it.
_SETUP_PY_WORDS = ("package_dir", "find_packages", "find_namespace_packages")


def _roots_in_setup_py(text):
    if text.isascii() and not any(word in text for word in _SETUP_PY_WORDS):
        return []  # an ASCII text that names none of them: aiter's setup.py changes often, and is large
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    roots = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = aaw_nodes.dotted(node.func)
        for keyword in node.keywords:
            if keyword.arg == "package_dir" and isinstance(keyword.value, ast.Dict):
                for key, value in zip(keyword.value.keys, keyword.value.values):
                    if isinstance(key, ast.Constant) and key.value == "" and isinstance(value, ast.Constant):
                        roots.append(value.value)
            if keyword.arg == "where" and name and name[-1] in ("find_packages", "find_namespace_packages") \
                    and isinstance(keyword.value, ast.Constant):
                roots.append(keyword.value.value)
        if name and name[-1] in ("find_packages", "find_namespace_packages") and node.args and \
                isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            roots.append(node.args[0].value)
    return [r for r in roots if isinstance(r, str)]


PACKAGING_FILES = (("pyproject.toml", _roots_in_pyproject), ("setup.cfg", _roots_in_setup_cfg),
                   ("setup.py", _roots_in_setup_py))
