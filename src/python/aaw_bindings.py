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

import json
import posixpath
import re

import aaw_cpp
import aaw_lru
from aaw_nodes import NameRef
from aaw_values import Function

_DECORATOR = "compile_ops"
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
        if called and parts and parts[-1] == _DECORATOR and given is not None:
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
    if not isinstance(value, NameRef):
        if value is not None and not isinstance(value, str):
            return None, "%s of @compile_ops is not a string" % what
        return value, None
    session.tree.ask(function.module, value.id)
    scope = session.tree.summary(function.module)
    before = [binding for index, binding in scope.bindings.get(value.id, ()) if index < function.definition.index]
    literal = getattr(getattr(before[-1], "node", None), "value", None) if before else None
    if not isinstance(literal, str):
        return None, ("%s of @compile_ops is '%s', which %s does not assign a string literal before line %d"
                      % (what, value.id, function.path, function.definition.line))
    return literal, None


class _Reader:
    """Reads one stub's binding from the commit's tree."""

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
        entry = config.get(module_name)
        if not isinstance(entry, dict):
            return "%s has no entry '%s'" % (config_path, module_name)
        sources, skipped = _sources(entry.get("srcs"))
        if not sources:
            return "the sources of '%s' in %s cannot be told%s" % (module_name, config_path, _skipped(skipped))
        if kind == "ctypes":
            return self._extern_c(sources, name, module_name, skipped)
        return self._pybind(sources, name, module_name, skipped)

    def _config(self, path):
        blob = self.tree.blob(path)
        if blob is None:
            return "no %s beside the module defining compile_ops" % path
        parsed = _CONFIGS.get(blob)
        if parsed is None:
            try:
                parsed = json.loads(self.tree.call_host("read_blob", blob, "read '%s'" % path))
                if not isinstance(parsed, dict):
                    parsed = "%s is not a JSON object" % path
            except ValueError as error:
                parsed = "%s is not valid JSON: %s" % (path, error)
            _CONFIGS.put(blob, parsed)
        return parsed

    def _source(self, path):
        blob = self.tree.blob(path)
        if blob is None:
            return None
        return aaw_cpp.source_of(blob, path, lambda: self.tree.call_host("read_blob", blob, "read '%s'" % path))

    def _pybind(self, sources, name, module_name, skipped):
        modules = []
        for path in sources:
            source = self._source(path)
            if source is None or "PYBIND11_MODULE" not in source.text:
                continue
            for variable, body in source.modules():
                modules.append((path, variable, body, source))
        if not modules:
            return "no source of '%s' defines a PYBIND11_MODULE (read: %s)%s" % (
                module_name, ", ".join(sources), _skipped(skipped))
        defs, classes = [], {}
        for path, variable, body, source in modules:
            macros = self._macros(path, source)
            expanded = aaw_cpp.expand(body, macros.lookup)
            if macros.ambiguous:
                used = [m for m in macros.ambiguous if any(t.text == m for t in body)]
                if used:
                    return "macro %s is defined more than once (%s): which one is compiled depends on the build" % (
                        used[0], ", ".join(macros.ambiguous[used[0]]))
            defs.extend((path, d) for d in aaw_cpp.module_defs(variable, expanded) if d.name == name)
            if not defs:
                classes.update(aaw_cpp.module_classes(variable, expanded))
        if not defs and name in classes:
            return "module '%s' binds '%s' as a type (%s), whose constructor is not read" % (
                module_name, name, classes[name])
        if not defs:
            return "module '%s' binds no '%s' (%s)" % (module_name, name, ", ".join(p for p, _, _, _ in modules))
        path, first = defs[0]
        return {"file": first.file or path, "line": first.line, "named": first.named, "parameters": first.parameters,
                "overloads": [d.parameters for _, d in defs[1:]]}

    def _macros(self, path, source):
        """The object-like macros a module body can use: the file's own and its headers'."""
        macros = _Macros()
        seen = set()
        pending = [(path, source)]
        while pending and len(seen) < _MAX_HEADERS:
            path, source = pending.pop(0)
            if path in seen:
                continue
            seen.add(path)
            macros.add(path, source)
            for include in source.includes():
                found = self._header(path, include)
                if found is not None and found[0] not in seen:
                    pending.append(found)
        return macros

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


class _Macros:
    """Object-like macros by name, from the files a module's source includes."""

    def __init__(self):
        self.found = {}      # name -> (path, Source, Define)
        self.ambiguous = {}  # name -> ["path:line", ...] when defined twice differently

    def add(self, path, source):
        for name, defines in source.defines().items():
            bodies = {d.body.replace("\\\n", "").strip() for d in defines}
            if len(bodies) > 1:
                self.ambiguous[name] = ["%s:%d" % (path, d.line) for d in defines]
            if name not in self.found and not defines[-1].function_like:
                self.found[name] = (path, source, defines[-1])

    def lookup(self, name):
        found = self.found.get(name)
        if found is None:
            return None
        path, source, define = found
        return name, source.define_tokens(define)


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
