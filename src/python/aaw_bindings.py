"""The compiled binding behind a `compile_ops` stub: what a caller of the stub really meets.

aiter's `@compile_ops("module_x", fc_name="f")` forwards a call's arguments unchanged to function
`f` (the def's own name without fc_name) of compiled module `module_x`. This follows aiter's own
chain from git objects, as aiter does at build time: `optCompilerConfig.json` beside the module
defining `compile_ops` lists the module's sources; the one holding `PYBIND11_MODULE` binds `f` with
`m.def("f", ..., py::arg(...)...)`, directly or through macros of the headers it includes (most
are in csrc/include/rocm_ops.hpp). A stub with `ffi_type="ctypes"` calls the `extern "C"` function
`f` of those sources instead. What cannot be followed is an unresolved binding with the reason.
Every file read is noted in the function's consulted entries, so a change to any of them makes
the function resolve again.
Pure standard library, Python 3.9+.
"""

import hashlib
import json
import posixpath
import re

import aaw_cpp
import aaw_lru
from aaw_nodes import Expression, NameRef
from aaw_values import Function

STUB_DECORATOR = "compile_ops"  # aiter's: its stubs forward their calls to a compiled binding
_CONFIG = "optCompilerConfig.json"
# aiter's build-time directories (aiter/jit/core.py), relative to the repository's root.
_PLACEHOLDERS = {"AITER_CSRC_DIR": "csrc", "AITER_META_DIR": "", "AITER_ROOT_DIR": "", "AITER_GRADLIB_DIR": "gradlib"}
_INCLUDE_DIRS = ("csrc/include",)
_SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".hip", ".hpp", ".h", ".cuh")
_STREAM_TYPES = ("hipStream_t", "cudaStream_t")
_MAX_HEADERS = 32  # headers followed from one module's sources, includes of includes too

_CONFIGS = aaw_lru.Lru(16)  # blob id -> parsed optCompilerConfig.json, or the error text


def compile_ops_call(definition):
    """(dotted parts, (positional, keywords)) of the def's `@compile_ops(...)` decorator, or None."""
    arguments = definition.decorator_arguments or ()
    for (parts, called), given in zip(definition.decorator_parts, arguments):
        if called and parts and parts[-1] == STUB_DECORATOR and given is not None:
            return parts, given
    return None


def binding_of(session, function, decorator_of):
    """The BINDING object of a Function whose def is a compile_ops stub, or None when it is not one
    (decorator_of(function, parts) gives what a decorator is bound to: aiter's compile_ops is a
    Function of the repository):
    {"status": "ok", "kind": "pybind11" | "ctypes", "name", "module", "file", "line", "named",
    "parameters": [{"name", "default", "kind"}], "overloads": [[...], ...]} or {"status":
    "unresolved", "kind", "name", "module", "detail"}."""
    call = compile_ops_call(function.definition)
    if call is None:
        return None
    parts, (positional, keywords) = call
    decorator = decorator_of(function, parts)
    if not isinstance(decorator, Function):
        return None  # another package's compile_ops, or none found: no binding claimed
    module_name = keywords.get("_md_name", positional[0] if positional else None)
    name = keywords.get("fc_name", positional[1] if len(positional) > 1 else None)
    ffi = keywords.get("ffi_type", positional[4] if len(positional) > 4 else "pybind")
    module_name, why = _constant(session, function, module_name, "the module name")
    if why is None:
        name, why = _constant(session, function, name, "fc_name")
    if why is None:
        ffi, why = _constant(session, function, ffi, "ffi_type")
    if module_name is None and why is None:
        why = "@compile_ops names no module"
    if name is None and why is None:
        name = function.definition.name
    kind = "ctypes" if ffi == "ctypes" else "pybind11"
    out = {"kind": kind, "name": name, "module": module_name}
    if why is None and ffi not in ("pybind", "ctypes"):
        why = "ffi_type %r is neither pybind nor ctypes" % (ffi,)
    if why is None:
        try:
            found = _Reader(session.tree, function, decorator).read(module_name, name, kind)
        except aaw_cpp.Unreadable as error:
            found = "cannot read the binding: %s" % error
        except RecursionError:
            found = "cannot read the binding: nested too deeply"
        if isinstance(found, dict):
            out.update(found)
            out["status"] = "ok"
            return out
        why = found
    out.update({"status": "unresolved", "detail": why})
    return out


def _constant(session, function, value, what):
    """(the literal `value` stands for, None) or (None, why not): a NameRef is looked up among the
    stub module's assignments of a literal."""
    if isinstance(value, Expression):
        return None, "%s of @compile_ops is an expression (%s), not read statically" % (what, value.text)
    if not isinstance(value, NameRef):
        if value is not None and not isinstance(value, str):
            return None, "%s of @compile_ops is not a string" % what
        return value, None
    session.tree.ask(function.module, value.text)
    scope = session.tree.summary(function.module)
    before = [binding for index, binding in scope.bindings.get(value.text, ()) if index < function.definition.index]
    literal = getattr(getattr(before[-1], "node", None), "value", None) if before else None
    if not isinstance(literal, str):
        return None, ("%s of @compile_ops is '%s', which %s does not assign a string literal before line %d"
                      % (what, value.text, function.path, function.definition.line))
    return literal, None


class _Reader:
    """Reads one stub's binding from the commit's tree. What it reads of a header or of the config
    is noted as a partial read (Tree.read_partly): the function is resolved again only when those
    parts change, not at every edit of rocm_ops.hpp or optCompilerConfig.json."""

    def __init__(self, tree, function, decorator):
        self.tree = tree
        self.function = function
        self.decorator = decorator

    def read(self, module_name, name, kind):
        """The binding's found fields (a dict), or why it cannot be found (a str)."""
        config_path = posixpath.join(posixpath.dirname(self.decorator.path), _CONFIG)
        config = self._config(config_path)
        if isinstance(config, str):
            return config
        self.tree.read_partly(config_path, JSON + module_name)
        entry = config.get(module_name)
        if not isinstance(entry, dict):
            return "%s has no entry '%s'" % (config_path, module_name)
        sources, skipped = _sources(entry.get("srcs"))
        if not sources:
            return "the sources of '%s' in %s cannot be told%s" % (module_name, config_path, _skipped(skipped))
        if kind == "ctypes":
            return self._extern_c(sources, name, module_name, skipped)
        return self._pybind(sources, name, module_name, skipped)

    def _reader(self, path, blob):
        """read() of the text of the file at `path` (blob `blob`), for the caches that read it once."""
        return lambda: self.tree.call_host("read_blob", blob, "read '%s'" % path)

    def _config(self, path):
        blob = self.tree.blob(path)
        if blob is None:
            return "no %s beside the module defining compile_ops" % path
        return _config_at(blob, self._reader(path, blob), path)

    def _source(self, path):
        blob = self.tree.blob(path)
        if blob is None:
            return None
        return aaw_cpp.source_of(blob, self._reader(path, blob))

    def _pybind(self, sources, name, module_name, skipped):
        modules = []
        for path in sources:
            blob = self.tree.blob(path)
            if blob is None:
                continue
            # A kernel source is read only for whether it holds a module: editing it costs nothing,
            # and its text is not kept.
            if _holds_module(blob, self._reader(path, blob)):
                modules.append((path, self._source(path)))
            else:
                self.tree.read_partly(path, CPP + _MODULE)
        if not modules:
            return "no source of '%s' defines a PYBIND11_MODULE (read: %s)%s" % (
                module_name, ", ".join(sources), _skipped(skipped))
        defs, classes = [], {}
        for path, source in modules:
            read = self._module(path, source)
            # What the stub reads of the module is its own m.defs: another op's binding changing in
            # the same macro or header costs it nothing (the digest reads them again: _bind_text).
            for header in read.headers:
                self.tree.read_partly(header, CPP + _BIND + path + _SEPARATOR + name)
            ambiguous = [m for m in read.ambiguous if m in read.looked_up]
            if ambiguous:
                return "macro %s is defined more than once (%s): which one is compiled depends on the build" % (
                    ambiguous[0], ", ".join(read.ambiguous[ambiguous[0]]))
            defs.extend((path, d) for d in read.defs.get(name, ()))
            classes.update(read.classes)
        if not defs and name in classes:
            return "module '%s' binds '%s' as a type (%s), whose constructor is not read" % (
                module_name, name, classes[name])
        if not defs:
            return "module '%s' binds no '%s' (%s)" % (module_name, name, ", ".join(p for p, _ in modules))
        path, first = defs[0]
        return {"file": first.file or path, "line": first.line, "named": first.named, "parameters": first.parameters,
                "overloads": [d.parameters for _, d in defs[1:]]}

    def _module(self, path, source):
        """What the PYBIND11_MODULE bodies of `path` bind, through the headers it includes: read once
        per version of the file and of those headers (MODULES)."""
        headers = self._headers(path, source)
        key = (path,) + tuple((p, self.tree.blob(p)) for p, _ in headers)
        read = MODULES.get(key)
        if read is None:
            # rocm_ops.hpp changes in one commit out of ten, mostly in other ops' macros: the last
            # reading of the module still holds when the macros it expanded read the same.
            last = _LAST_READS.get(path)
            read = last.moved_to(headers, key) if last is not None and last.key[1] == key[1] else None
            if read is None:
                read = _ModuleRead(path, source, headers)
            read.key = key
            MODULES.put(key, read)
            _LAST_READS.put(path, read)
        return read

    def _headers(self, path, source):
        """[(path, Source)]: the file, then the headers its quoted includes reach, breadth first."""
        reached = [(path, source)]
        seen = {path}
        at = 0
        while at < len(reached) and len(reached) < _MAX_HEADERS:
            including, including_source = reached[at]
            at += 1
            self.tree.read_partly(including, CPP + _INCLUDES)
            for include in including_source.includes():
                found = self._header(including, include)
                if found is not None and found[0] not in seen:
                    seen.add(found[0])
                    reached.append(found)
        return reached

    def _header(self, including, include):
        for directory in (posixpath.dirname(including),) + _INCLUDE_DIRS:
            path = posixpath.normpath(posixpath.join(directory, include))
            if path.startswith("..") or not path.endswith(_SOURCE_SUFFIXES):
                continue
            source = self._source(path)
            if source is not None:
                return path, source
        return None

    def _extern_c(self, sources, name, module_name, skipped):
        for path in sources:
            source = self._source(path)
            if source is None:
                continue
            self.tree.read_partly(path, CPP + _EXTERN + name)
            found = source.extern_c_function(name)
            if found is not None:
                line, parameters = found
                if parameters and parameters[-1][1] in _STREAM_TYPES:
                    parameters = parameters[:-1]  # the stream aiter's ctypes caller appends to every call
                return {"file": path, "line": line, "named": True,
                        "parameters": [{"name": p, "default": None, "kind": "POSITIONAL_ONLY"} for p, _ in parameters],
                        "overloads": []}
        return "no source of '%s' declares extern \"C\" %s (read: %s)%s" % (
            module_name, name, ", ".join(sources), _skipped(skipped))


class _ModuleRead:
    """The m.defs (by name) and types of one file's PYBIND11_MODULE bodies, their object-like macros
    expanded from the file and the headers it reaches (the first that defines a name wins);
    `looked_up`: every name looked up as a macro (what the digest of each of `headers` must cover),
    `ambiguous`: those defined more than once differently in one file."""

    def __init__(self, path, source, headers):
        self.key = None
        self.headers = [header for header, _ in headers]
        self._macros = {}  # name -> (header, Source, [Define]): the first header defining it wins
        for header, header_source in reversed(headers):
            for name, defines in header_source.defines().items():
                self._macros[name] = (header, header_source, defines)
        self.defs, self.classes = {}, {}
        self.looked_up = set()
        self.ambiguous = {}
        self.expanded = {}  # name -> (header, line, body) of each macro expanded
        self.texts = {}     # name -> what a digest reads of its m.defs (_bind_text)
        for variable, body in source.modules(path):
            expanded = aaw_cpp.expand(body, self._lookup)
            for definition in aaw_cpp.module_defs(variable, expanded):
                self.defs.setdefault(definition.name, []).append(definition)
            self.classes.update(aaw_cpp.module_classes(variable, expanded))
        del self._macros  # kept in MODULES: it must not keep every version of the headers alive

    def _lookup(self, name):
        self.looked_up.add(name)
        found = self._macros.get(name)
        if found is None:
            return None
        header, source, defines = found
        if _defined_differently(defines):
            self.ambiguous[name] = ["%s:%d" % (header, d.line) for d in defines]
        if defines[-1].function_like:
            return None
        self.expanded[name] = (header, defines[-1].line, defines[-1].body)
        return name, source.define_tokens(defines[-1], header)

    def moved_to(self, headers, key):
        """This reading for new versions of the same headers (`key`: their blobs), when every name
        it looked up reads the same there (the first definition found, its body, no new
        ambiguity): the defs written in a macro move with its #define line. None when anything it
        read differs. Only the headers whose blob changed are searched."""
        if [header for header, _ in headers] != self.headers or self.ambiguous:
            return None
        changed = {path for (path, blob), (_, was) in zip(key[1:], self.key[1:]) if blob != was}
        names = set()
        for header, source in headers:
            if header in changed:
                defines = source.defines()
                names.update(name for name in self.looked_up if name in defines)
        names.update(name for name, (header, _, _) in self.expanded.items() if header in changed)
        lines = {}
        for name in names:
            found = next(((h, src.defines()[name]) for h, src in headers if name in src.defines()), None)
            if found is None:
                if name in self.expanded:
                    return None
                continue
            header, defines = found
            was = self.expanded.get(name)
            if was is None or defines[-1].function_like or was[0] != header or was[2] != defines[-1].body:
                if was is not None or not defines[-1].function_like:
                    return None
                continue
            if _defined_differently(defines):
                return None
            lines[(header, was[1])] = defines[-1].line
        moved = object.__new__(_ModuleRead)
        moved.key = None
        moved.headers = self.headers
        moved.classes = self.classes
        moved.looked_up = self.looked_up
        moved.ambiguous = self.ambiguous
        moved.texts = self.texts
        moved.expanded = {name: (h, lines.get((h, line), line), body) for name, (h, line, body) in self.expanded.items()}
        moved.key = key
        moved.defs = {name: [_moved_def(d, self.expanded, lines) for d in defs] for name, defs in self.defs.items()}
        return moved


def _moved_def(definition, expanded, lines):
    """`definition` with its line moved as the #define of the macro holding it moved."""
    holding = [(line, header) for header, line, _ in expanded.values()
               if header == definition.file and line <= definition.line]
    if not holding:
        return definition
    line, header = max(holding)
    new_line = lines.get((header, line), line)
    if new_line == line:
        return definition
    return aaw_cpp.Def(definition.name, definition.file, definition.line - line + new_line, definition.parameters,
                       definition.named)


_LAST_READS = aaw_lru.Lru(256)  # path -> its last _ModuleRead, to move to new header versions


def _defined_differently(defines):
    """Whether a name's #defines in one file (under several #if branches) say different things."""
    return len(defines) > 1 and len({d.body.replace("\\\n", "").strip() for d in defines}) > 1


MODULES = aaw_lru.Lru(512)  # (path, (header, blob)...) -> _ModuleRead: aiter has ~100 modules


def _config_at(blob, read, path):
    """optCompilerConfig.json at `blob`, parsed (a dict), or why it cannot be (a str)."""
    parsed = _CONFIGS.get(blob)
    if parsed is None:
        try:
            parsed = json.loads(read())
            if not isinstance(parsed, dict):
                parsed = "%s is not a JSON object" % path
        except ValueError as error:
            parsed = "%s is not valid JSON: %s" % (path, error)
        _CONFIGS.put(blob, parsed)
    return parsed


# The pseudo-names under which a partly read file's probe carries its digest (partial_digest):
# "<cpp>bind:csrc/pybind/x.cu|f" what the module of that file binds as f (the m.defs, wherever
# their macros are: every header of the module carries it), "<cpp>#include" a file's quoted
# includes, "<cpp>PYBIND11_MODULE" whether a module source holds a module, "<cpp>extern:f" the C
# entry point f's declaration, "<json>module_x" one entry of optCompilerConfig.json. Lines are left
# out: a binding is not read again because lines above it moved (docs/bindings.md).
CPP = "<cpp>"
JSON = "<json>"
_INCLUDES = "#include"
_MODULE = "PYBIND11_MODULE"
_EXTERN = "extern:"
_BIND = "bind:"
_SEPARATOR = "|"


def is_partial(names):
    return bool(names) and names[0].startswith((CPP, JSON))


_DIGESTS = aaw_lru.Lru(1 << 12)  # (blob, names) -> digest of what is read of that blob alone


def partial_digest(blob, names, tree):
    """The digest of what the names say was read of the file at `blob`, in `tree` (a Lookups of the
    commit's tree): a module's binding is read again through all its files."""
    own = [n for n in names if not n.startswith(CPP + _BIND)]
    key = (blob, tuple(own))
    digest = _DIGESTS.get(key)
    if digest is None:
        digest = _own_digest(blob, own, tree.host.read_blob)
        _DIGESTS.put(key, digest)
    parts = [digest] + [tree.bind_text(n[len(CPP + _BIND):]) for n in names if n.startswith(CPP + _BIND)]
    return "partial:" + hashlib.sha1("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


def _own_digest(blob, names, read):
    parts = []
    if names and names[0].startswith(JSON):
        config = _config_at(blob, lambda: read(blob), "optCompilerConfig.json")
        for name in names:
            entry = config.get(name[len(JSON):]) if isinstance(config, dict) else config
            parts.append(json.dumps(entry, sort_keys=True))
    elif names == [CPP + _MODULE]:
        parts.append(repr(_holds_module(blob, lambda: read(blob))))  # a kernel source: its text is not kept
    elif names:
        source = aaw_cpp.source_of(blob, lambda: read(blob))
        for name in names:
            name = name[len(CPP):]
            if name == _INCLUDES:
                parts.append(repr(source.includes()))
            elif name == _MODULE:
                parts.append(repr(_MODULE in source.text))
            elif name.startswith(_EXTERN):
                parts.append(_extern_text(source, name[len(_EXTERN):]))
    return hashlib.sha1("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


class Lookups:
    """A commit's tree as digests read it (find_blob, read_blob of a host), outside a resolution:
    its answers and each module's reading are kept for the queries of one call."""

    def __init__(self, host):
        self.host = host
        self.blobs = {}
        self._modules = {}  # path -> its _ModuleRead, or why there is none (text)

    def blob(self, path):
        """The id of the file at `path`; None when there is none or it is a symbolic link (a
        binding source reached through one is not read)."""
        if path not in self.blobs:
            blob = self.host.find_blob(path)
            self.blobs[path] = blob if blob is None or isinstance(blob, str) else None
        return self.blobs[path]

    def call_host(self, callback, argument, what):
        return getattr(self.host, callback)(argument)

    def read_partly(self, path, name):
        pass

    def bind_text(self, key):
        """What the module of a pybind file binds under a name ("path|name"), as text. Every stub
        of a module asks: the module is read once per call."""
        path, _, name = key.partition(_SEPARATOR)
        if path not in self._modules:
            self._modules[path] = _module_read(self, path)
        return _bind_text(self._modules[path], name)


def _module_read(tree, path):
    """The _ModuleRead of the pybind file at `path`, or why there is none (text)."""
    reader = _Reader(tree, None, None)
    try:
        source = reader._source(path)
        if source is None or _MODULE not in source.text:
            return "no module"
        return reader._module(path, source)
    except aaw_cpp.Unreadable as error:
        return "unreadable: %s" % error


def _bind_text(read, name):
    if isinstance(read, str):
        return read
    text = read.texts.get(name)
    if text is None:  # lines are left out, so a reading moved to new lines shares these texts
        defs = read.defs.get(name, ())
        ambiguous = sorted(m for m in read.ambiguous if m in read.looked_up)
        text = read.texts[name] = repr(([(d.file, d.named, d.parameters) for d in defs], ambiguous,
                                        read.classes.get(name)))
    return text


_HOLDS_MODULE = aaw_lru.Lru(1 << 12)  # blob id -> whether its text holds a PYBIND11_MODULE


def _holds_module(blob, read):
    holds = _HOLDS_MODULE.get(blob)
    if holds is None:
        holds = "yes" if _MODULE in read() else "no"  # Lru keeps no None, and False is falsy
        _HOLDS_MODULE.put(blob, holds)
    return holds == "yes"


def _extern_text(source, name):
    try:
        return repr(source.extern_c_function(name))
    except aaw_cpp.Unreadable as error:
        return "unreadable: %s" % error


_SOURCE_TEXT = re.compile(r"^f?(['\"])(.*)\1$")


def _sources(srcs):
    """(the C++ source paths of an optCompilerConfig entry's srcs, the entries not understood)."""
    paths, skipped = [], []
    if not isinstance(srcs, list):
        return paths, ["srcs is not a list"]
    for text in srcs:
        match = _SOURCE_TEXT.match(text.strip()) if isinstance(text, str) else None
        if match is None:
            skipped.append(repr(text))
            continue
        path = match.group(2)
        unknown = [p for p in re.findall(r"\{(\w*)\}", path) if p not in _PLACEHOLDERS]
        if unknown:
            skipped.append(path)
            continue
        path = re.sub(r"\{(\w+)\}", lambda m: _PLACEHOLDERS[m.group(1)], path)
        path = posixpath.normpath(path.lstrip("/"))
        if path.endswith(_SOURCE_SUFFIXES):
            paths.append(path)
    return paths, skipped


def _skipped(skipped):
    return "; not followed: %s" % ", ".join(skipped) if skipped else ""
