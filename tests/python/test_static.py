"""aaw_static / aaw_resolver: the resolution rules of docs/design.md on trees held in a dict."""

import unittest

import aaw_digest
import aaw_static
import aaw_summary
from dict_host import DictHost


def resolve(files, import_statement, function_path, host=None):
    host = host or DictHost(files)
    [entry] = aaw_static.resolve_all({"functions": [{"import_statement": import_statement,
                                                      "function_path": function_path}]}, host)
    return entry


def names(entry):
    return [p["name"] for p in entry["state"]["signature"]["parameters"]]


class ResolutionTest(unittest.TestCase):
    def setUp(self):
        aaw_summary.clear_cache()

    def test_import_forms(self):
        files = {"pkg/__init__.py": "", "pkg/mod.py": "def f(a, b): pass\n"}
        for statement, path in [("import pkg.mod as m", "m.f"), ("from pkg.mod import f", "f"),
                                ("import pkg.mod", "pkg.mod.f"), ("from pkg import mod", "mod.f")]:
            with self.subTest(statement):
                self.assertEqual(names(resolve(files, statement, path)), ["a", "b"])

    def test_an_import_statement_that_is_not_one_is_unresolved_every_time(self):
        files = {"pkg/__init__.py": "def f(a): pass\n"}
        for statement, detail in [("import pkg as", "cannot parse import statement 'import pkg as': "),
                                  ("x = 1", "'x = 1' is not a single import statement"),
                                  ("import pkg; import os", "is not a single import statement")]:
            for _ in range(2):  # the second time from the parsed statements kept
                with self.subTest(statement):
                    state = resolve(files, statement, "pkg.f")["state"]
                    self.assertEqual(state["status"], "unresolved")
                    self.assertIn(detail, state["detail"])
        self.assertEqual(names(resolve(files, "import pkg", "pkg.f")), ["a"])

    def test_a_symbolic_link_on_the_way_is_unresolved_never_missing_and_its_change_is_seen(self):
        files = {"pkg/__init__.py": "", "pkg/real.py": "def f(a): pass\n", "pkg/sub/__init__.py": "",
                 "pkg/sub/real.py": "def f(a): pass\n"}
        host = DictHost(files)
        host.links = {"pkg/mod.py": "real.py", "pkg/self": ".", "pkg/sub/alias": "../sub"}
        for statement, path in [("from pkg.mod import f", "f"), ("from pkg.self.real import f", "f"),
                                ("from pkg.sub.alias.real import f", "f"), ("import pkg.self.self.mod", "pkg.self.self.mod.f")]:
            with self.subTest(statement):
                entry = resolve(files, statement, path, host)
                self.assertEqual(entry["state"]["status"], "unresolved")
                self.assertIn("is a symbolic link, which static extraction does not follow", entry["state"]["detail"])
                [link] = [c for c in entry["consulted"] if c.get("link")]
                self.assertEqual(link["blob"], host.blob_id(host.links[link["path"]]))
        # Known probes handed back (as the incremental source does) keep the link a link.
        entry = resolve(files, "from pkg.mod import f", "f", host)
        [known] = aaw_static.resolve_all({"functions": [{"import_statement": "from pkg.mod import f", "function_path": "f"}],
                                          "known_blobs": {c["path"]: {"link": c["blob"]} if c.get("link") else c["blob"]
                                                          for c in entry["consulted"] if "directory" not in c},
                                          "known_directories": {c["path"]: c["directory"] for c in entry["consulted"]
                                                                if "directory" in c}}, DictHost(files))
        self.assertEqual(known["state"]["status"], "unresolved")
        self.assertEqual(names(resolve(files, "from pkg.real import f", "f", host)), ["a"])

    def test_a_resolution_without_what_it_consulted_gives_the_same_state(self):
        import aaw_resolver
        files = {"pkg/__init__.py": "from .m import *\n", "pkg/m.py": "g = 1\ndef f(a, b=2): pass\n"}
        for path in ("pkg.f", "pkg.g", "pkg.h"):
            full = aaw_resolver.Session(DictHost(files)).resolve_function(
                {"import_statement": "import pkg", "function_path": path})
            bare = aaw_resolver.Session(DictHost(files)).resolve_function(
                {"import_statement": "import pkg", "function_path": path}, consulted=False)
            self.assertEqual(bare, {"state": full["state"]}, path)
            self.assertTrue(full["consulted"], path)

    def test_star_imports_honour_all_and_follow_relative_imports(self):
        files = {"pkg/__init__.py": "from .a import *\nfrom .b import *\n",
                 "pkg/a.py": "__all__ = ['f']\ndef f(x): pass\ndef g(y): pass\n",
                 "pkg/b.py": "from ._impl import h as k\n",
                 "pkg/_impl.py": "def h(z=1): pass\n"}
        self.assertEqual(names(resolve(files, "import pkg", "pkg.f")), ["x"])
        self.assertEqual(resolve(files, "import pkg", "pkg.g")["state"]["status"], "missing")
        self.assertEqual(names(resolve(files, "import pkg", "pkg.k")), ["z"])

    def test_last_binding_wins_and_aliases_are_followed(self):
        files = {"pkg/__init__.py": "def f(a): pass\ntry:\n    from ._fast import f\nexcept ImportError:\n"
                                    "    pass\ng = f\n",
                 "pkg/_fast.py": "def f(a, fast=True): pass\n"}
        self.assertEqual(names(resolve(files, "import pkg", "pkg.g")), ["a", "fast"])

    def test_methods_classmethods_and_constructors(self):
        files = {"pkg/__init__.py": "class K:\n    def __init__(self, n): pass\n"
                                    "    def m(self, x): pass\n    @classmethod\n    def c(cls, y): pass\n"}
        # As inspect.signature(K.m): a function reached through its class keeps self.
        self.assertEqual(names(resolve(files, "import pkg", "pkg.K.m")), ["self", "x"])
        self.assertEqual(names(resolve(files, "import pkg", "pkg.K.c")), ["y"])
        self.assertEqual(names(resolve(files, "import pkg", "pkg.K")), ["n"])

    def test_built_in_bases_are_passed_over_as_inspect_does(self):
        # inspect.signature on Python 3.11: F -> (a, b=1), L -> (z); G, H and K raise ValueError.
        files = {"pkg/__init__.py": (
            "class E(Exception):\n    def __init__(self, a, b=1): pass\n"
            "class F(E): pass\n"
            "class G(dict): pass\n"
            "class H(Exception): pass\n"
            "class Mix:\n    def __init__(self, z): pass\n"
            "class K(Exception, Mix): pass\n"
            "class L(Mix, Exception): pass\n"
            "import torch\nclass M(torch.nn.Module): pass\n")}
        self.assertEqual(names(resolve(files, "import pkg", "pkg.F")), ["a", "b"])
        self.assertEqual(names(resolve(files, "import pkg", "pkg.L")), ["z"])
        details = {n: resolve(files, "import pkg", "pkg." + n)["state"] for n in "GHKM"}
        self.assertEqual({n: s["status"] for n, s in details.items()}, dict.fromkeys("GHKM", "unresolved"))
        self.assertIn("its signature is built-in dict's", details["G"]["detail"])
        self.assertIn("after built-in Exception in its method order", details["K"]["detail"])
        self.assertIn("may inherit __new__ from torch.nn.Module", details["M"]["detail"])

    def test_decorators_do_not_change_the_signature(self):
        files = {"pkg/__init__.py": "@compile_ops('x')\ndef f(a, b=None): ...\n"}
        self.assertEqual(names(resolve(files, "import pkg", "pkg.f")), ["a", "b"])

    def test_dynamic_definitions_are_unresolved_with_the_reason(self):
        files = {"pkg/__init__.py": "globals()['f'] = make()\n"}
        entry = resolve(files, "import pkg", "pkg.f")
        self.assertEqual(entry["state"]["status"], "unresolved")
        self.assertIn("globals()", entry["state"]["detail"])

    def test_import_cycles_are_cut(self):
        files = {"pkg/__init__.py": "from .a import *\n", "pkg/a.py": "from . import *\ndef f(): pass\n"}
        self.assertEqual(names(resolve(files, "import pkg", "pkg.f")), [])
        self.assertEqual(resolve(files, "import pkg", "pkg.nothing")["state"]["status"], "missing")

    def test_a_module_that_does_not_parse_is_a_syntax_error_naming_the_line(self):
        entry = resolve({"pkg/__init__.py": "def f(:\n"}, "import pkg", "pkg.f")
        self.assertEqual(entry["state"]["status"], "syntax_error")
        self.assertIn("pkg/__init__.py:1", entry["state"]["detail"])

    def test_a_default_nested_past_the_recursion_limit_fails_only_its_function(self):
        files = {"pkg/__init__.py": "from .deep import *\nfrom .plain import *\n",
                 "pkg/deep.py": "def deep(x=%s): pass\n" % "+".join(["1"] * 1000),
                 "pkg/plain.py": "def plain(y=1): pass\n"}
        host = DictHost(files)
        deep, plain = aaw_static.resolve_all({"functions": [
            {"import_statement": "import pkg", "function_path": "pkg.deep"},
            {"import_statement": "import pkg", "function_path": "pkg.plain"}]}, host)
        self.assertEqual(plain["state"]["status"], "ok")
        self.assertEqual(deep["state"]["status"], "unresolved")
        self.assertIn("nested too deeply", deep["state"]["detail"])
        digests = aaw_static.module_digests({"queries": [{"blob": DictHost.blob_id(files["pkg/deep.py"]),
                                                           "names": ["deep"]}]}, host)
        self.assertEqual(digests, [None])  # vouches for nothing: resolved again on any change

    def test_a_star_import_chain_longer_than_the_limit_is_unresolved_not_a_syntax_error(self):
        files = {"pkg/__init__.py": "from .m0 import *\n", "pkg/other.py": "def g(b): pass\n",
                 "pkg/m1000.py": "def f(a): pass\n"}
        for i in range(1000):
            files["pkg/m%d.py" % i] = "from .m%d import *\n" % (i + 1)
        host = DictHost(files)
        chained, other = aaw_static.resolve_all({"functions": [
            {"import_statement": "import pkg", "function_path": "pkg.f"},
            {"import_statement": "from pkg.other import g", "function_path": "g"}]}, host)
        self.assertEqual(other["state"]["status"], "ok")
        self.assertEqual(chained["state"]["status"], "unresolved")
        self.assertIn("chain of more than 100", chained["state"]["detail"])

    def test_a_module_too_deep_for_the_parser_is_unresolved_not_a_syntax_error(self):
        entry = resolve({"pkg/__init__.py": "x = " + "-" * 100000 + "1\ndef f(a): pass\n"}, "import pkg", "pkg.f")
        self.assertEqual(entry["state"]["status"], "unresolved")
        self.assertIn("nested too deeply", entry["state"]["detail"])

    def test_a_tree_that_cannot_be_read_is_extract_failed(self):
        host = DictHost({"pkg/__init__.py": "def f(): pass\n"})
        host.failing.add("pkg/__init__.py")
        entry = resolve(None, "import pkg", "pkg.f", host)
        self.assertEqual(entry["state"]["status"], "extract_failed")
        self.assertIn("object missing", entry["state"]["detail"])


class ConsultedTest(unittest.TestCase):
    def setUp(self):
        aaw_summary.clear_cache()

    def test_consulted_paths_include_absent_probes_and_digests(self):
        entry = resolve({"pkg/mod.py": "def f(a): pass\n"}, "import pkg.mod", "pkg.mod.f")
        consulted = {c["path"]: c for c in entry["consulted"]}
        self.assertIsNone(consulted["pkg/__init__.py"]["blob"])
        self.assertEqual(consulted["pkg/mod.py"]["names"], ["f"])
        self.assertIsNotNone(consulted["pkg/mod.py"]["digest"])
        self.assertTrue(consulted["pkg"]["directory"], "a namespace package")

    def test_each_blob_is_read_once_across_calls(self):
        host = DictHost({"pkg/__init__.py": "def f(a): pass\ndef g(b): pass\n"})
        resolve(None, "import pkg", "pkg.f", host)
        resolve(None, "import pkg", "pkg.g", host)
        self.assertEqual(len(host.reads), 1)

    def test_a_state_that_is_not_ok_keeps_its_probes_digests_with_the_lines_its_detail_quotes(self):
        # A function missing for a thousand commits must not be resolved again at every edit of
        # the modules it was looked for in, only when what its detail says may have changed.
        host = DictHost({"pkg/__init__.py": "from .m import *\ng = compute()\n", "pkg/m.py": "def f(a): pass\n"})
        entry = resolve(None, "import pkg", "pkg.g", host)
        self.assertEqual(entry["state"]["status"], "unresolved")
        self.assertIn("pkg/__init__.py:2", entry["state"]["detail"])
        probe = next(c for c in entry["consulted"] if c["path"] == "pkg/__init__.py")
        self.assertIsNotNone(probe["digest"])

        def digest_of(text):
            host.write("pkg/__init__.py", text)
            query = {"blob": host.find_blob("pkg/__init__.py"), "names": probe["names"]}
            return aaw_static.module_digests({"queries": [query]}, host)[0]
        self.assertEqual(digest_of("from .m import *\ng = compute()\n# a comment\n"), probe["digest"])
        self.assertNotEqual(digest_of("from .m import *\n\ng = compute()\n"), probe["digest"])

    def test_a_state_that_is_not_ok_asks_for_the_positions_of_the_lines_it_quotes_only(self):
        files = {"pkg/__init__.py": "from .a import *\nfrom .d import *\n",
                 "pkg/a.py": "def f(x): pass\n", "pkg/d.py": "g = make()\n"}
        asked = lambda entry: {p["path"]: p["names"] for p in entry["consulted"] if p.get("names")}
        missing = resolve(files, "import pkg", "pkg.h")
        self.assertEqual(missing["state"]["status"], "missing")
        self.assertNotIn(aaw_digest.POSITIONS, sum(asked(missing).values(), []),
                         "'h' not found in module 'pkg' quotes no line")
        opaque = resolve(files, "import pkg", "pkg.g")
        self.assertIn("pkg/d.py:1", opaque["state"]["detail"])
        self.assertIn(aaw_digest.POSITIONS, asked(opaque)["pkg/d.py"])
        self.assertNotIn(aaw_digest.POSITIONS, asked(opaque)["pkg/__init__.py"])

    def test_an_ok_state_whose_detail_quotes_a_line_asks_for_its_positions_too(self):
        files = {"pkg/__init__.py": "from .m import *\n",
                 "pkg/m.py": "import functools\ndef f(a, b): pass\ng = functools.partial(f, 1)\n"}
        entry = resolve(files, "import pkg", "pkg.g")
        self.assertEqual(entry["state"]["status"], "ok")
        self.assertIn("pkg/m.py:3", entry["state"]["detail"])
        asked = {p["path"]: p["names"] for p in entry["consulted"] if p.get("names")}
        self.assertIn(aaw_digest.POSITIONS, asked["pkg/m.py"])
        self.assertNotIn(aaw_digest.POSITIONS, asked["pkg/__init__.py"])
        plain = resolve(files, "import pkg", "pkg.f")
        self.assertNotIn(aaw_digest.POSITIONS, sum((p.get("names") or [] for p in plain["consulted"]), []))

    def test_an_unverified_state_whose_reason_quotes_a_line_asks_for_its_positions_too(self):
        files = {"pkg/__init__.py": "from .deco import loose\n@loose\ndef f(a): pass\n",
                 "pkg/deco.py": "def loose(fn):\n    def wrap(*args, **kwargs):\n        return fn(*args, **kwargs)\n"
                                "    return wrap\n"}
        entry = resolve(files, "import pkg", "pkg.f")
        self.assertIn("pkg/deco.py:1", entry["state"]["unverified"])
        asked = {p["path"]: p["names"] for p in entry["consulted"] if p.get("names")}
        self.assertIn(aaw_digest.POSITIONS, asked["pkg/deco.py"])

    def test_a_decorator_is_asked_for_its_identity_its_body_and_its_parameters(self):
        files = {"pkg/__init__.py": "from .m import *\n",
                 "pkg/deco.py": "def register(name, fallback=None):\n    def wrap(fn):\n        return fn\n"
                                "    return wrap\n",
                 "pkg/m.py": "from .deco import register\n@register('x')\ndef f(a, b): pass\n"}
        entry = resolve(files, "import pkg", "pkg.f")
        self.assertEqual(names(entry), ["a", "b"])
        asked = {p["path"]: p["names"] for p in entry["consulted"] if p.get("names")}
        self.assertEqual(set(asked["pkg/deco.py"]) - {aaw_digest.POSITIONS},
                         {aaw_digest.identity_of("register"), aaw_digest.body_of("register")})
        self.assertIn(aaw_digest.identity_of("register"), asked["pkg/m.py"])
        self.assertIn("f", asked["pkg/m.py"])
        probe = next(c for c in entry["consulted"] if c["path"] == "pkg/deco.py")

        def digest_of(text):
            host = DictHost(dict(files, **{"pkg/deco.py": text}))
            query = {"blob": host.find_blob("pkg/deco.py"), "names": probe["names"]}
            return aaw_static.module_digests({"queries": [query]}, host)[0]
        self.assertNotEqual(digest_of(files["pkg/deco.py"].replace("name, fallback", "fallback, name")),
                            probe["digest"], "the decorator's own parameters: its call's arguments bind to them")
        self.assertEqual(digest_of(files["pkg/deco.py"] + "def other(y): pass\n"), probe["digest"],
                         "another def of the module")
        self.assertNotEqual(digest_of(files["pkg/deco.py"].replace("return wrap", "return fn")), probe["digest"],
                            "what its body says: it now returns its first argument")

    def test_functions_resolved_together_look_at_what_each_looks_at_alone(self):
        # One call resolves many functions through the same star imports; what finding each
        # imported module looked at is shared, and every function must still record all of it
        # (a module appearing under src/, a directory probe, a hook's map).
        files = {"pkg/__init__.py": "from .a import *\nfrom .sub.b import *\nfrom torch import *\n"
                                    "from .gone import *\n",
                 "pkg/a.py": "def f(x): pass\n", "pkg/sub/b.py": "from .c import *\ndef g(y): pass\n",
                 "pkg/sub/c.py": "def h(z): pass\n"}
        functions = [{"import_statement": "import pkg", "function_path": "pkg." + name}
                     for name in ("h", "g", "f", "missing")]

        def seen(entry):
            return sorted((c["path"], c["blob"], c.get("directory"), c.get("digest"), tuple(c.get("names", ())))
                          for c in entry["consulted"])
        together = aaw_static.resolve_all({"functions": functions}, DictHost(files))
        for function, entry in zip(functions, together):
            [alone] = aaw_static.resolve_all({"functions": [function]}, DictHost(files))
            self.assertEqual(entry["state"], alone["state"], function)
            self.assertEqual(seen(entry), seen(alone), function)
        self.assertIn("pkg/sub/c.py", [c["path"] for c in together[0]["consulted"]])
        # The first function finds torch's root (outside the tree) before it meets b.py's star
        # import of it; the second meets that star first: it must probe for torch itself.
        files = {"pkg/__init__.py": "from .b import *\nfrom .a import *\n",
                 "pkg/a.py": "def f(x): pass\nfrom torch import *\n",
                 "pkg/b.py": "def g(y): pass\nfrom torch import *\n"}
        functions = [{"import_statement": "from pkg import g", "function_path": "g"},
                     {"import_statement": "from pkg.b import g", "function_path": "g"}]
        together = aaw_static.resolve_all({"functions": functions}, DictHost(files))
        for function, entry in zip(functions, together):
            [alone] = aaw_static.resolve_all({"functions": [function]}, DictHost(files))
            self.assertEqual(seen(entry), seen(alone), function)
        self.assertIn("torch", [c["path"] for c in together[1]["consulted"]])

    def test_module_digests_answer_per_query(self):
        host = DictHost({"m.py": "def f(a): pass\n"})
        blob = host.find_blob("m.py")
        [same, other] = aaw_static.module_digests({"queries": [{"blob": blob, "names": ["f"]},
                                                               {"blob": blob, "names": ["g"]}]}, host)
        self.assertNotEqual(same, other)

    def test_an_outline_gives_the_digest_of_every_set_of_names_the_module_does_not_bind(self):
        host = DictHost({"m.py": "from .a import *\ndef f(a): pass\ng = f\n", "bad.py": "def (:\n"})
        blob, bad = host.find_blob("m.py"), host.find_blob("bad.py")
        [outline, broken] = aaw_static.module_outlines({"blobs": [blob, bad]}, host)
        self.assertEqual(outline["bound"], ["f", "g"])
        [digests] = aaw_static.module_digests({"queries": [{"blob": blob, "name_sets": [["x"], ["x", "y"], ["f"]]}]}, host)
        self.assertEqual(digests[:2], [outline["unbound"], outline["unbound"]])
        self.assertNotEqual(digests[2], outline["unbound"])
        [bad_digests] = aaw_static.module_digests({"queries": [{"blob": bad, "name_sets": [["x"], ["f"]]}]}, host)
        self.assertEqual(bad_digests, [broken["any"], broken["any"]])

    def test_a_query_with_name_sets_answers_one_digest_per_set(self):
        host = DictHost({"m.py": "def f(a): pass\n"})
        blob = host.find_blob("m.py")
        [by_set] = aaw_static.module_digests({"queries": [{"blob": blob, "name_sets": [["f"], ["g"], ["f"]]}]}, host)
        [f, g] = aaw_static.module_digests({"queries": [{"blob": blob, "names": ["f"]},
                                                        {"blob": blob, "names": ["g"]}]}, host)
        self.assertEqual(by_set, [f, g, f])

    # -- star_additions: a star-import edit settled once for every function read through it ----

    def star_check(self, host, path, before, asks):
        [answers] = aaw_static.star_additions({"checks": [{"path": path, "before": before,
                                                           "after": host.find_blob(path), "asks": asks}]}, host)
        return answers

    def star_host(self):
        return DictHost({"pkg/__init__.py": "from .a import *\nfrom .b import *\n",
                         "pkg/a.py": "def f(x):\n    pass\n", "pkg/b.py": "def g(z):\n    pass\n",
                         "pkg/c.py": "def h(q):\n    pass\n"})

    def test_star_imports_added_that_bind_none_of_the_names_keep_the_resolution(self):
        host = self.star_host()
        before = host.find_blob("pkg/__init__.py")
        old = resolve(None, "import pkg", "pkg.f", host)
        host.write("pkg/__init__.py", "from .c import *\nfrom .a import *\nfrom .b import *\n"
                                      "from .d import *\n")
        [added] = self.star_check(host, "pkg/__init__.py", before, [["f"]])
        fresh = resolve(None, "import pkg", "pkg.f", host)
        self.assertEqual(fresh["state"], old["state"])
        by_path = {entry["path"]: entry for entry in added}
        # The module's own probe at the new blob, with the digest a resolution there gives it.
        [init] = [e for e in fresh["consulted"] if e["path"] == "pkg/__init__.py"]
        self.assertEqual(by_path["pkg/__init__.py"], init)
        # What was read to see that the added imports bind no f: c.py, and d (there is none).
        self.assertEqual(by_path["pkg/c.py"]["blob"], host.find_blob("pkg/c.py"))
        self.assertIn("pkg/d.py", by_path)
        # With what the function consulted before, every path a resolution now reads is probed.
        kept = {e["path"] for e in old["consulted"]} | set(by_path)
        self.assertLessEqual({e["path"] for e in fresh["consulted"]}, kept)

    def test_a_star_import_added_that_binds_a_name_asks_for_a_resolution(self):
        host = self.star_host()
        before = host.find_blob("pkg/__init__.py")
        resolve(None, "import pkg", "pkg.g", host)  # the memo's resolution parsed the old version
        host.write("pkg/c.py", "def f(shadow):\n    pass\n")
        host.write("pkg/__init__.py", "from .a import *\nfrom .b import *\nfrom .c import *\n")
        f, g, both = self.star_check(host, "pkg/__init__.py", before, [["f"], ["g"], ["g", "f"]])
        self.assertIsNone(f)
        self.assertIn("pkg/c.py", [entry["path"] for entry in g])  # c binds no g
        self.assertIsNone(both)

    def test_anything_but_star_imports_added_asks_for_a_resolution(self):
        for edit in ("from .b import *\nfrom .a import *\n",          # reordered
                     "from .a import *\n",                             # one removed
                     "from .a import *\nfrom .b import *\nf = 1\n",    # the name bound
                     "from .a import *\nfrom .b import *\nx = 2\n",    # no star import added
                     "from .a import *\nfrom .b import *\nfrom os import *\n",  # from outside
                     "from .a import *\nfrom .b import *\n__all__ = ['f']\n"):
            with self.subTest(edit=edit):
                host = self.star_host()
                before = host.find_blob("pkg/__init__.py")
                resolve(None, "import pkg", "pkg.f", host)
                host.write("pkg/__init__.py", edit)
                self.assertEqual(self.star_check(host, "pkg/__init__.py", before, [["f"]]), [None])
        host = self.star_host()
        before = host.find_blob("pkg/__init__.py")
        host.write("pkg/__init__.py", "from .a import *\nfrom .b import *\nfrom .c import *\n")
        self.assertEqual(self.star_check(host, "pkg/__init__.py", before, [["f", "<positions>"]]), [None])
        self.assertIsNotNone(self.star_check(host, "pkg/__init__.py", before, [["f", "<hooks>"]])[0],
                             "the import hooks are the same")
        host.write("pkg/__init__.py", "from .a import *\nfrom .b import *\nfrom .c import *\n"
                                      "def __getattr__(name):\n    if name == 'f':\n"
                                      "        from .c import h\n        return h\n")
        self.assertEqual(self.star_check(host, "pkg/__init__.py", before, [["f", "<hooks>"]]), [None],
                         "a __getattr__ case added")
        self.assertEqual(self.star_check(host, "pkg/__init__.py", before, [["f"]]), [None],
                         "a module-level __getattr__ may define any name")
        self.assertEqual(self.star_check(host, "pkg/__init__.py", "0" * 40, [["f"]]), [None], "an unreadable old blob")

    def test_an_old_version_no_longer_parsed_is_not_parsed_again_for_a_star_check(self):
        host = self.star_host()
        before = host.find_blob("pkg/__init__.py")
        resolve(None, "import pkg", "pkg.f", host)
        host.write("pkg/__init__.py", "from .c import *\nfrom .a import *\nfrom .b import *\n")
        aaw_summary.clear_cache()
        del host.reads[:]
        self.assertEqual(self.star_check(host, "pkg/__init__.py", before, [["f"]]), [None])
        self.assertNotIn(before, host.reads, "the old version is not read")


if __name__ == "__main__":
    unittest.main()
