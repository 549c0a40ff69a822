"""aaw_summary: the binding model of a module, its digests and its cache."""

import ast
import os
import pickle
import subprocess
import sys
import unittest

import aaw_collector
import aaw_digest
import aaw_model
import aaw_summary


def summary(text):
    return aaw_collector.summarize(text)


class BindingsTest(unittest.TestCase):
    def test_binds_defs_imports_aliases_and_stars_in_textual_order(self):
        scope = summary("from .m import f as g\nimport a.b as c\nimport x.y\nh = g\n"
                        "from .n import *\ndef f(a): pass\nclass K(Base): pass\n")
        self.assertIsInstance(scope.bindings["g"][0][1], aaw_model.FromImport)
        self.assertEqual(scope.bindings["c"][0][1].module, "a.b")
        self.assertEqual(scope.bindings["x"][0][1].module, "x", "`import x.y` binds x")
        self.assertEqual(scope.bindings["h"][0][1].parts, ["g"])
        self.assertEqual([star.module for _, star in scope.stars], ["n"])
        self.assertIsInstance(scope.bindings["f"][0][1], aaw_model.Def)
        self.assertTrue(scope.bindings["K"][0][1].has_bases)
        indexes = [scope.bindings[name][0][0] for name in ("g", "c", "h", "f", "K")]
        self.assertEqual(indexes, sorted(indexes))

    def test_main_guard_and_type_checking_bind_nothing_but_their_else_does(self):
        scope = summary("if __name__ == '__main__':\n    def f(): pass\n"
                        "if TYPE_CHECKING:\n    def g(): pass\nelse:\n    def g(x): pass\n")
        self.assertNotIn("f", scope.bindings)
        self.assertEqual(len(scope.bindings["g"]), 1)

    def test_all_is_read_from_literals_and_marked_dynamic_otherwise(self):
        self.assertEqual(summary("__all__ = ['a'] + ['b']\n__all__ += ('c',)\n").all_names, {"a", "b", "c"})
        scope = summary("__all__ = names()\n")
        self.assertTrue(scope.all_dynamic)

    def test_module_level_dynamic_definitions_are_noted(self):
        scope = summary("globals()['f'] = 1\nsetattr(mod, 'g', 2)\ndef __getattr__(name): pass\n")
        self.assertEqual(len(scope.dynamic), 3)

    def test_a_module_level_computed_import_is_noted(self):
        self.assertTrue(summary("import importlib\nm = importlib.import_module(name)\n").dynamic_imports)
        self.assertTrue(summary("__import__(name)\n").dynamic_imports)
        self.assertFalse(summary("def f():\n    return __import__(name)\nx = load(name)\n").dynamic_imports)

    def test_syntax_error_is_a_parse_failure_with_its_line(self):
        failure = summary("def f(:\n")
        self.assertIsInstance(failure, aaw_model.ParseFailure)
        self.assertEqual(failure.line, 1)


class DigestTest(unittest.TestCase):
    def test_bodies_comments_and_other_names_keep_the_digest(self):
        before = summary("def f(a, b=1):\n    return a\n\ndef g(): pass\n")
        after = summary("# a comment\ndef f(a, b=1):\n    return a + b\n\ndef g(x): pass\n")
        self.assertEqual(aaw_digest.digest(before, ["f"]), aaw_digest.digest(after, ["f"]))
        self.assertNotEqual(aaw_digest.digest(before, ["g"]), aaw_digest.digest(after, ["g"]))

    def test_what_methods_may_set_on_instances_enters_their_classs_digest(self):
        # An instance's signature is its class's __call__ only while no method gives it another,
        # and instance.m its class's m while no method sets m on the instance.
        def digest(init_body):
            return aaw_digest.digest(summary("class C:\n    def __init__(self, f):\n" + init_body), ["C"])
        before = digest("        self.f = f\n")
        self.assertNotEqual(before, digest("        self.f = f\n        self.__wrapped__ = f\n"))
        self.assertNotEqual(before, digest("        self.f = f\n        self.mm = f\n"))
        self.assertEqual(before, digest("        self.f = f if f else None\n        print(f)\n"))

    def test_a_changed_signature_or_star_import_changes_it(self):
        base = aaw_digest.digest(summary("def f(a): pass\n"), ["f"])
        self.assertNotEqual(base, aaw_digest.digest(summary("def f(a, b): pass\n"), ["f"]))
        self.assertNotEqual(base, aaw_digest.digest(summary("from .m import *\ndef f(a): pass\n"), ["f"]))

    def test_names_the_module_does_not_bind_share_one_digest_that_its_star_imports_change(self):
        scope = summary("from .m import *\ndef f(a): pass\n")
        self.assertEqual(aaw_digest.digest(scope, ["x"]), aaw_digest.digest(scope, ["y", "z"]))
        self.assertNotEqual(aaw_digest.digest(scope, ["x"]), aaw_digest.digest(scope, ["f"]))
        self.assertNotIn(frozenset(["x"]), scope.digests, "not kept once per set of names")
        more = summary("from .m import *\nfrom .n import *\ndef f(a): pass\n")
        self.assertNotEqual(aaw_digest.digest(scope, ["x"]), aaw_digest.digest(more, ["x"]))
        self.assertEqual(aaw_digest.digest(scope, ["x"]),
                         aaw_digest.digest(summary("from .m import *\ndef f(a, b): pass\n"), ["x"]))

    def test_a_digest_is_computed_once_per_set_of_names(self):
        scope = summary("from .m import a, b\ndef f(x): pass\n")
        first = aaw_digest.digest(scope, ["a", "b"])
        self.assertEqual(aaw_digest.digest(scope, ["b", "a", "a"]), first)
        self.assertEqual([k for k in scope.digests if isinstance(k, frozenset)], [frozenset({"a", "b"})])
        self.assertEqual(first, aaw_digest.digest(summary("from .m import a, b\ndef f(x): pass\n"), ["b", "a"]))

    def test_an_identity_reads_what_a_name_is_bound_to_but_not_a_defs_parameters(self):
        ask = [aaw_digest.identity_of("deco")]
        base = aaw_digest.digest(summary("import functools\ndef deco(fn):\n    return fn\n"), ask)
        self.assertEqual(base, aaw_digest.digest(summary("import functools\ndef deco(fn, extra=1):\n    return fn\n"),
                                                  ask), "its own parameters")
        self.assertNotEqual(aaw_digest.digest(summary("def deco(fn): pass\n"), ["deco"]),
                            aaw_digest.digest(summary("def deco(fn, extra=1): pass\n"), ["deco"]), "as the name")
        self.assertNotEqual(base, aaw_digest.digest(summary("import functools\n@functools.cache\ndef deco(fn):\n"
                                                             "    return fn\n"), ask), "its decorators")
        self.assertNotEqual(base, aaw_digest.digest(summary("from .m import deco\n"), ask), "another binding")

    def test_an_identity_of_a_name_the_module_does_not_bind_reads_as_the_name(self):
        scope = summary("from .m import *\ndef f(a): pass\n")
        self.assertEqual(aaw_digest.digest(scope, [aaw_digest.identity_of("x")]), aaw_digest.digest(scope, ["x"]))
        self.assertNotIn(frozenset([aaw_digest.identity_of("x")]), scope.digests, "the one unbound digest")

    def test_positions_asked_with_an_identity_follow_its_binding(self):
        ask = [aaw_digest.identity_of("deco"), aaw_digest.POSITIONS]
        before = aaw_digest.digest(summary("def deco(fn): pass\n"), ask)
        self.assertNotEqual(before, aaw_digest.digest(summary("\ndef deco(fn): pass\n"), ask))

    def test_no_names_means_no_digest(self):
        self.assertIsNone(aaw_digest.digest(summary("x = 1\n"), []))


class StarDeltaTest(unittest.TestCase):
    def test_one_delta_answers_every_set_of_names_of_a_star_import_edit(self):
        old = summary("from .a import *\nfrom .b import *\ndef f(x): pass\n")
        added = ["c"]
        cases = {  # text: what the added star imports are for g, f, g with HOOKS, g with IMPORTS
            "from .a import *\nfrom .b import *\nfrom .c import *\ndef f(x): pass\n": [added, added, added, None],
            "from .a import *\nfrom .c import *\nfrom .b import *\ndef f(x): pass\n": [added, added, added, None],
            "def f(x): pass\nfrom .a import *\nfrom .b import *\nfrom .c import *\n": [added, None, added, None],
            "from .b import *\nfrom .a import *\nfrom .c import *\ndef f(x): pass\n": [None] * 4,  # reordered
            "__all__ = ['f']\nfrom .a import *\nfrom .b import *\nfrom .c import *\ndef f(x): pass\n": [None] * 4,
            "from .a import *\nfrom .b import *\ndef f(y): pass\n": [None] * 4,  # none added
            "from .a import (\n": [None] * 4,  # does not parse
        }
        asks = [["g"], ["f"], ["g", aaw_digest.HOOKS], ["g", aaw_digest.IMPORTS]]
        for text, expected in cases.items():
            delta = aaw_digest.StarDelta(old, summary(text))
            for names, want in zip(asks, expected):
                with self.subTest(text=text, names=names):
                    got = delta.added_stars(names)
                    self.assertEqual(None if got is None else [star.module for star in got], want)
            self.assertIsNone(delta.added_stars([]))
        delta = aaw_digest.StarDelta(old, summary("from .a import *\nfrom .b import *\nfrom .c import *\n"
                                                    "def f(x): pass\n"))
        self.assertEqual([s.module for s in delta.added_stars([aaw_digest.identity_of("g")])], added)


class CacheTest(unittest.TestCase):
    def setUp(self):
        self.cache = aaw_summary.SummaryCache()

    def test_each_blob_is_parsed_once(self):
        reads = []

        def read(blob):
            reads.append(blob)
            return "def f(): pass\n"

        first = self.cache.summary_of("b1", read)
        self.assertIs(self.cache.summary_of("b1", read), first)
        self.assertEqual(reads, ["b1"])
        self.assertEqual(self.cache.size(), 1)

    def test_parses_and_distinct_blobs_are_counted(self):
        self.cache = aaw_summary.SummaryCache()
        self.cache.summary_of("b1", lambda _: "def f(): pass\n")
        self.cache.summary_of("b1", lambda _: "def f(): pass\n")
        self.cache.summary_of("b2", lambda _: "def g(): pass\n")
        stats = self.cache.stats()
        self.assertEqual((stats["parses"], stats["distinct_blobs"]), (2, 2))

    def test_the_cache_keeps_the_most_recent_summaries_within_its_byte_bound(self):
        text = "def f(a, b=1): pass\n" * 20  # 400 characters: about 4 kB once summarised
        self.cache.set_limit(10_000)
        try:
            for blob in ("b1", "b2", "b3", "b4"):
                self.cache.summary_of(blob, lambda _: text)
            stats = self.cache.stats()
            self.assertLessEqual(stats["cached_bytes"], 10_000)
            self.assertEqual(stats["cached"], 2)
            self.assertIsNone(self.cache.cached("b1"))
            self.assertIsNotNone(self.cache.cached("b4"))
        finally:
            self.cache.set_limit(None)

    def test_garbage_made_between_parses_is_never_frozen(self):
        # ast.dump() (digests) leaves a reference cycle at each call: frozen, it would never be freed.
        import gc
        self.cache.set_limit(0)
        try:
            def parse_and_dump(i):
                scope = self.cache.summary_of("b%d" % i, lambda _: "def f(a, b=%d): pass\n" % i)
                aaw_digest.digest(scope, ["f"])
            for i in range(20):
                parse_and_dump(i)
            frozen = gc.get_freeze_count()
            for i in range(20, 220):
                parse_and_dump(i)
            self.assertLess(gc.get_freeze_count() - frozen, 100)
        finally:
            self.cache.set_limit(None)

    def test_a_summary_larger_than_the_bound_is_still_kept_while_it_is_the_newest(self):
        self.cache.set_limit(0)
        try:
            first = self.cache.summary_of("b1", lambda _: "def f(): pass\n")
            self.assertIs(self.cache.cached("b1"), first)
            self.cache.summary_of("b2", lambda _: "def g(): pass\n")
            self.assertIsNone(self.cache.cached("b1"))
        finally:
            self.cache.set_limit(None)


def skeleton(text, blanked, headers=True):
    """The skeleton the C++ side's skeleton_of makes of `text` when it blanks the bodies of the defs
    on the lines in `blanked` (each body: the lines after its header to the next line indented no
    deeper than the def) and, with `headers`, their parameters (each header on one line, its colon
    the line's last), written out here for small modules."""
    lines = text.splitlines(keepends=True)
    bodies, out = [], list(lines)
    for def_line in blanked:
        header = lines[def_line - 1]
        indent = len(header) - len(header.lstrip(" "))
        end = def_line
        while end < len(lines) and (not lines[end].strip() or
                                    len(lines[end]) - len(lines[end].lstrip(" ")) > indent):
            end += 1
        bodies.append({"def_line": def_line, "async": header.lstrip().startswith("async "),
                       "text": "".join(lines[def_line:end])})
        out[def_line:end] = [" " * (indent + 4) + "pass\n"] + ["\n"] * (end - def_line - 1)
        if headers:
            start, opened, colon = indent, header.index("("), header.rindex(":")
            bodies[-1]["header"] = header[start:colon + 1]
            out[def_line - 1] = header[:opened + 1] + " " * (colon - opened - 2) + ")" + header[colon:]
    return {"complete": True, "text": "".join(out), "bodies": bodies}


DECORATORS = ("def replace(fn):\n"
              "    def inner(*args):\n"
              "        return fn(*args)\n"
              "    return inner\n"
              "def keep(cls):\n"
              "    if cls:\n"
              "        return cls\n"
              "    return cls\n"
              "async def other(x, y=1):\n"
              "    await x\n")


class SkeletonTest(unittest.TestCase):
    def setUp(self):
        self.cache = aaw_summary.SummaryCache()

    def summaries(self, text, blanked, headers=True):
        """The summaries of `text` and of its skeleton, and whether the whole text was read too."""
        full = self.cache.summary_of("full", lambda _: text)
        reads = []
        from_skeleton = self.cache.summary_of("skeleton", lambda blob: reads.append(blob) or text,
                                               lambda _: skeleton(text, blanked, headers))
        return full, from_skeleton, bool(reads)

    def test_a_skeleton_summarises_as_the_whole_text_does(self):
        for headers in (True, False):
            self.cache = aaw_summary.SummaryCache()
            full, from_skeleton, read_whole = self.summaries(DECORATORS, [1, 5, 9], headers)
            self.assertFalse(read_whole, "a skeleton whose bodies parse is all that is read")
            self.assertEqual(self.cache.stats()["skeletons"], 1)
            for name in ("replace", "keep", "other"):
                self.assertEqual(aaw_digest.digest(from_skeleton, [name, aaw_digest.body_of(name)]),
                                 aaw_digest.digest(full, [name, aaw_digest.body_of(name)]), name)
            self.assertEqual(from_skeleton.bindings["replace"][0][1].effect,
                             ("nested", None, "*args", None, None))
            self.assertTrue(from_skeleton.bindings["keep"][0][1].returns_first_argument)
            self.assertFalse(from_skeleton.bindings["other"][0][1].returns_first_argument)
            self.assertEqual(from_skeleton.bindings["other"][0][1].line, 9)
            other = from_skeleton.bindings["other"][0][1]
            self.assertEqual(ast.dump(other.args), ast.dump(full.bindings["other"][0][1].args))
            self.assertEqual([a.arg for a in other.args.args], ["x", "y"])

    def test_a_blanked_header_that_does_not_parse_is_the_whole_texts_syntax_error(self):
        # Parameters the parser rejects; the skeleton's `def f(        ):` parses.
        for text in ("def f(a=1, b):\n    return a\n", "def f(a, *, **k):\n    return a\n",
                     "def f(a) -> :\n    return a\n"):
            self.cache = aaw_summary.SummaryCache()
            full, from_skeleton, read_whole = self.summaries(text, [1])
            self.assertTrue(read_whole, text)
            self.assertIsInstance(from_skeleton, aaw_model.ParseFailure, text)
            self.assertEqual((from_skeleton.line, from_skeleton.message), (full.line, full.message), text)

    def test_a_header_over_a_body_on_its_line_is_blanked_and_the_body_read_in_place(self):
        text = ("def keep(cls): return cls\n"
                "def stub(a: int,\n"
                "         b=2) -> int: ...\n")
        made = {"complete": True, "bodies": [],
                "text": "def keep(   ): return cls\ndef stub(       \n            ): ...\n",
                "headers": [{"def_line": 1, "header": "def keep(cls):"},
                            {"def_line": 2, "header": "def stub(a: int,\n         b=2) -> int:"}]}
        full = self.cache.summary_of("full", lambda _: text)
        reads = []
        from_skeleton = self.cache.summary_of("skeleton", lambda blob: reads.append(blob) or text, lambda _: made)
        self.assertEqual(reads, [])
        for name in ("keep", "stub"):
            asked = [name, aaw_digest.body_of(name), aaw_digest.POSITIONS]
            self.assertEqual(aaw_digest.digest(from_skeleton, asked), aaw_digest.digest(full, asked), name)
        self.assertTrue(from_skeleton.bindings["keep"][0][1].returns_first_argument)
        self.assertEqual([a.arg for a in from_skeleton.bindings["stub"][0][1].args.args], ["a", "b"])
        # A header that does not parse on its own: the whole text decides.
        made["headers"][1]["header"] = "def stub(a=1, b) -> int:"
        self.cache.clear()
        self.cache.summary_of("skeleton", lambda blob: reads.append(blob) or text, lambda _: made)
        self.assertEqual(reads, ["skeleton"])

    def test_a_header_seen_before_is_not_parsed_again(self):
        self.summaries(DECORATORS, [1, 5, 9])
        parses = []
        real = aaw_model.parse_header
        aaw_model.parse_header = lambda header: parses.append(header) or real(header)
        try:
            edited = DECORATORS.replace("return inner", "return  inner")
            self.cache.summary_of("edited", None, lambda _: skeleton(edited, [1, 5, 9]))
            self.assertEqual(parses, [])
            edited = DECORATORS.replace("y=1", "y=2")
            self.cache.summary_of("edited again", None, lambda _: skeleton(edited, [1, 5, 9]))
            self.assertEqual(parses, [b"async def other(x, y=2):"])
        finally:
            aaw_model.parse_header = real

    def test_a_body_that_does_not_parse_is_the_whole_texts_syntax_error(self):
        text = "def f(a):\n    x = (1,\n    return a]\ndef g(b):\n    return b\n"
        full, from_skeleton, read_whole = self.summaries(text, [1, 4])
        self.assertTrue(read_whole)
        self.assertIsInstance(from_skeleton, aaw_model.ParseFailure)
        self.assertEqual((from_skeleton.line, from_skeleton.message), (full.line, full.message))
        self.assertEqual(self.cache.stats()["skeletons"], 0)

    def test_a_body_seen_before_is_not_parsed_again(self):
        self.summaries(DECORATORS, [1, 5, 9])
        parsed = self.cache.stats()["bodies_parsed"]
        self.assertEqual(parsed, 3)
        edited = DECORATORS.replace("y=1", "y=2")
        self.cache.summary_of("edited", None, lambda _: skeleton(edited, [1, 5, 9]))
        self.assertEqual(self.cache.stats()["bodies_parsed"], parsed)

    def test_a_blanked_module_level_getattr_or_hook_sends_the_whole_text(self):
        # The C++ skeleton keeps only a __getattr__ at indent 0 whole; one nested in an if, or
        # spelled with characters NFKC folds to ASCII, is blanked: its cases come from the text.
        nested = ("import sys\n"
                  "if sys.version_info >= (3, 7):\n"
                  "    def __getattr__(name):\n"
                  "        if name == 'old':\n"
                  "            from .m import new\n"
                  "            return new\n"
                  "        raise AttributeError(name)\n"
                  "def keep(a):\n"
                  "    return a\n")
        folded = ("def __\uff47etattr__(name):\n"
                  "    if name == 'old':\n"
                  "        from .m import new\n"
                  "        return new\n"
                  "    raise AttributeError(name)\n")
        hook = ("import sys\n"
                "def finder(name, path, target=None):\n"
                "    return LOADERS.get(name)\n"
                "sys.\uff4deta_path.insert(0, finder)\n")
        for text, blanked in ((nested, [3, 8]), (folded, [1]), (hook, [2])):
            self.cache.clear()
            full, from_skeleton, read_whole = self.summaries(text, blanked)
            self.assertTrue(read_whole, text)
            self.assertEqual(from_skeleton.getattr_cases, full.getattr_cases, text)
            self.assertEqual(from_skeleton.hooks, full.hooks, text)
            self.assertEqual(self.cache.stats()["skeletons"], 0, text)
            expected = {"old": (1, "m", "new")} if text != hook else {}
            self.assertEqual(from_skeleton.getattr_cases, expected, text)
        self.assertIn("LOADERS", from_skeleton.hooks)

    def test_one_body_under_two_headers_is_checked_once_and_read_for_each(self):
        # The facts kept for a body need nothing of its header: whether it returns its first
        # argument is decided by each def's own parameters.
        text = ("def keep(cls):\n"
                "    return cls\n"
                "def other(obj):\n"
                "    return cls\n")
        full, from_skeleton, read_whole = self.summaries(text, [1, 3])
        self.assertFalse(read_whole)
        self.assertEqual(self.cache.stats()["bodies_parsed"], 1)
        for name, expected in (("keep", True), ("other", False)):
            self.assertEqual(from_skeleton.bindings[name][0][1].returns_first_argument, expected, name)
            self.assertEqual(full.bindings[name][0][1].returns_first_argument, expected, name)

    def test_an_incomplete_skeleton_gives_the_text_to_parse_whole(self):
        summary = self.cache.summary_of("b", None, lambda _: {"complete": False, "text": "def f(a): pass\n"})
        self.assertIn("f", summary.bindings)
        self.assertEqual(self.cache.stats()["skeletons"], 0)


class MadeAheadTest(unittest.TestCase):
    """A summary parsed ahead in another process (pickled_summary) and handed over by read_skeleton."""

    def setUp(self):
        self.cache = aaw_summary.SummaryCache()

    def test_an_adopted_summary_reads_as_the_one_parsed_here(self):
        pickled, characters = self.cache.pickled_summary("made", None, lambda _: skeleton(DECORATORS, [1, 5, 9]))
        self.assertEqual(characters, len(skeleton(DECORATORS, [1, 5, 9])["text"]) +
                         sum(len(b["text"]) for b in skeleton(DECORATORS, [1, 5, 9])["bodies"]))
        self.cache = aaw_summary.SummaryCache()
        offered = []
        adopted = self.cache.summary_of(
            "made", None, lambda _: offered.append(1) or {"pickled": pickled, "characters": characters})
        here = self.cache.summary_of("here", lambda _: DECORATORS)
        self.assertEqual(len(offered), 1)
        for name in ("replace", "keep", "other", "missing"):
            self.assertEqual(aaw_digest.digest(adopted, [name, aaw_digest.body_of(name)]),
                             aaw_digest.digest(here, [name, aaw_digest.body_of(name)]), name)
        self.assertEqual(aaw_digest.outline(adopted), aaw_digest.outline(here))
        stats = self.cache.stats()
        self.assertEqual((stats["adopted"], stats["parses"], stats["distinct_blobs"]), (1, 1, 2),
                         "an adopted summary is no parse here, but a distinct blob")
        self.assertIs(self.cache.summary_of("made", None, None), adopted, "and it is cached")

    def test_a_parse_failure_made_ahead_is_adopted_as_one(self):
        text = "def f(:\n"
        pickled, characters = self.cache.pickled_summary("bad", lambda _: text, None)
        self.cache.clear()
        adopted = self.cache.summary_of("bad", None, lambda _: {"pickled": pickled, "characters": characters})
        self.assertIsInstance(adopted, aaw_model.ParseFailure)
        self.assertEqual(adopted.digest, aaw_collector.summarize(text).digest)

    def test_a_summary_made_in_another_process_digests_as_one_made_here(self):
        # String hashes are salted per process, so a set (__all__'s names) iterates in another
        # order there, and unpickled here, where its names collide, it keeps some of that order:
        # nothing of a digest may depend on it.
        names = ["alpha"] + ["name_%d" % i for i in range(300)]
        text = "__all__ = %r\nfrom .impl import *\ndef alpha(a):\n    pass\n" % names
        made = subprocess.run(
            [sys.executable, "-c", "import sys, aaw_summary; "
             "sys.stdout.buffer.write(aaw_summary.pickled_summary('b', lambda _: sys.stdin.read())[0])"],
            input=text.encode(), capture_output=True, check=True,
            env=dict(os.environ, PYTHONHASHSEED="12345", PYTHONPATH=os.pathsep.join(sys.path))).stdout
        there = self.cache.summary_of("b", None, lambda _: {"pickled": made, "characters": len(text)})
        here = aaw_collector.summarize(text)
        for names in (["alpha"], ["missing"], ["alpha", "zeta"], [aaw_digest.HOOKS, "alpha"]):
            self.assertEqual(aaw_digest.digest(there, names), aaw_digest.digest(here, names), names)
        self.assertEqual(aaw_digest.outline(there), aaw_digest.outline(here))

    def test_a_damaged_one_is_parsed_here_from_the_skeleton_asked_again(self):
        answers = [{"pickled": b"not a pickle", "characters": 5}, skeleton(DECORATORS, [1, 5, 9])]
        summary = self.cache.summary_of("damaged", None, lambda _: answers.pop(0))
        self.assertEqual(answers, [])
        self.assertEqual(sorted(summary.bindings), ["keep", "other", "replace"])
        self.assertEqual((self.cache.stats()["adopted"], self.cache.stats()["parses"]), (0, 1))


# Defs whose header (from `def` to the body) is cut from the text and parsed again alone.
HEADERS = ("import functools\n"
           "def plain(a, b=1, *args, c: int = 2, **kw) -> 'x': return a\n"
           "async def waits(x, /, y=[1,\n"
           "        2]) -> \\\n"
           "        int:  # a comment after the colon\n"
           "    # a comment before the body\n"
           "    await x\n"
           "def wraps_one(fn):\n"
           "    @functools.wraps(fn)\n"
           "    def inner(*args): return fn(*args)\n"
           "    return inner\n"
           "class K:\n"
           "    def method(self, __x, *, y: 'K' = None): pass\n"
           "    @staticmethod\n"
           "    def tabbed(a,\n"
           "\t\tb): pass\n")


def defs_of(scope):
    for bound in scope.bindings.values():
        for _, binding in bound:
            if isinstance(binding, aaw_model.Def):
                yield binding
            elif isinstance(binding, aaw_model.Class):
                yield from defs_of(binding.scope)


class DefHeaderTest(unittest.TestCase):
    """A def keeps its header's text, so a summary pickled without its arguments' nodes (what the
    process that parses ahead sends) parses them again from it when asked."""

    def setUp(self):
        aaw_summary.clear_cache()

    def test_every_header_parses_again_into_the_same_arguments_and_returns(self):
        for text in (HEADERS, HEADERS.replace("\n", "\r\n")):
            here = summary(text)
            there = pickle.loads(pickle.dumps(here))
            made = {d.name: d for d in defs_of(here)}
            read = {d.name: d for d in defs_of(there)}
            self.assertEqual(sorted(made), ["method", "plain", "tabbed", "waits", "wraps_one"])
            for name, definition in read.items():
                self.assertIsNotNone(definition.header, name)
                self.assertIsNone(definition._args, "%s: no nodes pickled" % name)
                self.assertEqual(ast.dump(definition.args), ast.dump(made[name].args), name)
                self.assertEqual(ast.dump(definition.returns) if definition.returns else None,
                                 ast.dump(made[name].returns) if made[name].returns else None, name)
                self.assertEqual(definition.returns_first_argument, made[name].returns_first_argument, name)
            for name in read:
                self.assertEqual(aaw_digest.digest(there, [name]), aaw_digest.digest(here, [name]), name)

    def test_a_header_cut_before_a_decorated_first_statement_leaves_the_decorator_out(self):
        definition = {d.name: d for d in defs_of(summary(HEADERS))}["wraps_one"]
        self.assertEqual(definition.header, b"def wraps_one(fn):")

    def test_headers_that_would_not_read_back_keep_their_nodes(self):
        # Not ASCII (a coding declaration would give the parser other columns), or lines broken
        # by a lone carriage return (whose line numbers are not those of the lines split on \n).
        for text in ("def f(a='\u00e9'): pass\n", "x = 1\rdef f(a): pass\n"):
            definitions = list(defs_of(summary(text)))
            self.assertEqual(len(definitions), 1, text)
            self.assertIsNone(definitions[0].header, text)
            there = next(defs_of(pickle.loads(pickle.dumps(summary(text)))))
            self.assertEqual(ast.dump(there.args), ast.dump(definitions[0].args), text)


if __name__ == "__main__":
    unittest.main()
