// The real PythonHost: CPython embedded with pybind11. Converts JSON to Python objects and back,
// exposes C++ callbacks to Python as a `host` object, and installs our helper modules from
// strings. This is the one file where pybind11::error_already_set is caught: every Python
// exception leaves as Error(ErrorCode::python, "Type: message\ntraceback").
#include "io/python/embedded_python.hpp"

#include <patchlevel.h>  // PY_MAJOR_VERSION, PY_MINOR_VERSION
#include <pybind11/embed.h>
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "util/hash.hpp"

namespace py = pybind11;

namespace aaw {
namespace {

// A Python value can contain itself; past this depth we refuse it instead of overflowing the stack.
constexpr int k_max_depth = 256;

// aaw_host: what our helpers need from the C++ side. HostError is what a failed callback raises.
constexpr const char* k_host_module = R"(
class HostError(Exception):
    """A host callback failed: the C++ error's message; `code` is its ErrorCode, as text."""

    code = None
)";

// Installs a module from source (and sets sys.executable). Python rather than C++ because it is
// clearer: compile with a readable file name, register the lines with linecache so tracebacks
// show them, and leave sys.modules as it was when the module raises.
constexpr const char* k_bootstrap = R"(
import _frozen_importlib_external
import linecache
import marshal
import os
import sys
import types

# sys.executable would be our own binary (see IsolatedConfig): point it at the Python we link, so
# that code spawning sys.executable gets a Python.
_python = os.path.join(sys.base_prefix, "bin", "python%d.%d" % sys.version_info[:2])
if os.access(_python, os.X_OK):
    sys.executable = _python


def install(name, source, compiled=b""):
    filename = "<aaw>/%s.py" % name
    code = _unmarshalled(compiled)
    if code is None:
        code = compile(source, filename, "exec", dont_inherit=True)
    module = types.ModuleType(name)
    module.__file__ = filename
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    previous = sys.modules.get(name)
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    except BaseException:
        if previous is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = previous
        raise
    return module


def _unmarshalled(compiled):
    """The code behind the build's magic number in `compiled` when that is this interpreter's
    (code objects change between Python versions), else None: the source is compiled instead."""
    magic = _frozen_importlib_external.MAGIC_NUMBER
    if len(compiled) <= len(magic) or compiled[:len(magic)] != magic:
        return None
    try:
        code = marshal.loads(compiled[len(magic):])
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, types.CodeType) else None
)";

// Python can be started once per process: a second start after finalisation is not safe with
// extension modules, so we refuse it outright.
bool g_interpreter_started = false;

// An isolated configuration: no PYTHON* variables, no user site, no bytecode written, no signal
// handlers (the daemon owns SIGINT and SIGTERM). Cleared on destruction, which is harmless after
// pybind11 has cleared it already.
class IsolatedConfig {
 public:
  IsolatedConfig() {
    PyConfig_InitIsolatedConfig(&m_config);
    m_config.install_signal_handlers = 0;
    m_config.write_bytecode = 0;
    m_config.user_site_directory = 0;
    m_config.use_environment = 0;
    m_config.parse_argv = 0;
    // Without a program name Python looks for "python3" on PATH to find its prefix, and finds a
    // pyenv or an activated venv as easily as the Python we link. Our own executable leads it to
    // the prefix it was built with instead.
    std::error_code error;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) {
      PyConfig_SetBytesString(&m_config, &m_config.program_name, self.c_str());
    }
  }
  ~IsolatedConfig() { PyConfig_Clear(&m_config); }
  IsolatedConfig(const IsolatedConfig&) = delete;
  IsolatedConfig& operator=(const IsolatedConfig&) = delete;

  PyConfig* get() { return &m_config; }

 private:
  PyConfig m_config{};
};

// Bytes to str: invalid UTF-8 survives as lone surrogates, and comes back out of utf8() intact.
py::str decode(std::string_view bytes) {
  PyObject* text =
      PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "surrogateescape");
  if (text == nullptr) {
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::str>(text);
}

// str to bytes, the inverse of decode(); nullopt for a string that is not text (a lone
// surrogate that no bytes produced).
std::optional<std::string> utf8(py::handle text) {
  PyObject* bytes = PyUnicode_AsEncodedString(text.ptr(), "utf-8", "surrogateescape");
  if (bytes == nullptr) {
    PyErr_Clear();
    return std::nullopt;
  }
  auto owner = py::reinterpret_steal<py::bytes>(bytes);
  char* data = nullptr;
  Py_ssize_t size = 0;
  PyBytes_AsStringAndSize(bytes, &data, &size);
  return std::string(data, static_cast<std::size_t>(size));
}

// For messages: never fails, replacing what cannot be encoded.
std::string readable(py::handle object) {
  try {
    py::str text(object);
    if (auto bytes = utf8(text)) {
      return *bytes;
    }
    py::bytes escaped = text.attr("encode")("utf-8", "backslashreplace");
    return std::string(escaped);
  } catch (const py::error_already_set&) {
    return "<unprintable>";
  }
}

py::object to_python(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
    case Json::value_t::discarded:
      return py::none();
    case Json::value_t::boolean:
      return py::bool_(value.get<bool>());
    case Json::value_t::number_integer:
      return py::int_(value.get<std::int64_t>());
    case Json::value_t::number_unsigned:
      return py::int_(value.get<std::uint64_t>());
    case Json::value_t::number_float:
      return py::float_(value.get<double>());
    case Json::value_t::string:
      return decode(value.get_ref<const std::string&>());
    case Json::value_t::binary: {
      const auto& bytes = value.get_binary();
      return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    case Json::value_t::array: {
      py::list list;
      for (const Json& element : value) {
        list.append(to_python(element));
      }
      return list;
    }
    case Json::value_t::object: {
      py::dict dict;
      for (const auto& [key, element] : value.items()) {
        dict[decode(key)] = to_python(element);
      }
      return dict;
    }
  }
  return py::none();
}

// Python to JSON; an Error names the offending value's place ("$[0]['state']").
class JsonConverter {
 public:
  Result<Json> convert(py::handle value) {
    auto json = convert(value, 0);
    if (!json)
      return Error(ErrorCode::python, "cannot convert " + json.error().message() + " to JSON at $" + m_where);
    return json;
  }

 private:
  Result<Json> convert(py::handle value, int depth) {
    if (depth > k_max_depth) {
      return failure("a value nested more than " + std::to_string(k_max_depth) + " levels deep");
    }
    if (value.is_none()) {
      return Json(nullptr);
    }
    if (py::isinstance<py::bool_>(value)) {
      return Json(value.ptr() == Py_True);
    }
    if (py::isinstance<py::int_>(value)) {
      return integer(value);
    }
    if (py::isinstance<py::float_>(value)) {
      return Json(PyFloat_AsDouble(value.ptr()));
    }
    if (py::isinstance<py::bytes>(value)) {
      char* data = nullptr;
      Py_ssize_t size = 0;
      PyBytes_AsStringAndSize(value.ptr(), &data, &size);
      return Json::binary(std::vector<std::uint8_t>(data, data + size));
    }
    if (py::isinstance<py::str>(value)) {
      auto bytes = utf8(value);
      if (!bytes) {
        return failure("a string that cannot be encoded as UTF-8");
      }
      return Json(std::move(*bytes));
    }
    if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
      return array(value, depth);
    }
    if (py::isinstance<py::dict>(value)) {
      return object(value, depth);
    }
    return failure("a value of type '" + readable(py::type::handle_of(value).attr("__name__")) +
                   "' (JSON takes None, bool, int, float, str, list, tuple and dict)");
  }

  Result<Json> integer(py::handle value) {
    int overflow = 0;
    const long long number = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow == 0) {
      return Json(static_cast<std::int64_t>(number));
    }
    if (overflow > 0) {
      const unsigned long long unsigned_number = PyLong_AsUnsignedLongLong(value.ptr());
      if (PyErr_Occurred() == nullptr) {
        return Json(static_cast<std::uint64_t>(unsigned_number));
      }
      PyErr_Clear();
    }
    return failure("an integer outside the 64-bit range");
  }

  Result<Json> array(py::handle value, int depth) {
    Json result = Json::array();
    auto& elements = result.get_ref<Json::array_t&>();
    elements.reserve(py::len(value));
    for (py::handle element : value) {
      auto converted = convert(element, depth + 1);
      if (!converted) {
        m_where.insert(0, "[" + std::to_string(elements.size()) + "]");
        return converted.error();
      }
      elements.push_back(std::move(*converted));
    }
    return result;
  }

  Result<Json> object(py::handle value, int depth) {
    Json result = Json::object();
    for (auto [key, element] : py::reinterpret_borrow<py::dict>(value)) {
      if (!py::isinstance<py::str>(key)) {
        return failure("a dict key of type '" + readable(py::type::handle_of(key).attr("__name__")) +
                       "' (keys must be str)");
      }
      auto name = utf8(key);
      if (!name) {
        return failure("a dict key that cannot be encoded as UTF-8");
      }
      auto converted = convert(element, depth + 1);
      if (!converted) {
        m_where.insert(0, "['" + *name + "']");
        return converted.error();
      }
      result.get_ref<Json::object_t&>().insert_or_assign(std::move(*name), std::move(*converted));
    }
    return result;
  }

  // What could not be converted; convert() says where (m_where, built only on the way back up).
  static Error failure(const std::string& what) { return Error(ErrorCode::python, what); }

  std::string m_where;  // the path to the value that failed, from the top ("['items'][1]")
};

// "Type: message", then the traceback when there is one.
Error python_error(const py::error_already_set& error) {
  try {
    std::string message = readable(error.value());
    if (PyErr_GivenExceptionMatches(error.type().ptr(), PyExc_SyntaxError) != 0) {
      // str() of a SyntaxError drops the file's directory, and ours are all "<aaw>/NAME.py".
      const py::object& value = error.value();
      message = readable(value.attr("msg")) + " (" + readable(value.attr("filename")) + ", line " +
                readable(value.attr("lineno")) + ")";
    }
    std::string text = readable(error.type().attr("__name__")) + ": " + message;
    if (error.trace() && !error.trace().is_none()) {
      py::list frames = py::module_::import("traceback").attr("format_tb")(error.trace());
      text += "\nTraceback (most recent call last):\n";
      for (py::handle frame : frames) {
        text += readable(frame);
      }
      while (!text.empty() && text.back() == '\n') {
        text.pop_back();
      }
    }
    return Error(ErrorCode::python, text);
  } catch (const py::error_already_set&) {
    return Error(ErrorCode::python, error.what());
  }
}

// Sets HostError(message) as the current Python exception and unwinds to pybind11, which hands
// it to the Python caller.
[[noreturn]] void raise_host_error(const py::object& host_error, const Error& error) {
  py::object exception = host_error(decode(error.message()));
  exception.attr("code") = py::str(std::string(to_string(error.code())));
  PyErr_SetObject(host_error.ptr(), exception.ptr());
  throw py::error_already_set();
}

// Marks the callbacks of one call() dead when it returns: Python may keep `host` around, and
// the callbacks' captures (a SourceTree&, say) do not outlive the call.
class CallScope {
 public:
  CallScope() : m_live(std::make_shared<bool>(true)) {}
  ~CallScope() { *m_live = false; }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

  std::shared_ptr<const bool> live() const { return m_live; }

 private:
  std::shared_ptr<bool> m_live;
};

py::cpp_function make_callback(const std::string& name, HostCallback callback,
                               std::shared_ptr<const bool> live, py::object host_error) {
  return py::cpp_function(
      [name, callback = std::move(callback), live = std::move(live),
       host_error = std::move(host_error)](const py::args& args) -> py::object {
        if (!*live) {
          raise_host_error(host_error, Error(ErrorCode::internal,
                                             "host callback '" + name + "' called after its call returned"));
        }
        auto arguments = JsonConverter().convert(args);
        if (!arguments) {
          raise_host_error(host_error, arguments.error().context("host callback '" + name + "'"));
        }
        Result<Json> result = callback(*arguments);
        if (!result) {
          raise_host_error(host_error, result.error());
        }
        return to_python(*result);
      },
      py::name(name.c_str()));
}

// Enables a cProfile.Profile (when there is one) for the life of the outermost call: a host
// callback may call into Python again, and the inner call must not turn the profiler off.
class ProfiledCall {
 public:
  ProfiledCall(const py::object& profiler, int& depth) : m_profiler(profiler), m_depth(depth) {
    if (m_profiler && m_depth++ == 0) {
      m_profiler.attr("enable")();
    }
  }
  ~ProfiledCall() {
    if (m_profiler && --m_depth == 0) {
      m_profiler.attr("disable")();
    }
  }
  ProfiledCall(const ProfiledCall&) = delete;
  ProfiledCall& operator=(const ProfiledCall&) = delete;

 private:
  const py::object& m_profiler;
  int& m_depth;
};

// PREFIX.<pid> for a developer's report asked for by `variable`=PREFIX, "" when it is not set: each
// process writes its own (the helper that parses ahead runs an interpreter too).
std::string report_path(const char* variable) {
  const char* prefix = std::getenv(variable);
  if (prefix == nullptr || *prefix == '\0') return {};
  return std::string(prefix) + "." + std::to_string(::getpid());
}

}  // namespace

// Hidden like pybind11's own types, which it holds (GCC warns otherwise).
struct __attribute__((visibility("hidden"))) EmbeddedPython::Impl {
  // Declared first: destroyed last, after every Python object below.
  py::scoped_interpreter interpreter;
  py::object install;
  py::object host_error;
  py::object host_type;
  // A developer's view of where the Python half's time goes (docs/performance.md): with
  // AAW_PYTHON_PROFILE=PREFIX set, every call() runs under cProfile and the statistics go to
  // PREFIX.<pid> when the interpreter stops (the helper that parses ahead writes its own).
  py::object profiler;
  std::string profile_path;
  int profiled_depth = 0;
  // The same with AAW_PYTHON_SAMPLE=PREFIX, by sampling (aaw_sampler.py): shares as they are
  // without it, where cProfile weighs many small calls heavier. Started once our modules are in.
  std::string sample_path;

  // The argv-less start adds nothing to sys.path: our modules come from strings.
  Impl() : interpreter(IsolatedConfig().get(), 0, nullptr, false) {
    // Translated here, while the interpreter the exception refers to is still running.
    try {
      py::module_ builtins = py::module_::import("builtins");
      py::dict scope;
      builtins.attr("exec")(builtins.attr("compile")(k_bootstrap, "<aaw>/aaw_bootstrap.py", "exec"), scope);
      install = scope["install"];
      host_error = install("aaw_host", k_host_module).attr("HostError");
      host_type = py::module_::import("types").attr("SimpleNamespace");
      profile_path = report_path("AAW_PYTHON_PROFILE");
      if (!profile_path.empty()) profiler = py::module_::import("cProfile").attr("Profile")();
      sample_path = report_path("AAW_PYTHON_SAMPLE");
    } catch (const py::error_already_set& error) {
      throw std::runtime_error(python_error(error).message());
    }
  }

  ~Impl() {
    try {
      if (profiler) profiler.attr("dump_stats")(profile_path);
    } catch (const py::error_already_set& error) {
      std::fprintf(stderr, "AAW_PYTHON_PROFILE: cannot write %s: %s\n", profile_path.c_str(),
                   python_error(error).message().c_str());
    }
    try {
      if (!sample_path.empty()) py::module_::import("aaw_sampler").attr("stop_and_write")(sample_path);
    } catch (const py::error_already_set& error) {
      std::fprintf(stderr, "AAW_PYTHON_SAMPLE: cannot write %s: %s\n", sample_path.c_str(),
                   python_error(error).message().c_str());
    }
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  py::object host(const HostCallbacks& callbacks, const CallScope& scope) const {
    py::object object = host_type();
    for (const auto& [name, callback] : callbacks) {
      py::setattr(object, name.c_str(), make_callback(name, callback, scope.live(), host_error));
    }
    return object;
  }
};

EmbeddedPython::EmbeddedPython() {
  if (g_interpreter_started || Py_IsInitialized() != 0) {
    throw std::runtime_error("cannot start the embedded Python interpreter: it was started before");
  }
  g_interpreter_started = true;
  try {
    m_impl = std::make_unique<Impl>();
  } catch (const std::exception& error) {
    throw std::runtime_error(std::string("cannot start the embedded Python interpreter: ") + error.what());
  }
  for (const PythonSource& source : embedded_python_sources()) {
    auto installed = install_module(source.module, source.text, source.compiled);
    if (!installed) {
      throw std::runtime_error("cannot start the embedded Python interpreter: " +
                               installed.error().message());
    }
  }
  if (!m_impl->sample_path.empty()) {
    // Python's `signal` module, which the sampler needs, puts its KeyboardInterrupt handler on
    // SIGINT when it finds the default action there: SIGINT stays the daemon's.
    struct sigaction interrupt {};
    ::sigaction(SIGINT, nullptr, &interrupt);
    auto started = call("aaw_sampler", "start_sampling", Json(), {});
    ::sigaction(SIGINT, &interrupt, nullptr);
    if (!started) std::fprintf(stderr, "AAW_PYTHON_SAMPLE: %s\n", started.error().message().c_str());
  }
}

EmbeddedPython::~EmbeddedPython() = default;

Result<void> EmbeddedPython::install_module(std::string_view name, std::string_view source,
                                            std::string_view compiled) {
  try {
    m_impl->install(decode(name), decode(source), py::bytes(compiled.data(), compiled.size()));
    return {};
  } catch (const py::error_already_set& error) {
    return python_error(error).context("installing Python module '" + std::string(name) + "'");
  }
}

Result<Json> EmbeddedPython::call(std::string_view module, std::string_view function, const Json& args,
                                  const HostCallbacks& callbacks) {
  const CallScope scope;
  try {
    py::object target = py::module_::import(std::string(module).c_str());
    ProfiledCall profiled(m_impl->profiler, m_impl->profiled_depth);
    py::object result = target.attr(decode(function))(to_python(args), m_impl->host(callbacks, scope));
    auto json = JsonConverter().convert(result);
    if (!json) {
      return json.error().context("result of " + std::string(module) + "." + std::string(function));
    }
    return json;
  } catch (const py::error_already_set& error) {
    return python_error(error);
  } catch (const std::exception& error) {  // pybind11's cast_error and the like
    return Error(ErrorCode::python, error.what());
  }
}

std::filesystem::path embedded_python_executable() { return AAW_PYTHON_EXECUTABLE; }

std::string embedded_python_version() {
  return std::to_string(PY_MAJOR_VERSION) + "." + std::to_string(PY_MINOR_VERSION);
}

std::string embedded_python_digest() {
  std::string all = embedded_python_version() + '\0' + PY_VERSION + '\0';
  for (const PythonSource& source : embedded_python_sources())
    all += source.module + '\0' + source.text + '\0';
  const std::uint64_t hash = fnv1a_64(all);
  return hex8(static_cast<std::uint32_t>(hash >> 32)) + hex8(static_cast<std::uint32_t>(hash));
}

}  // namespace aaw
