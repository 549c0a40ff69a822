"""The consumer check against Python itself: a consumer that reaches the provider's functions in
every way the scan follows (a from-import, a module alias, `self.fn`, a local alias, a helper's
return, importlib) is run against mutated providers (a parameter renamed, removed, reordered,
made keyword-only, a required one added). A call site must be reported `breaks` exactly when
running it raises TypeError at its line, and never be `unknown`."""

import importlib
import os
import sys
import tempfile
import textwrap
import traceback
import unittest

import aaw_binder
import aaw_consumer
import aaw_static
import aaw_summary
from dict_host import DictHost

# The provider's functions: name -> parameters as written in the def.
_PROVIDER = {"norm": ["x", "w", "eps=1e-6"], "topk": ["scores", "k", "renorm=False"],
             "attn": ["q", "k", "v", "causal=False"], "route": ["logits", "n_expts", "sm_first=False"]}

# Each site_* function runs exactly one call of the provider (the line marked `# call`).
_CONSUMER = textwrap.dedent('''\
    import importlib
    import aiter as ra
    from aiter.ops import norm


    def site_from_import():
        return norm(1, 2, eps=3)  # call


    def site_module_alias():
        return ra.ops.topk(1, k=2)  # call


    class Layer:
        def __init__(self):
            self.attention = ra.ops.attn

        def forward(self):
            return self.attention(1, 2, v=3, causal=True)  # call


    def site_self_attribute():
        return Layer().forward()


    def site_local_alias():
        route = ra.ops.route
        return route(1, 2)  # call


    def _pick_norm():
        try:
            from aiter.ops import norm as chosen
            return chosen
        except ImportError:
            return None


    def site_helper_return():
        return _pick_norm()(1, w=2)  # call


    def site_importlib():
        module = importlib.import_module("aiter.ops")
        return module.topk(1, 2, True)  # call
    ''')


def _mutations():
    """(description, provider) for every mutation of every function's parameters."""
    yield "unchanged", dict(_PROVIDER)
    for name, parameters in _PROVIDER.items():
        bare = [p.split("=")[0] for p in parameters]
        for i, parameter in enumerate(parameters):
            renamed = list(parameters)
            renamed[i] = parameter.replace(bare[i], bare[i] + "_new", 1)
            yield "%s: %s renamed" % (name, bare[i]), dict(_PROVIDER, **{name: renamed})
            yield "%s: %s removed" % (name, bare[i]), dict(_PROVIDER, **{name: parameters[:i] + parameters[i + 1:]})
            if i + 1 < len(parameters) and "=" not in parameters[i + 1]:
                swapped = list(parameters)
                swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
                yield "%s: %s and %s swapped" % (name, bare[i], bare[i + 1]), dict(_PROVIDER, **{name: swapped})
            keyword_only = parameters[:i] + ["*"] + parameters[i:]
            yield "%s: keyword-only from %s" % (name, bare[i]), dict(_PROVIDER, **{name: keyword_only})
        yield "%s: required parameter added" % name, dict(_PROVIDER, **{name: ["extra"] + parameters})


def _provider_files(provider):
    ops = "".join("def %s(%s):\n    return None\n\n\n" % (name, ", ".join(parameters))
                  for name, parameters in provider.items())
    return {"aiter/__init__.py": "from . import ops\n", "aiter/ops.py": ops}


def _site_lines():
    return {i + 1 for i, line in enumerate(_CONSUMER.splitlines()) if line.endswith("# call")}


class MutationTest(unittest.TestCase):
    def setUp(self):
        aaw_summary.clear_cache()
        self.root = tempfile.TemporaryDirectory()
        self.addCleanup(self.root.cleanup)
        os.makedirs(os.path.join(self.root.name, "consumer"))
        with open(os.path.join(self.root.name, "consumer", "uses.py"), "w", encoding="utf-8") as handle:
            handle.write(_CONSUMER)
        self.scan = aaw_consumer.discover({"path": os.path.join(self.root.name, "consumer"), "package": "aiter"})

    def static_verdicts(self, provider):
        """(line -> verdict) of every call site the scan found, bound against `provider`."""
        host = DictHost(_provider_files(provider))
        functions = self.scan["functions"]
        states = aaw_static.resolve_all({"functions": [{"import_statement": f["import_statement"],
                                                        "function_path": f["function_path"]}
                                                       for f in functions]}, host)
        calls, lines = [], []
        for function, resolved in zip(functions, states):
            for site in function["call_sites"]:
                calls.append({"state": resolved["state"], "shape": site})
                lines.append(site["line"])
        verdicts = aaw_binder.bind_all({"calls": calls})
        return {line: verdict["verdict"] for line, verdict in zip(lines, verdicts)}

    def runtime_failures(self, provider):
        """The lines of the consumer where running its sites raises TypeError."""
        package = os.path.join(self.root.name, "provider")
        for path, text in _provider_files(provider).items():
            os.makedirs(os.path.dirname(os.path.join(package, path)), exist_ok=True)
            with open(os.path.join(package, path), "w", encoding="utf-8") as handle:
                handle.write(text)
        consumer_dir = os.path.join(self.root.name, "consumer")
        sys.path[:0] = [package, consumer_dir]
        for name in [n for n in sys.modules if n == "aiter" or n.startswith("aiter.") or n == "uses"]:
            del sys.modules[name]
        importlib.invalidate_caches()
        failures = set()
        try:
            uses = importlib.import_module("uses")
            for name in dir(uses):
                if not name.startswith("site_"):
                    continue
                try:
                    getattr(uses, name)()
                except TypeError as error:
                    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename.endswith("uses.py")]
                    failures.add(frames[-1].lineno)
        finally:
            del sys.path[:2]
        return failures

    def test_every_site_is_found_and_bound(self):
        found = {site["line"] for f in self.scan["functions"] for site in f["call_sites"]}
        self.assertEqual(found, _site_lines())
        self.assertEqual(self.scan["dynamic"], [])

    def test_breaks_exactly_where_python_raises(self):
        mutations, failures = 0, 0
        for description, provider in _mutations():
            with self.subTest(description):
                verdicts = self.static_verdicts(provider)
                failing = self.runtime_failures(provider)
                self.assertNotIn("unknown", verdicts.values(), verdicts)
                breaking = {line for line, verdict in verdicts.items() if verdict == "breaks"}
                self.assertEqual(breaking, failing)
                if description == "unchanged":
                    self.assertEqual(failing, set())
                mutations, failures = mutations + 1, failures + len(failing)
        # 49 providers, 38 (mutation, call) pairs that raise: the comparison is not vacuous.
        self.assertEqual((mutations, failures), (49, 38))


if __name__ == "__main__":
    unittest.main()
