#include "support/runtime_fixture.hpp"

#include <nlohmann/json.hpp>

namespace aaw::test {
namespace {

constexpr const char* k_setup = R"(import os
import sys

from setuptools import Extension, setup

# A build must never see a secret: fail loudly when one leaked into the environment.
leaked = sorted(n for n in os.environ if n.upper().endswith(("_TOKEN", "_KEY", "_SECRET")))
if leaked:
    sys.exit("setup.py: secrets in the build environment: " + ", ".join(leaked))
%FAILURE%
setup(name="fixpkg", version="0.1", packages=["fixpkg"],
      ext_modules=[Extension("fixpkg._native", ["csrc/native.c"])])
)";

constexpr const char* k_native = R"(#include <Python.h>

static PyObject* add(PyObject* self, PyObject* args) {
  long a, b;
  if (!PyArg_ParseTuple(args, "ll", &a, &b)) return NULL;
  return PyLong_FromLong(a + b);
}
%EXTRA_FUNCTION%
static PyMethodDef methods[] = {
    {"add", add, METH_VARARGS, "a + b"},
%EXTRA_METHOD%    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", NULL, -1, methods};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
)";

constexpr const char* k_mul_function = R"(
static PyObject* mul(PyObject* self, PyObject* args) {
  long a, b;
  if (!PyArg_ParseTuple(args, "ll", &a, &b)) return NULL;
  return PyLong_FromLong(a * b);
}
)";

constexpr const char* k_factory = R"(import inspect


def make_op(name, params):
    """An operation whose signature exists only once this runs: no static reader can see it."""

    def op(*args, **kwargs):
        return len(args) + len(kwargs)

    op.__name__ = op.__qualname__ = name
    op.__signature__ = inspect.Signature(
        [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in params]
        + [inspect.Parameter("scale", inspect.Parameter.KEYWORD_ONLY, default=1.0)])
    return op
)";

struct Api {
  std::string scale = "def scale(x: float, factor: float = 2.0) -> float:\n    return x * factor\n";
  std::string combine = "def combine(a, b, *, mode=\"sum\"):\n    return _native.add(a, b)\n";
  std::string clamp = "def clamp(x, lo=0, hi=1):\n    return min(max(x, lo), hi)\n";
  std::string product;
};

std::string api_py(const Api& api) {
  return "from typing import Optional\n\nfrom . import _native\n\n\n" + api.scale + "\n\n" + api.combine +
         "\n\n" + api.clamp + (api.product.empty() ? "" : "\n\n" + api.product);
}

std::string init_py(const std::string& at_import, bool product) {
  return "from ._native import add as native_add\nfrom .api import clamp, combine, scale\n" +
         std::string(product ? "from .api import product\n" : "") + "from .factory import make_op\n" +
         at_import + "\nfused = make_op(\"fused\", [\"x\", \"y\"])\n";
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  return text.replace(text.find(from), from.size(), to);
}

std::string setup_py(const std::string& failure = "") { return replace(k_setup, "%FAILURE%", failure); }

std::string native_c(bool with_mul) {
  std::string text = replace(k_native, "%EXTRA_FUNCTION%", with_mul ? k_mul_function : "");
  return replace(text, "%EXTRA_METHOD%", with_mul ? "    {\"mul\", mul, METH_VARARGS, \"a * b\"},\n" : "");
}

}  // namespace

std::vector<std::string> RuntimeFixtureCommits::in_order() const {
  return {base,         param_added, param_removed,    default_changed,
          build_fails,  build_fixed, import_segfaults, segfault_fixed,
          import_hangs, hang_fixed,  native_changed,   docs_changed};
}

std::vector<MonitoredFunction> RuntimeFixture::functions() {
  return {{"import fixpkg", "fixpkg.scale"},
          {"from fixpkg.api import combine", "combine"},
          {"import fixpkg.api as api", "api.clamp"},
          {"import fixpkg", "fixpkg.fused"},
          {"import fixpkg", "fixpkg.product"}};
}

RuntimeFixtureCommits RuntimeFixture::build(GitFixture& repo) {
  RuntimeFixtureCommits c;
  Api api;
  repo.write_file("README.md", "fixpkg: a tiny package with a C extension\n");
  repo.write_file("setup.py", setup_py());
  repo.write_file("csrc/native.c", native_c(false));
  repo.write_file("fixpkg/factory.py", k_factory);
  repo.write_file("fixpkg/api.py", api_py(api));
  repo.write_file("fixpkg/__init__.py", init_py("", false));
  c.base = repo.commit("Add fixpkg");

  api.scale =
      "def scale(x: float, factor: float = 2.0, offset: Optional[float] = None) -> float:\n"
      "    return x * factor + (offset or 0)\n";
  repo.write_file("fixpkg/api.py", api_py(api));
  c.param_added = repo.commit("scale: add offset");

  api.combine = "def combine(a, *, mode=\"sum\"):\n    return _native.add(a, a)\n";
  repo.write_file("fixpkg/api.py", api_py(api));
  c.param_removed = repo.commit("combine: drop b");

  api.clamp = "def clamp(x, lo=0, hi=10):\n    return min(max(x, lo), hi)\n";
  repo.write_file("fixpkg/api.py", api_py(api));
  c.default_changed = repo.commit("clamp: hi defaults to 10");

  repo.write_file("setup.py", setup_py("print(\"planted build failure\")\nsys.exit(1)\n"));
  c.build_fails = repo.commit("Break the build");
  repo.write_file("setup.py", setup_py());
  c.build_fixed = repo.commit("Fix the build");

  repo.write_file("fixpkg/__init__.py", init_py("import ctypes\nctypes.string_at(0)\n", false));
  c.import_segfaults = repo.commit("Crash at import");
  repo.write_file("fixpkg/__init__.py", init_py("", false));
  c.segfault_fixed = repo.commit("Do not crash at import");

  repo.write_file("fixpkg/__init__.py", init_py("import time\ntime.sleep(3600)\n", false));
  c.import_hangs = repo.commit("Hang at import");
  repo.write_file("fixpkg/__init__.py", init_py("", false));
  c.hang_fixed = repo.commit("Do not hang at import");

  repo.write_file("csrc/native.c", native_c(true));
  api.product = "def product(a, b):\n    return _native.mul(a, b)\n";
  repo.write_file("fixpkg/api.py", api_py(api));
  repo.write_file("fixpkg/__init__.py", init_py("", true));
  c.native_changed = repo.commit("Add product, in C");

  repo.write_file("README.md", "fixpkg: a tiny package with a C extension, documented\n");
  c.docs_changed = repo.commit("Document fixpkg");
  return c;
}

std::string RuntimeFixture::add_exit_crash(GitFixture& repo) {
  repo.write_file("fixpkg/__init__.py",
                  init_py("import atexit\nimport ctypes\natexit.register(ctypes.string_at, 0)\n", true));
  return repo.commit("Crash at interpreter exit");
}

std::string RuntimeFixture::config_json(const std::string& repository_url,
                                        const std::filesystem::path& work_dir,
                                        const std::string& extra_keys) {
  nlohmann::json list = nlohmann::json::array();
  for (const MonitoredFunction& f : functions())
    list.push_back({{"import_statement", f.import_statement}, {"function_path", f.function_path}});
  nlohmann::json config = {{"repository_url", repository_url},
                           {"functions_to_monitor", list},
                           {"state_dir", (work_dir / "state").string()},
                           {"extractor", "runtime"},
                           {"build", {{"paths", {"setup.py", "csrc"}}, {"env", nlohmann::json::object()}}},
                           {"sandbox", {{"kind", "auto"}}},
                           {"runtime", {{"extract_timeout_seconds", 3}}},
                           {"log", {{"file", (work_dir / "watcher.log").string()}}}};
  std::string text = config.dump(2);
  if (!extra_keys.empty()) text = text.substr(0, text.rfind('}')) + ", " + extra_keys + "}";
  return text;
}

}  // namespace aaw::test
