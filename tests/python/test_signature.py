"""aaw_signature: STATE objects from definitions, as inspect.signature would describe them."""

import ast
import unittest

import aaw_collector
import aaw_model
import aaw_signature


def state_of(source, drop_first=False):
    node = ast.parse(source).body[0]
    return aaw_signature.ok(aaw_model.Def(node), drop_first)


class SignatureTest(unittest.TestCase):
    def test_kinds_defaults_and_annotations_as_inspect_lists_them(self):
        state = state_of("def f(a, /, b: int = 1, *args, c=(1,), d, **kw) -> None: pass")
        self.assertEqual(state["status"], "ok")
        self.assertNotIn("text", state, "the C++ side renders the text")
        parameters = state["signature"]["parameters"]
        self.assertEqual([(p["name"], p["kind"], p["default"], p["annotation"]) for p in parameters], [
            ("a", "POSITIONAL_ONLY", None, None),
            ("b", "POSITIONAL_OR_KEYWORD", "1", "int"),
            ("args", "VAR_POSITIONAL", None, None),
            ("c", "KEYWORD_ONLY", "(1,)", None),
            ("d", "KEYWORD_ONLY", None, None),
            ("kw", "VAR_KEYWORD", None, None),
        ])
        self.assertEqual(state["signature"]["return_annotation"], "None")

    def test_a_u_prefix_is_no_part_of_a_default_or_an_annotation(self):
        # requests' default_user_agent(name=u'python-requests') lost its u'' prefix: no change.
        before = state_of("def f(name=u'python-requests', *, k: u'int' = (u'a', 'b')) -> u'str': pass")
        after = state_of("def f(name='python-requests', *, k: 'int' = ('a', 'b')) -> 'str': pass")
        self.assertEqual(before, after)
        self.assertEqual(after["signature"]["parameters"][0]["default"], "'python-requests'")

    def test_methods_drop_their_first_parameter_but_not_a_star_args(self):
        self.assertEqual([p["name"] for p in state_of("def m(self, x): pass", True)["signature"]["parameters"]],
                         ["x"])
        self.assertEqual(state_of("def m(*args): pass", True)["signature"]["parameters"][0]["name"], "args")
        self.assertEqual(state_of("def m(*, k): pass", True)["status"], "unresolved")

    def test_a_header_met_again_is_not_rendered_again_and_its_state_is_its_own(self):
        def definition(header, mangle=None):
            summary = aaw_collector.summarize("class C:\n    " + header.decode() + "\n        pass\n")
            made = summary.bindings["C"][0][1].scope.bindings["f"][0][1]
            made.mangle = mangle
            return made
        header = b"def f(self, __x: int = 1) -> str:"
        first = aaw_signature.ok(definition(header, "C"), True)
        unparse, calls = ast.unparse, []
        ast.unparse = lambda node: calls.append(node) or unparse(node)
        try:
            again = aaw_signature.ok(definition(header, "C"), True)
            self.assertEqual(calls, [], "rendered once per header")
            self.assertEqual(again, first)
            again["signature"]["parameters"][0]["default"] = "changed"
            self.assertEqual(aaw_signature.ok(definition(header, "C"), True), first)
            other = aaw_signature.ok(definition(header, "D"), True)  # another class mangles otherwise
            self.assertEqual(other["signature"]["parameters"][0]["name"], "_D__x")
            self.assertNotEqual(calls, [])
        finally:
            ast.unparse = unparse
        self.assertEqual(first["signature"]["parameters"][0]["name"], "_C__x")
        self.assertEqual(first["signature"]["return_annotation"], "str")

    def test_failed_carries_its_detail(self):
        self.assertEqual(aaw_signature.failed("missing", "why"), {"status": "missing", "detail": "why"})


if __name__ == "__main__":
    unittest.main()
