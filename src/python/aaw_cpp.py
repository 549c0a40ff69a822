"""What a compiled module exposes to Python, read from C++ source text without a compiler: the
`m.def(...)` calls of a `PYBIND11_MODULE` body (object-like macros expanded) with their `py::arg`
lists, and the parameters of an `extern "C"` function. A tokenizer for exactly these forms, not a
C++ parser: anything else it meets is reported as unreadable, never guessed at.
Pure standard library, Python 3.9+.
"""

import re

import aaw_lru

_TOKEN = re.compile(r"""
    (?P<space>(?:\s|\\\r?\n|//[^\n]*|/\*.*?\*/)+)
  | (?P<string>(?:u8|[uUL])?R"(?P<delim>[^()\\\s"]{0,16})\(.*?\)(?P=delim)"
             | (?:u8|[uUL])?"(?:\\.|[^"\\\n])*"
             | (?:u8|[uUL])?'(?:\\.|[^'\\\n])*')
  | (?P<name>[A-Za-z_]\w*)
  | (?P<number>\.?\d(?:[eEpP][+-]|[\w.'])*)
  | (?P<punct>::|->|\.\.\.|&&|\|\||[<>=!]=|\S)
""", re.S | re.X)

# Unanchored (ten times faster over a 170 kB header than `^` with re.M); _directives keeps those at
# the start of a line.
_DEFINE = re.compile(r"#[ \t]*define[ \t]+([A-Za-z_]\w*)(\()?")
_INCLUDE = re.compile(r'#[ \t]*include[ \t]*"([^"\n]+)"')
# The end of a logical line: a line end not continued by a backslash (before "\n" or "\r\n").
_LINE_END = re.compile(r"(?<!\\)(?<!\\\r)\n")
_MODULE = re.compile(r"\bPYBIND11_MODULE\s*\(")
_EXTERN_BLOCK = re.compile(r'\bextern\s*"C"\s*\{')

# Tokens a macro body or a module body may hold before the reader gives up on it.
MAX_TOKENS = 200000
# How far past a C entry point's name its declaration is looked for before the whole rest is read.
_DECLARATION_SPAN = 16384
# Nested macro expansions followed (a macro naming another) before the reader gives up.
MAX_EXPANSION_DEPTH = 16


class Unreadable(Exception):
    """The text is not one of the forms read here; the message says where and why."""


class Token:
    __slots__ = ("kind", "text", "line", "file")

    def __init__(self, kind, text, line, file=None):
        self.kind = kind
        self.text = text
        self.line = line
        self.file = file

    def __repr__(self):
        return "Token(%r, %r, %d)" % (self.kind, self.text, self.line)


def tokens(text, first_line=1, file=None):
    """The tokens of `text` (comments, whitespace and line continuations dropped), each with its
    line (and `file`); raises Unreadable past MAX_TOKENS."""
    out = []
    line = first_line
    position = 0
    for match in _TOKEN.finditer(text):
        line += text.count("\n", position, match.start())
        position = match.start()
        kind = match.lastgroup if match.lastgroup != "delim" else "string"
        if kind != "space":
            out.append(Token(kind, match.group(), line, file))
            if len(out) > MAX_TOKENS:
                raise Unreadable("more than %d tokens" % MAX_TOKENS)
    return out


class Define:
    """One `#define NAME body` (object-like); `function_like` when it takes arguments (not expanded).
    Its body is cut out of the text only when asked: a header defines hundreds of macros, and a
    module body uses a few."""
    __slots__ = ("name", "line", "function_like", "_text", "_start", "_body")

    def __init__(self, name, line, function_like, text, start):
        self.name = name
        self.line = line
        self.function_like = function_like
        self._text = text
        self._start = start
        self._body = None

    @property
    def body(self):
        if self._body is None:
            end = _LINE_END.search(self._text, self._start)
            self._body = self._text[self._start:end.start() if end else len(self._text)]
        return self._body


class Source:
    """One C++ file's text as the binding reader needs it: its defines, its quoted includes, and its
    module bodies, each tokenized only when asked."""

    def __init__(self, text):
        self.text = text
        self._defines = None
        self._includes = None
        self._tokens = {}

    def includes(self):
        if self._includes is None:
            self._includes = [m.group(1) for m in _directives(_INCLUDE, self.text)]
        return self._includes

    def defines(self):
        """{name: [Define, ...]} in text order (a name defined under several #if branches has several)."""
        if self._defines is None:
            self._defines = {}
            line, counted = 1, 0
            for match in _directives(_DEFINE, self.text):
                line += self.text.count("\n", counted, match.start())
                counted = match.start()
                self._defines.setdefault(match.group(1), []).append(
                    Define(match.group(1), line, match.group(2) is not None, self.text, match.end()))
        return self._defines

    def define_tokens(self, define, path):
        """The tokens of a define's body, naming `path` (where this blob is read) as their file."""
        key = ("define", define.line, path)
        if key not in self._tokens:
            self._tokens[key] = tokens(define.body, define.line, path)
        return self._tokens[key]

    def modules(self, path):
        """[(module variable, body tokens)] of each PYBIND11_MODULE(name, m) { ... } in the file."""
        key = ("modules", path)
        if key not in self._tokens:
            found = []
            for match in _MODULE.finditer(self.text):
                line = self.text.count("\n", 0, match.start()) + 1
                found.append(_module_at(tokens(self.text[match.end() - 1:], line, path), line))
            self._tokens[key] = found
        return self._tokens[key]

    def extern_c_function(self, name):
        """(line, [(parameter name, type text)]) of the extern "C" function `name` defined or declared
        here, or None; raises Unreadable when a parameter has no name. Only the text from the last
        `extern "C" {` before the first mention of `name` (or a few lines before it) is tokenized."""
        key = ("extern", name)
        if key not in self._tokens:
            self._tokens[key] = self._extern_c_function(name)
        return self._tokens[key]

    def _extern_c_function(self, name):
        mention = re.search(r"\b%s\b" % re.escape(name), self.text)
        if mention is None:
            return None
        blocks = [m.start() for m in _EXTERN_BLOCK.finditer(self.text, 0, mention.start())]
        start = blocks[-1] if blocks else max(0, self.text.rfind("\n", 0, max(0, mention.start() - 400)) + 1)
        line = self.text.count("\n", 0, start) + 1
        end = mention.end() + _DECLARATION_SPAN
        if not blocks and end < len(self.text):
            # A declaration ends within a few kB of its name: tokenize that much first.
            try:
                found = _extern_c_function(tokens(self.text[start:end], line), name)
                if found is not None:
                    return found
            except Unreadable:
                pass  # cut inside it: read on to the end
        return _extern_c_function(tokens(self.text[start:], line), name)


SOURCES = aaw_lru.Lru(64)  # blob id -> Source: rocm_ops.hpp is read by every stub of a commit


def source_of(blob, read):
    """The Source of a blob (read() gives its text), kept while versions of the file are asked for."""
    return SOURCES.remember(blob, lambda _: Source(read()))


def _directives(pattern, text):
    """The matches of a preprocessor directive's pattern that start their line (after blanks)."""
    for match in pattern.finditer(text):
        start = text.rfind("\n", 0, match.start()) + 1
        if not text[start:match.start()].strip():
            yield match


def _module_at(toks, line):
    """(module variable, body tokens) from the tokens after PYBIND11_MODULE: `(name, m) { ... }`."""
    close = _matching(toks, 0)
    arguments = _split_arguments(toks[1:close])
    if len(arguments) != 2 or len(arguments[1]) != 1 or arguments[1][0].kind != "name":
        raise Unreadable("PYBIND11_MODULE at line %d does not read as (name, variable)" % line)
    if close + 1 >= len(toks) or toks[close + 1].text != "{":
        raise Unreadable("PYBIND11_MODULE at line %d has no body" % line)
    end = _matching(toks, close + 1)
    return arguments[1][0].text, toks[close + 2:end]


_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")", "]", "}"}


def _matching(toks, start):
    """The index of the bracket closing the one at `start`."""
    depth = 0
    for index in range(start, len(toks)):
        text = toks[index].text
        if toks[index].kind != "punct":
            continue
        if text in _OPEN:
            depth += 1
        elif text in _CLOSE:
            depth -= 1
            if depth == 0:
                return index
    raise Unreadable("unbalanced brackets from line %d" % toks[start].line)


def _split_arguments(toks):
    """Top-level comma-separated parts of a bracketed list's inside."""
    parts, current, depth = [], [], 0
    for token in toks:
        if token.kind == "punct" and token.text in _OPEN:
            depth += 1
        elif token.kind == "punct" and token.text in _CLOSE:
            depth -= 1
        if depth == 0 and token.kind == "punct" and token.text == ",":
            parts.append(current)
            current = []
        else:
            current.append(token)
    if current or parts:
        parts.append(current)
    return parts


def expand(body, lookup, depth=0):
    """`body` with every identifier naming an object-like macro replaced by its tokens (lookup(name)
    gives the macro's tokens, or None when the name is no macro), recursively; a macro is not
    expanded inside itself, as the preprocessor does."""
    if depth > MAX_EXPANSION_DEPTH:
        raise Unreadable("macros nested more than %d deep" % MAX_EXPANSION_DEPTH)
    out = []
    for token in body:
        replacement = lookup(token.text) if token.kind == "name" else None
        if replacement is None:
            out.append(token)
        else:
            name, toks = replacement
            out.extend(expand(toks, lambda n, skip=name: None if n == skip else lookup(n), depth + 1))
        if len(out) > MAX_TOKENS:
            raise Unreadable("more than %d tokens once macros are expanded" % MAX_TOKENS)
    return out


class Def:
    """One `m.def("name", function, extras...)`: its parameters as py::arg names them, in order.
    `named`: whether any py::arg is given (pybind11 takes unnamed arguments by position only)."""
    __slots__ = ("name", "file", "line", "parameters", "named")

    def __init__(self, name, file, line, parameters, named):
        self.name = name
        self.file = file
        self.line = line
        self.parameters = parameters  # [{"name", "default", "kind"}]
        self.named = named


def module_defs(variable, body):
    """Every `variable.def(...)` of an expanded module body, in order."""
    defs = []
    index = 0
    while index + 3 < len(body):
        if (body[index].text == variable and body[index + 1].text == "." and body[index + 2].text == "def"
                and body[index + 3].text == "("):
            close = _matching(body, index + 3)
            defs.append(_def(_split_arguments(body[index + 4:close]), body[index]))
            index = close
        index += 1
    return defs


def module_classes(variable, body):
    """{name: "py::enum_" | "py::class_"} of the types an expanded module body binds:
    `py::enum_<T>(m, "Name")`, `py::class_<T, ...>(m, "Name")`."""
    found = {}
    for index, token in enumerate(body):
        if token.kind != "name" or token.text not in ("enum_", "class_") or index + 1 >= len(body):
            continue
        at = index + 1
        if body[at].text == "<":  # template arguments: skip to the '(' that follows them
            depth = 0
            while at < len(body):
                depth += {"<": 1, ">": -1}.get(body[at].text, 0)
                at += 1
                if depth == 0:
                    break
        if at + 3 < len(body) and body[at].text == "(" and body[at + 1].text == variable \
                and body[at + 2].text == "," and body[at + 3].kind == "string":
            found.setdefault(_string_value(body[at + 3].text), "py::" + token.text)
    return found


def _def(arguments, start):
    line = start.line
    if not arguments or len(arguments[0]) != 1 or arguments[0][0].kind != "string":
        raise Unreadable("a def at line %d whose name is not a string literal" % line)
    name = _string_value(arguments[0][0].text)
    parameters, named, keyword_only = [], False, False
    for argument in arguments[2:]:
        marker = _marker(argument)
        if marker == "kw_only":
            keyword_only = True
            continue
        if marker == "pos_only":
            for parameter in parameters:
                parameter["kind"] = "POSITIONAL_ONLY"
            continue
        parameter = _py_arg(argument, line)
        if parameter is None:
            continue  # the docstring, a return value policy, py::call_guard<...>(), ...
        named = True
        parameter["kind"] = "KEYWORD_ONLY" if keyword_only else "POSITIONAL_OR_KEYWORD"
        parameters.append(parameter)
    return Def(name, start.file, line, parameters, named)


def _marker(argument):
    texts = [t.text for t in argument]
    if texts[:3] == ["py", "::", "kw_only"]:
        return "kw_only"
    if texts[:3] == ["py", "::", "pos_only"]:
        return "pos_only"
    return None


_ARG_FORMS = (["py", "::", "arg", "("], ["pybind11", "::", "arg", "("], ["arg", "("])


def _py_arg(argument, line):
    """{"name", "default"} of `py::arg("x")`, `py::arg("x") = value`, `py::arg("x").noconvert()`,
    `"x"_a = value`; None for an argument that is none of these."""
    texts = [t.text for t in argument]
    if len(argument) >= 2 and argument[0].kind == "string" and texts[1] == "_a":
        name, after = _string_value(argument[0].text), 2
    else:
        form = next((f for f in _ARG_FORMS if texts[:len(f)] == f), None)
        if form is None:
            return None
        open_at = len(form) - 1
        close = _matching(argument, open_at)
        inside = argument[open_at + 1:close]
        if len(inside) != 1 or inside[0].kind != "string":
            raise Unreadable("a py::arg at line %d whose name is not a string literal" % argument[0].line)
        name, after = _string_value(inside[0].text), close + 1
    # .noconvert(), .none(true): options of the argument, not part of its name or default
    while after + 2 < len(argument) and texts[after] == "." and argument[after + 1].kind == "name" \
            and texts[after + 2] == "(":
        after = _matching(argument, after + 2) + 1
    default = None
    if after < len(argument):
        if texts[after] != "=" or after + 1 >= len(argument):
            raise Unreadable("py::arg(\"%s\") at line %d is followed by '%s'" % (name, line, texts[after]))
        default = _joined(argument[after + 1:])
    return {"name": name, "default": default}


def _joined(toks):
    """The tokens as source text, spaced only where two words would merge."""
    out = []
    previous = None
    for token in toks:
        if previous is not None and previous.kind in ("name", "number") and token.kind in ("name", "number"):
            out.append(" ")
        out.append(token.text)
        previous = token
    return "".join(out)


def _string_value(text):
    """The characters of a plain C++ string literal (escapes as written, prefixes dropped)."""
    text = re.sub(r'^(?:u8|[uUL])?R?', "", text)
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    return text


def _extern_c_function(toks, name):
    """(line, [(parameter name, type text)]) of the function `name` defined or declared with C linkage: inside
    `extern "C" { ... }`, after `extern "C"`, or after a macro spelling it (AITER_C_ITFS)."""
    blocks = _extern_c_blocks(toks)
    for index in range(len(toks) - 1):
        token = toks[index]
        if token.kind != "name" or token.text != name:
            continue
        if _entry_point_macro(toks, index):  # AITER_CTYPES_DEFINE_ENTRYPOINT(name, (params), (args))
            close = _matching(toks, index + 2)
            return token.line, _c_parameters(toks[index + 3:close], name)
        if toks[index + 1].text != "(":
            continue
        if index > 0 and toks[index - 1].text in (".", "->", "::", "=", "(", ",", "return"):
            continue  # a call or a qualified use, not a declaration
        close = _matching(toks, index + 1)
        after = toks[close + 1].text if close + 1 < len(toks) else ""
        if after not in ("{", ";"):
            continue
        if not (_in_blocks(index, blocks) or _c_linkage_before(toks, index)):
            continue
        return token.line, _c_parameters(toks[index + 2:close], name)
    return None


def _entry_point_macro(toks, index):
    """Whether the name at `index` is the first argument of a macro that defines a C entry point
    from its parameter list, written `MACRO(name, (parameters), ...)` (an all-caps macro whose
    name says ENTRYPOINT, C_ITFS or EXPORT)."""
    if index < 2 or index + 2 >= len(toks) or toks[index - 1].text != "(" or toks[index + 1].text != ",":
        return False
    macro = toks[index - 2]
    return (macro.kind == "name" and macro.text.isupper() and toks[index + 2].text == "("
            and any(word in macro.text for word in ("ENTRYPOINT", "C_ITFS", "EXPORT")))


def _extern_c_blocks(toks):
    blocks = []
    for index in range(len(toks) - 2):
        if toks[index].text == "extern" and toks[index + 1].text == '"C"' and toks[index + 2].text == "{":
            blocks.append((index + 2, _matching(toks, index + 2)))
    return blocks


def _in_blocks(index, blocks):
    return any(start < index < end for start, end in blocks)


def _c_linkage_before(toks, index):
    """Whether the declaration ending at `index` starts with `extern "C"` or a macro naming C
    linkage (an all-caps word with C_ITFS or EXPORT in it), within the tokens of its return type."""
    for back in range(index - 1, max(-1, index - 12), -1):
        text = toks[back].text
        if text in (";", "}", "{"):
            return False
        if text == '"C"' and back > 0 and toks[back - 1].text == "extern":
            return True
        if toks[back].kind == "name" and text.isupper() and ("C_ITFS" in text or "EXPORT" in text):
            return True
    return False


def _c_parameters(toks, function):
    """[(name, type text)] of a C parameter list's inside (`void` or nothing: none)."""
    return [_parameter_name(part, function) for part in _split_arguments(toks)
            if [t.text for t in part] not in ([], ["void"])]


def _parameter_name(part, function):
    """(name, type text) of one C parameter: its name is the last word before its default or array
    bounds."""
    end = len(part)
    for index, token in enumerate(part):
        if token.text in ("=", "["):
            end = index
            break
    words = [index for index, t in enumerate(part[:end]) if t.kind == "name"]
    if len(words) < 2:
        raise Unreadable("a parameter of %s (line %d) has no name" % (function, part[0].line))
    return part[words[-1]].text, _joined(part[:words[-1]])
