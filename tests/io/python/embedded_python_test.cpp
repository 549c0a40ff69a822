#include "io/python/embedded_python.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>

#include "support/shared_python.hpp"

namespace aaw {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// Helpers the tests call: each takes (args, host) like every function call() reaches.
constexpr const char* k_test_module = R"(
import aaw_host


def echo(args, host):
    return args


def code_points(args, host):
    return [ord(c) for c in args]


def call_host(args, host):
    return getattr(host, args["callback"])(*args["arguments"])


def catch_host_error(args, host):
    try:
        host.fail()
    except aaw_host.HostError as error:
        return {"message": str(error), "code": error.code}
    return None


def keep_host(args, host):
    global kept
    kept = host
    return None


def call_kept_host(args, host):
    return kept.value()


def fail(args, host):
    def inner():
        raise ValueError("no good: " + args)
    inner()


def return_set(args, host):
    return {"items": [1, {2, 3}]}


def return_int_keys(args, host):
    return {1: "one"}


def return_huge_int(args, host):
    return 2 ** 70


def return_cycle(args, host):
    cycle = []
    cycle.append(cycle)
    return cycle


def compiled(args, host):
    import _frozen_importlib_external
    import marshal
    code = compile(args["source"], "<aaw>/%s.py" % args["name"], "exec", dont_inherit=True)
    return {"magic": list(_frozen_importlib_external.MAGIC_NUMBER), "code": list(marshal.dumps(code))}
)";

class EmbeddedPythonTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(python().install_module("aaw_test_host", k_test_module)); }

  static EmbeddedPython& python() { return test::shared_python(); }

  Result<Json> call(const char* function, const Json& args, const HostCallbacks& callbacks = {}) {
    return python().call("aaw_test_host", function, args, callbacks);
  }
};

TEST_F(EmbeddedPythonTest, RoundTripsEveryJsonType) {
  const Json value = {
      {"null", nullptr},
      {"true", true},
      {"false", false},
      {"int", -42},
      {"big", 9223372036854775807LL},
      {"unsigned", 18446744073709551615ULL},
      {"float", 1.5e-6},
      {"string", "héllo ☃"},
      {"empty", ""},
      {"array", {1, "two", {3.0, nullptr}}},
      {"object", {{"nested", {{"deep", Json::array()}}}, {"empty", Json::object()}}},
  };

  auto result = call("echo", value);

  ASSERT_TRUE(result) << result.error().message();
  EXPECT_EQ(*result, value);
}

TEST_F(EmbeddedPythonTest, KeepsNonUtf8BytesThroughSurrogateEscape) {
  const std::string bytes = "ok \xff\xfe \xc3";

  auto echoed = call("echo", bytes);
  auto seen = call("code_points", bytes);

  ASSERT_TRUE(echoed) << echoed.error().message();
  EXPECT_EQ(echoed->get<std::string>(), bytes);
  ASSERT_TRUE(seen) << seen.error().message();
  EXPECT_EQ(*seen, Json({'o', 'k', ' ', 0xDCFF, 0xDCFE, ' ', 0xDCC3}));
}

TEST_F(EmbeddedPythonTest, PassesArgumentsToCallbacksAndReturnsTheirResult) {
  Json seen;
  HostCallbacks callbacks;
  callbacks["add"] = [&seen](const Json& args) -> Result<Json> {
    seen = args;
    return Json(args[0].get<int>() + args[1].get<int>());
  };

  auto result = call("call_host", {{"callback", "add"}, {"arguments", {2, 3}}}, callbacks);

  ASSERT_TRUE(result) << result.error().message();
  EXPECT_EQ(*result, 5);
  EXPECT_EQ(seen, Json({2, 3}));
}

TEST_F(EmbeddedPythonTest, RaisesCallbackErrorsAsHostError) {
  HostCallbacks callbacks;
  callbacks["fail"] = [](const Json&) -> Result<Json> {
    return Error(ErrorCode::not_found, "object abc is missing");
  };

  auto result = call("catch_host_error", nullptr, callbacks);

  ASSERT_TRUE(result) << result.error().message();
  EXPECT_EQ((*result)["message"], "object abc is missing");
  EXPECT_EQ((*result)["code"], "not found");
}

TEST_F(EmbeddedPythonTest, UncaughtHostErrorBecomesPythonError) {
  HostCallbacks callbacks;
  callbacks["boom"] = [](const Json&) -> Result<Json> { return Error(ErrorCode::io, "disk gone"); };

  auto result = call("call_host", {{"callback", "boom"}, {"arguments", Json::array()}}, callbacks);

  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), ErrorCode::python);
  EXPECT_THAT(result.error().message(), StartsWith("HostError: disk gone\n"));
}

TEST_F(EmbeddedPythonTest, RefusesCallbacksAfterTheCallReturned) {
  HostCallbacks callbacks;
  callbacks["value"] = [](const Json&) -> Result<Json> { return Json(1); };
  ASSERT_TRUE(call("keep_host", nullptr, callbacks));

  auto result = call("call_kept_host", nullptr);

  ASSERT_FALSE(result);
  EXPECT_THAT(result.error().message(), HasSubstr("called after its call returned"));
}

TEST_F(EmbeddedPythonTest, ReportsPythonExceptionWithTypeMessageAndTraceback) {
  auto result = call("fail", "x");

  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), ErrorCode::python);
  const std::string& message = result.error().message();
  EXPECT_THAT(message, StartsWith("ValueError: no good: x\nTraceback (most recent call last):\n"));
  EXPECT_THAT(message, HasSubstr("File \"<aaw>/aaw_test_host.py\", line 37, in inner"));
  EXPECT_THAT(message, HasSubstr("raise ValueError(\"no good: \" + args)"));
}

TEST_F(EmbeddedPythonTest, ReportsUnknownModuleAsError) {
  auto result = python().call("aaw_no_such_module", "f", nullptr, {});

  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), ErrorCode::python);
  EXPECT_THAT(result.error().message(), StartsWith("ModuleNotFoundError: "));
}

TEST_F(EmbeddedPythonTest, ReportsUnknownFunctionAsError) {
  auto result = call("no_such_function", nullptr);

  ASSERT_FALSE(result);
  EXPECT_THAT(result.error().message(), StartsWith("AttributeError: "));
}

TEST_F(EmbeddedPythonTest, RejectsResultsThatAreNotJson) {
  auto set = call("return_set", nullptr);
  auto int_keys = call("return_int_keys", nullptr);
  auto huge = call("return_huge_int", nullptr);
  auto cycle = call("return_cycle", nullptr);

  ASSERT_FALSE(set);
  EXPECT_THAT(set.error().message(), HasSubstr("'set'"));
  EXPECT_THAT(set.error().message(), HasSubstr("$['items'][1]"));
  ASSERT_FALSE(int_keys);
  EXPECT_THAT(int_keys.error().message(), HasSubstr("keys must be str"));
  ASSERT_FALSE(huge);
  EXPECT_THAT(huge.error().message(), HasSubstr("64-bit"));
  ASSERT_FALSE(cycle);
  EXPECT_THAT(cycle.error().message(), HasSubstr("levels deep"));
}

TEST_F(EmbeddedPythonTest, InstallsModulesThatCanImportEachOther) {
  ASSERT_TRUE(python().install_module("aaw_test_base", "VALUE = 41\n"));
  ASSERT_TRUE(python().install_module(
      "aaw_test_user",
      "import aaw_test_base\n\ndef get(args, host):\n    return aaw_test_base.VALUE + args\n"));

  auto result = python().call("aaw_test_user", "get", 1, {});

  ASSERT_TRUE(result) << result.error().message();
  EXPECT_EQ(*result, 42);
}

// `source` compiled as cmake/embed_python.py compiles it: `magic` (this interpreter's when empty),
// then the marshalled code; the bytes in a string, for install_module's `compiled`.
std::string compiled(const std::string& name, const std::string& source, const std::string& magic = "") {
  auto bytes =
      test::shared_python().call("aaw_test_host", "compiled", {{"name", name}, {"source", source}}, {});
  EXPECT_TRUE(bytes) << bytes.error().message();
  std::string out = magic;
  for (const Json& byte : bytes->at("magic"))
    if (magic.empty()) out.push_back(static_cast<char>(byte.get<int>()));
  for (const Json& byte : bytes->at("code")) out.push_back(static_cast<char>(byte.get<int>()));
  return out;
}

TEST_F(EmbeddedPythonTest, RunsTheCodeCompiledWithTheModuleInsteadOfCompilingItsSource) {
  ASSERT_TRUE(
      python().install_module("aaw_test_compiled", "def f(args, host):\n    return 'source'\n",
                              compiled("aaw_test_compiled", "def f(args, host):\n    return 'code'\n")));
  auto result = python().call("aaw_test_compiled", "f", nullptr, {});
  ASSERT_TRUE(result) << result.error().message();
  EXPECT_EQ(*result, "code");
}

TEST_F(EmbeddedPythonTest, CompilesTheSourceWhenTheCodeIsAnotherPythonsOrDamaged) {
  const std::string source = "def f(args, host):\n    return 'source'\n";
  const std::string other =
      compiled("aaw_test_other", "def f(args, host):\n    return 'code'\n", "\x01\x02\r\n");
  std::string damaged = compiled("aaw_test_damaged", "def f(args, host):\n    return 'code'\n");
  damaged.resize(damaged.size() / 2);
  for (const auto& [name, code] : {std::pair{"aaw_test_other", other}, std::pair{"aaw_test_damaged", damaged},
                                   std::pair{"aaw_test_empty", std::string()}}) {
    ASSERT_TRUE(python().install_module(name, source, code));
    auto result = python().call(name, "f", nullptr, {});
    ASSERT_TRUE(result) << result.error().message();
    EXPECT_EQ(*result, "source") << name;
  }
}

TEST_F(EmbeddedPythonTest, OurModulesComeCompiledByThePythonTheBinaryLinks) {
  const std::string magic = compiled("aaw_test_magic", "").substr(0, 4);
  for (const PythonSource& source : embedded_python_sources()) {
    ASSERT_GT(source.compiled.size(), 4u) << source.module;
    EXPECT_EQ(source.compiled.substr(0, 4), magic) << source.module;
  }
}

TEST_F(EmbeddedPythonTest, ReportsModuleThatDoesNotCompileAndKeepsThePreviousOne) {
  ASSERT_TRUE(python().install_module("aaw_test_keep", "def f(args, host):\n    return 1\n"));

  auto installed = python().install_module("aaw_test_keep", "def f(:\n");
  auto result = python().call("aaw_test_keep", "f", nullptr, {});

  ASSERT_FALSE(installed);
  EXPECT_EQ(installed.error().code(), ErrorCode::python);
  EXPECT_THAT(installed.error().message(), HasSubstr("SyntaxError: "));
  EXPECT_THAT(installed.error().message(), HasSubstr("<aaw>/aaw_test_keep.py"));
  ASSERT_TRUE(result) << result.error().message();
  EXPECT_EQ(*result, 1);
}

TEST_F(EmbeddedPythonTest, RunsIsolatedWithoutWritingBytecode) {
  ASSERT_TRUE(python().install_module("aaw_test_config", R"(
import sys


def config(args, host):
    return {
        "isolated": sys.flags.isolated,
        "ignore_environment": sys.flags.ignore_environment,
        "no_user_site": sys.flags.no_user_site,
        "dont_write_bytecode": sys.dont_write_bytecode,
    }
)"));

  auto result = python().call("aaw_test_config", "config", nullptr, {});

  ASSERT_TRUE(result) << result.error().message();
  EXPECT_EQ(
      *result,
      Json({{"isolated", 1}, {"ignore_environment", 1}, {"no_user_site", 1}, {"dont_write_bytecode", true}}));
}

void ignore_signal(int) {}

TEST_F(EmbeddedPythonTest, LeavesTheDaemonsSignalHandlersAlone) {
  struct sigaction ours {};
  ours.sa_handler = ignore_signal;
  struct sigaction old_int {};
  struct sigaction old_term {};
  sigaction(SIGINT, &ours, &old_int);
  sigaction(SIGTERM, &ours, &old_term);
  ASSERT_TRUE(python().install_module("aaw_test_signals", R"(
import signal
import subprocess


def default_int_handler_installed(args, host):
    return signal.getsignal(signal.SIGINT) is signal.default_int_handler
)"));

  auto result = python().call("aaw_test_signals", "default_int_handler_installed", nullptr, {});
  struct sigaction now_int {};
  struct sigaction now_term {};
  sigaction(SIGINT, &old_int, &now_int);
  sigaction(SIGTERM, &old_term, &now_term);

  ASSERT_TRUE(result) << result.error().message();
  EXPECT_EQ(*result, false);
  EXPECT_EQ(now_int.sa_handler, &ignore_signal);
  EXPECT_EQ(now_term.sa_handler, &ignore_signal);
}

TEST_F(EmbeddedPythonTest, InstallsTheEmbeddedHelpers) {
  auto result = python().call("aaw_static", "stats", nullptr, {});

  ASSERT_TRUE(result) << result.error().message();
  EXPECT_TRUE(result->at("parses").is_number_integer());
}

}  // namespace
}  // namespace aaw
