"""Runtime extraction: import the built package and read inspect.signature of each function.

Runs in the extraction child (`aiter-api-watcher __extract`), a process of its own inside the
sandbox: whatever the package does at import (crash, hang, sys.exit) costs that child only.
Called from C++ (src/cli/extract_command.cpp) as extract_all(args, host) with
args = {"work_tree": path, "venv": path or None, "functions": [{"import_statement",
"function_path"}], "source_roots": [...] (only when the tree is imported as it is, unbuilt)}; returns one STATE object (docs/design.md) per function, in order, shaped like the
static resolver's (aaw_static.py): kinds as inspect names them, defaults as repr() prints them,
annotations as inspect.formatannotation prints them.
Pure standard library, Python 3.9+.
"""

import ast
import faulthandler
import glob
import importlib.abc
import importlib.machinery
import inspect
import os
import site
import sys

import aaw_signature


def extract_all(args, host=None):
    if not isinstance(args, dict) or not isinstance(args.get("functions"), list):
        raise TypeError("extract_all expects {'work_tree': ..., 'venv': ..., 'functions': [...]}")
    # A crash in an extension module prints the Python stack to the log before the child dies.
    faulthandler.enable(file=sys.stderr, all_threads=True)
    mismatch = _venv_version_mismatch(args.get("venv"))
    if mismatch:
        return [_failed("extract_failed", mismatch) for _ in args["functions"]]
    roots = None
    if isinstance(args.get("source_roots"), list) and args.get("work_tree"):
        # An unbuilt tree: imported from where its packages are, never from an installed copy,
        # and without leaving __pycache__ directories in the work tree (a later checkout would
        # keep them, and an emptied package directory would still import as a namespace).
        sys.dont_write_bytecode = True
        roots = tree_roots(args["work_tree"], args["source_roots"], args["functions"])
        sys.meta_path.insert(0, TreeOnly([args["work_tree"]] + roots, top_level_names(args["functions"])))
    _enter_environment(args.get("work_tree"), args.get("venv"), roots)
    states = [_state(function) for function in args["functions"]]
    # The caller leaves without finalizing the interpreter (os._exit): what the package printed
    # must reach the log first.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    return states


def _venv_version_mismatch(venv):
    """Why the venv cannot be used by this interpreter (another X.Y), or None.

    Extensions built into it are for its Python; imported here they fail or crash, and its
    site-packages would not even be found (lib/pythonX.Y)."""
    if not venv:
        return None
    try:
        with open(os.path.join(venv, "pyvenv.cfg"), encoding="utf-8") as config:
            lines = config.read().splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() in ("version", "version_info"):
            found = ".".join(value.strip().split(".")[:2])
            wanted = "%d.%d" % sys.version_info[:2]
            if found and found != wanted:
                return ("the virtual environment '%s' is for Python %s but the extraction runs "
                        "Python %s: delete it to have it recreated" % (venv, found, wanted))
            return None
    return None


# ---------------------------------------------------------------------------------------------
# The environment: what `<venv>/bin/python` started in the work tree would see.

def tree_roots(work_tree, source_roots, functions):
    """Where the functions' top-level packages are in an unbuilt work tree, as directories for
    sys.path: looked for as static extraction looks for them (aaw_finder.ModuleFinder): in
    `source_roots` when given, else the root, src/, then what the packaging files declare. A src/
    layout package imports from the tree only with its root on the path."""
    import aaw_packaging  # the embedded modules: only this path needs them

    def declared():
        roots = []
        for path, reader in aaw_packaging.PACKAGING_FILES:
            try:
                with open(os.path.join(work_tree, path), encoding="utf-8", errors="replace") as file:
                    text = file.read()
            except OSError:
                continue
            roots += [aaw_packaging.directory(root) for root in reader(text)]
        return roots

    configured = [aaw_packaging.directory(root) for root in source_roots or () if isinstance(root, str)]
    found = []
    for top in top_level_names(functions):
        for root in aaw_packaging.candidate_roots(configured, declared):
            base = os.path.join(work_tree, root)
            if _holds_python(os.path.join(base, top)) or os.path.isfile(os.path.join(base, top + ".py")):
                directory = os.path.normpath(base)
                if directory not in found:
                    found.append(directory)
                break
    return found


class TreeOnly(importlib.abc.MetaPathFinder):
    """Finds the monitored top-level packages in the tree's roots or nowhere: a commit whose tree
    lacks one must not import a copy installed on the machine (the venv sees the system's
    site-packages, where Debian installs requests, attrs, pyparsing...)."""

    def __init__(self, roots, tops):
        self.roots, self.tops = list(roots), set(tops)

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.tops:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, self.roots)
        if spec is None:
            raise ModuleNotFoundError("No module named %r in the tree" % fullname, name=fullname)
        return spec


def _holds_python(directory):
    """A package directory as git would have it: one holding more than bytecode left behind."""
    try:
        return any(entry != "__pycache__" for entry in os.listdir(directory))
    except OSError:
        return False


def top_level_names(functions):
    """The top-level packages the functions' import statements import, in order, once each."""
    names = []
    for function in functions:
        statement = function.get("import_statement") if isinstance(function, dict) else None
        try:
            node = ast.parse(statement.strip()).body[0]
        except Exception:
            continue
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            modules = [node.module]
        else:
            continue
        for module in modules:
            if module.split(".")[0] not in names:
                names.append(module.split(".")[0])
    return names


def _enter_environment(work_tree, venv, roots=None):
    before = list(sys.path)
    if venv:
        version = "python%d.%d" % sys.version_info[:2]
        for directory in glob.glob(os.path.join(venv, "lib", version, "site-packages")):
            site.addsitedir(directory)  # runs its .pth files: `setup.py develop` leaves one
        sys.prefix = sys.exec_prefix = venv
        python = os.path.join(venv, "bin", "python")
        if os.access(python, os.X_OK):
            sys.executable = python
    # As in a venv: the work tree first, then the venv's site-packages, then the system's.
    head = [work_tree] if work_tree else []
    head += [root for root in roots or () if root not in head]
    added = [entry for entry in sys.path if entry not in before and entry not in head]
    sys.path[:] = head + added + [entry for entry in before if entry not in head]
    if work_tree:
        os.chdir(work_tree)


# ---------------------------------------------------------------------------------------------
# One function.

def _state(function):
    statement = function.get("import_statement") if isinstance(function, dict) else None
    path = function.get("function_path") if isinstance(function, dict) else None
    if not isinstance(statement, str) or not isinstance(path, str):
        return _failed("unresolved", "an entry needs 'import_statement' and 'function_path'")
    namespace = {}
    try:
        exec(compile(statement.strip(), "<import_statement>", "exec", dont_inherit=True), namespace)
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as error:  # SystemExit too: a package may exit at import
        return _import_failure(statement, error)
    parts = path.split(".")
    if parts[0] not in namespace:
        return _failed("unresolved", "'%s' is not bound by '%s'" % (parts[0], statement.strip()))
    try:
        value = namespace[parts[0]]
        for attribute in parts[1:]:
            value = getattr(value, attribute)
    except AttributeError as error:
        return _failed("missing", "%s: %s" % (type(error).__name__, error))
    try:
        signature = inspect.signature(value)
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as error:
        # It is there, but has no signature Python can read (a property, a builtin class, a C
        # function without text signature): a fact about the code, not a failure of the build.
        return _failed("unresolved", "'%s' has no signature inspect can read (%s): %s: %s"
                       % (path, _kind_of(value), type(error).__name__,
                          aaw_signature.without_addresses(str(error))))
    return aaw_signature.from_inspect(signature)


def _kind_of(value):
    if isinstance(value, property):
        return "a property"
    if inspect.isclass(value):
        return "class %s" % value.__qualname__
    return type(value).__name__


def _import_failure(statement, error):
    """missing when what the statement names is not there; import_error for anything else.

    Only the module the statement imports and its parents count (`import a.b.c`: a.b.c, a.b, a;
    `from a.b import f`: a.b, a, and f itself): a module those import that is not there, above
    all a compiled extension (`a._C`) a failed or partial build never produced, is a broken
    build, not a removed function."""
    text = "%s: %s" % (type(error).__name__, error)
    module, names = _imported(statement)
    if isinstance(error, ModuleNotFoundError) and module and error.name:
        wanted = _parents(module) + [module + "." + name for name in names]
        return _failed("missing" if error.name in wanted else "import_error", text)
    # `from pkg.m import f` without f: "cannot import name 'f' from 'pkg.m'" is f missing, as
    # an AttributeError on the function path would be; anything else is a broken import.
    if type(error) is ImportError and names and error.name == module:
        imported = sys.modules.get(module)
        if imported is not None and any(not hasattr(imported, name) for name in names):
            return _failed("missing", text)
    return _failed("import_error", text)


def _parents(module):
    """'a.b.c' -> ['a.b.c', 'a.b', 'a']."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)]


def _imported(statement):
    """(module the statement imports, names a `from` import takes from it) of an import statement."""
    try:
        node = ast.parse(statement.strip()).body[0]
    except (SyntaxError, IndexError):
        return None, []
    if isinstance(node, ast.Import):
        return node.names[0].name, []
    if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        return node.module, [a.name for a in node.names if a.name != "*"]
    return None, []


# ---------------------------------------------------------------------------------------------
# STATE objects.

def _failed(status, detail):
    return {"status": status, "detail": detail}


