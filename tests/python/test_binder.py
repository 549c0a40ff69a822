"""aaw_binder: each call shape against a signature, with Python's own reason when it breaks."""

import unittest

import aaw_binder


def param(name, kind="POSITIONAL_OR_KEYWORD", default=None):
    return {"name": name, "kind": kind, "default": default, "annotation": None}


def state(*parameters):
    return {"status": "ok", "signature": {"parameters": list(parameters), "return_annotation": None}}


def shape(positional=0, keywords=(), **extra):
    result = {"positional": positional, "keywords": list(keywords), "star_args": False, "star_kwargs": False,
              "guards": [], "indirect": None}
    result.update(extra)
    return result


SIG = state(param("a", "POSITIONAL_ONLY"), param("b"), param("c", default="1"), param("d", "KEYWORD_ONLY", "None"))


class Verdicts(unittest.TestCase):
    def check(self, s, verdict, reason=None):
        result = aaw_binder.bind(SIG, s)
        self.assertEqual(result["verdict"], verdict, result)
        if reason is not None:
            self.assertEqual(result["reason"], reason)

    def test_a_call_that_fits_binds(self):
        self.check(shape(2, ["d"]), "binds", "")

    def test_too_many_positional_arguments(self):
        self.check(shape(4), "breaks", "too many positional arguments")

    def test_unexpected_keyword(self):
        self.check(shape(2, ["layout"]), "breaks", "got an unexpected keyword argument 'layout'")

    def test_missing_required_argument(self):
        self.check(shape(1), "breaks", "missing a required argument: 'b'")

    def test_argument_given_twice(self):
        self.check(shape(2, ["b"]), "breaks", "multiple values for argument 'b'")

    def test_positional_only_passed_by_keyword(self):
        result = aaw_binder.bind(SIG, shape(0, ["a", "b"]))
        self.assertEqual(result["verdict"], "breaks")
        self.assertIn("'a'", result["reason"])
        self.assertIn("positional", result["reason"])

    def test_reasons_are_pythons_own_messages(self):
        def real(a, /, b, c=1, *, d=None):
            pass
        import inspect
        try:
            inspect.signature(real).bind(None, d=None)
        except TypeError as error:
            expected = str(error)
        self.assertEqual(aaw_binder.bind(SIG, shape(1, ["d"]))["reason"], expected)

    def test_function_no_longer_importable_breaks(self):
        result = aaw_binder.bind({"status": "missing", "detail": "module 'aiter.x' not found"}, shape(1))
        self.assertEqual(result, {"verdict": "breaks", "reason": "no longer importable: module 'aiter.x' not found"})

    def test_an_import_fallback_guards_a_missing_function(self):
        result = aaw_binder.bind({"status": "missing", "detail": "gone"}, shape(1, guards=["import fallback"]))
        self.assertEqual(result["verdict"], "guarded")

    def test_an_import_fallback_does_not_guard_a_bad_call(self):
        self.check(shape(4, guards=["import fallback"]), "breaks")

    def test_a_signature_probe_guards_a_bad_call(self):
        self.check(shape(2, ["layout"], guards=["signature probe"]), "guarded")

    def test_forwarded_arguments_are_unknown_unless_nothing_can_fix_the_call(self):
        self.check(shape(1, star_kwargs=True), "unknown")
        self.check(shape(2, star_args=True), "unknown")
        self.check(shape(2, ["layout"], star_args=True), "breaks")

    def test_an_indirect_call_is_bound_and_its_failure_says_how_it_was_reached(self):
        self.check(shape(2, indirect="reached through 'self.fn'"), "binds", "")
        self.check(shape(9, indirect="reached through 'self.fn'"), "breaks",
                   "too many positional arguments; reached through 'self.fn'")

    def test_an_ambiguous_call_is_unknown_with_its_reason(self):
        why = "'self.fn' is also assigned other at line 3"
        self.check(shape(2, indirect="reached through 'self.fn'", ambiguous=why), "unknown", why)

    def test_a_keyword_no_parameter_takes_is_named_before_a_missing_argument(self):
        renamed = state(param("q"), param("logits_soft_cap"))
        self.check_state(renamed, shape(1, ["softcap"]), "breaks", "got an unexpected keyword argument 'softcap'")
        with_kwargs = state(param("q"), param("cap"), param("kw", "VAR_KEYWORD"))
        self.check_state(with_kwargs, shape(1, ["softcap"]), "breaks", "missing a required argument: 'cap'")

    def test_a_gone_module_imported_at_module_level_names_the_import_that_fails_first(self):
        gone = {"status": "missing", "detail": "module 'aiter.old' not found"}
        at_top = shape(1, import_statement="from aiter.old import f", import_line=13, import_module_level=True)
        self.check_state(gone, at_top, "breaks", "no longer importable: module 'aiter.old' not found; its import at "
                         "line 13 (from aiter.old import f) runs at module level: importing the file fails")
        self.check_state(gone, dict(at_top, import_module_level=False), "breaks",
                         "no longer importable: module 'aiter.old' not found")

    def check_state(self, st, s, verdict, reason):
        result = aaw_binder.bind(st, s)
        self.assertEqual((result["verdict"], result["reason"]), (verdict, reason))

    def test_a_module_a_find_spec_probe_chose_is_guarded_when_gone(self):
        result = aaw_binder.bind({"status": "missing", "detail": "module 'a.b' not found"},
                                 shape(1, guards=["find_spec probe"]))
        self.assertEqual(result["verdict"], "guarded")

    def test_an_unreadable_signature_is_unknown(self):
        result = aaw_binder.bind({"status": "unresolved", "detail": "compiled"}, shape(1))
        self.assertEqual(result["verdict"], "unknown")

    def test_bind_all_keeps_the_order(self):
        results = aaw_binder.bind_all({"calls": [{"state": SIG, "shape": shape(2)}, {"state": SIG, "shape": shape(0)}]})
        self.assertEqual([r["verdict"] for r in results], ["binds", "breaks"])


if __name__ == "__main__":
    unittest.main()


def stub_with_binding(stub, compiled, named=True, overloads=()):
    result = state(*stub)
    result["binding"] = {"status": "ok", "kind": "pybind11", "name": "grouped_topk", "module": "module_moe_asm",
                         "file": "csrc/include/rocm_ops.hpp", "line": 1373, "named": named,
                         "parameters": list(compiled), "overloads": [list(o) for o in overloads]}
    return result


class CompiledBindings(unittest.TestCase):
    """A call of a compile_ops stub reaches its pybind11 binding with the same arguments."""
    STUB = [param("gating_output"), param("topk_group"), param("is_softmax", default="True")]

    def test_a_keyword_the_binding_names_otherwise_breaks_with_both_names(self):
        s = stub_with_binding(self.STUB, [param("gating_output"), param("topk_grp"), param("is_softmax", default="true")])
        result = aaw_binder.bind(s, shape(1, ["topk_group"]))
        self.assertEqual(result["verdict"], "breaks")
        self.assertEqual(result["reason"], "binds to the stub, but not to its compiled binding grouped_topk "
                         "(csrc/include/rocm_ops.hpp:1373): got an unexpected keyword argument 'topk_group' "
                         "(the stub's 'topk_group' is 'topk_grp' in the binding)")
        self.assertEqual(aaw_binder.bind(s, shape(2))["verdict"], "binds")

    def test_a_default_only_the_stub_gives_breaks_a_call_that_leaves_it_out(self):
        s = stub_with_binding(self.STUB, [param("gating_output"), param("topk_group"), param("is_softmax")])
        result = aaw_binder.bind(s, shape(2))
        self.assertEqual(result["verdict"], "breaks")
        self.assertIn("missing a required argument: 'is_softmax'", result["reason"])

    def test_a_binding_without_py_arg_refuses_keywords_only(self):
        s = stub_with_binding(self.STUB, [], named=False)
        self.assertEqual(aaw_binder.bind(s, shape(3))["verdict"], "binds")
        result = aaw_binder.bind(s, shape(1, ["topk_group"]))
        self.assertEqual(result["verdict"], "breaks")
        self.assertIn("names no arguments: pybind11 refuses keyword 'topk_group'", result["reason"])

    def test_any_overload_that_takes_the_call_is_enough(self):
        s = stub_with_binding(self.STUB, [param("x")], overloads=[self.STUB])
        self.assertEqual(aaw_binder.bind(s, shape(1, ["topk_group"]))["verdict"], "binds")

    def test_a_guarded_call_stays_guarded(self):
        s = stub_with_binding(self.STUB, [param("gating_output"), param("topk_grp")])
        result = aaw_binder.bind(s, shape(1, ["topk_group"], guards=["catches TypeError"]))
        self.assertEqual(result["verdict"], "guarded")

    def test_an_unresolved_binding_changes_nothing(self):
        s = state(*self.STUB)
        s["binding"] = {"status": "unresolved", "kind": "pybind11", "name": "x", "module": "m", "detail": "why"}
        self.assertEqual(aaw_binder.bind(s, shape(1, ["topk_group"]))["verdict"], "binds")
