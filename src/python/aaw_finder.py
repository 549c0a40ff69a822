"""Finding modules as Python's import system would, in one commit's tree (aaw_tree.Tree): the
source root of a top-level package (the repository root, src/, then what the packaging files
declare), packages, modules and namespace packages, the configured module aliases, and the
redirections of a package's import hook when its map is literal.
Pure standard library, Python 3.9+.
"""

import aaw_digest
import aaw_packaging
from aaw_values import Module, NotFound, Outside


class ModuleFinder:
    def __init__(self, tree, source_roots=None, module_aliases=None):
        self.tree = tree
        # Where top-level packages are looked for: the config's list ("" is the repository root),
        # else the root, src/, then what the packaging files declare.
        self.source_roots = [aaw_packaging.directory(root) for root in source_roots] if source_roots else None
        self.module_aliases = dict(module_aliases or {})  # old module name -> new (static.module_aliases)
        self.start_function()

    def start_function(self):
        """The root each top-level package was found in ("" none) is noted per function: what a
        function probes depends on what it knows."""
        self.tops = {}

    def user_module(self, name):
        module = self.find_module(name)
        if module is None:
            return self.missing_module(name)
        return module

    def find_module(self, name):
        """The module `name` as Python would import it: under the root its top-level package is
        found in, else through a configured alias, else through its package's import hook (a
        literal map of old module names to new ones). None when there is none."""
        alias = self._alias(name)
        if alias is not None:
            return self.find_module(alias)
        top, _, rest = name.partition(".")
        root = self.root_of(top)
        if root is None:
            return None
        found = self._module_at(name, root + name.replace(".", "/"))
        if found is not None or not rest:
            return found
        parent_name, _, last = name.rpartition(".")
        parent = self.find_module(parent_name)
        if parent is not None and parent.name != parent_name:
            # The package was itself redirected: its submodules are found where it really is
            # (Python looks them up on the redirected package's __path__).
            return self.find_module(parent.name + "." + last)
        redirected = self._hook_target(name)
        return self.find_module(redirected) if redirected is not None else None

    def _module_at(self, name, base):
        init = base + "/__init__.py"
        blob = self.tree.blob(init)
        if blob is not None:
            return Module(name, init, blob, True)
        path = base + ".py"
        blob = self.tree.blob(path)
        if blob is not None:
            return Module(name, path, blob, False)
        if self.tree.is_directory(base):
            return Module(name, base, None, True)  # a namespace package
        return None

    def _alias(self, name):
        for old, new in self.module_aliases.items():
            if name == old or name.startswith(old + "."):
                return new + name[len(old):]
        return None

    def root_of(self, top):
        """The source root ("" or "src/") holding the top-level package `top`, None when none does."""
        for recorder in self.tree.recorders:  # what it probes depends on what this function knows
            recorder.append(("r", top))
        if top not in self.tops:
            self.tops[top] = None
            for root in self.candidate_roots():
                # Whether the package is there, not what its __init__ holds: a directory (a
                # package, or a namespace package) or a single-file module.
                if self.tree.is_directory(root + top) or self.tree.blob(root + top + ".py") is not None:
                    self.tops[top] = root
                    break
        return self.tops[top]

    def candidate_roots(self):
        return aaw_packaging.candidate_roots(self.source_roots, self._declared_roots)

    def _declared_roots(self):
        roots = []
        for path, reader in aaw_packaging.PACKAGING_FILES:
            blob = self.tree.blob(path)
            if blob is not None:
                roots += aaw_packaging.declared_roots(path, blob, reader, lambda b, p=path: self.tree.call_host(
                    "read_blob", b, "read '%s' (blob %s)" % (p, b)))
        return roots

    def _hook_target(self, name):
        """What `name` (a.b.old) is redirected to by its package's import hook, when the hook's
        map is literal; None when there is no such entry."""
        parent_name, _, last = name.rpartition(".")
        parent = self.find_module(parent_name)
        if parent is None or parent.blob is None or not parent.is_package:
            return None
        self.tree.ask(parent, aaw_digest.HOOKS)
        scope = self.tree.summary(parent)
        for map_name in sorted(scope.hooks):
            target = scope.maps.get(map_name, {}).get(last)
            if target is not None:
                return _redirected(parent_name, target)
        return None

    def missing_module(self, name, where=""):
        """Why `name` cannot be imported: the whole package gone from the tree is unresolved
        (never a removal of each function); a module its package's import hook may provide
        (one we cannot read) is unresolved; any other module that is not there is missing."""
        top = name.split(".")[0]
        if self.root_of(top) is None:
            roots = ", ".join(r.rstrip("/") or "." for r in self.candidate_roots())
            return NotFound("unresolved", "package '%s' not found in the tree (looked in %s)%s"
                            % (top, roots, where))
        parent_name = name.rpartition(".")[0]
        parent = self.find_module(parent_name) if parent_name else None
        if parent is not None and parent.blob is not None:
            self.tree.ask(parent, aaw_digest.HOOKS)
            scope = self.tree.summary(parent)
            hooks = [d for d in scope.dynamic if "__getattr__" in d or "sys.meta_path" in d]
            readable = any(name in scope.maps for name in scope.hooks)
            if hooks and not readable:
                return NotFound("unresolved", "module '%s' not found; %s in %s may provide it%s"
                                % (name, hooks[0], parent.path, where))
        return NotFound("missing", "module '%s' not found%s" % (name, where))

    def absolute(self, name):
        """A module named by an absolute import inside the repository's code."""
        module = self.find_module(name)
        if module is not None:
            return module
        if self.root_of(name.split(".")[0]) is not None:
            return self.missing_module(name)
        return Outside(name)

    def module_at_path(self, path, blob):
        """The module whose file is `path`, found as an import of its name finds it, when that
        file is blob `blob`; None when its name does not find it there."""
        for root in self.candidate_roots():
            if not path.startswith(root):
                continue
            rest = path[len(root):]
            if rest.endswith("/__init__.py"):
                name = rest[:-len("/__init__.py")]
            elif rest.endswith(".py"):
                name = rest[:-len(".py")]
            else:
                continue
            name = name.replace("/", ".")
            if not all(part.isidentifier() for part in name.split(".")):
                continue
            module = self.find_module(name)
            if module is not None and module.path == path and module.blob == blob:
                return module
        return None


def _redirected(package, target):
    """The module an import hook of `package` maps to `target` (relative to the package unless
    it starts with the top-level package's name)."""
    if target.startswith("."):
        return package + target
    if target.split(".")[0] == package.split(".")[0]:
        return target
    return package + "." + target


def absolute_name(module, level, name):
    """The absolute name of a module `module` imports (level 0: absolute)."""
    if not level:
        return name or None
    package = module.name.split(".")
    if not module.is_package:
        package.pop()
    if level - 1 >= len(package):
        return None
    base = package[:len(package) - (level - 1)]
    return ".".join(base + ([name] if name else []))
