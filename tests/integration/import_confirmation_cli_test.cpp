// `extractor: static+import` as a user meets it with the built binary, on a src/ layout package
// imported as it is (no build) in the sandbox: a decorator class that adds a parameter is read by
// import and its signature recorded (static extraction alone reads the def and says it cannot
// vouch for it), a decorator the resolver cannot follow that keeps the signature is confirmed, a
// change made only in the decorator's module is found, and the closing summary counts it all.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/git_fixture.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"
#include "support/watcher_binary.hpp"

namespace aaw::test {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string dispatch_module(const std::string& added) {
  return "import inspect\n"
         "class with_backend:\n"
         "    def __init__(self, fn):\n"
         "        self.fn = fn\n"
         "        sig = inspect.signature(fn)\n"
         "        extra = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=None) for n in " +
         added +
         "]\n"
         "        self.__signature__ = sig.replace(parameters=list(sig.parameters.values()) + extra)\n"
         "    def __call__(self, *args, **kwargs):\n"
         "        return self.fn(*args, **kwargs)\n";
}

class ImportConfirmationCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_repo.write_file("pyproject.toml", "[project]\nname = \"cpkg\"\n");
    m_repo.write_file("src/cpkg/__init__.py", "from .ops import dispatched, kept, plain\n");
    m_repo.write_file("src/cpkg/dispatch.py", dispatch_module("['backend']"));
    m_repo.write_file("src/cpkg/ops.py",
                      "from .dispatch import with_backend\n"
                      "keep = (lambda f: f)\n"
                      "@with_backend\ndef dispatched(x, y=1):\n    return x\n"
                      "@keep\ndef kept(a, b=2):\n    return a\n"
                      "def plain(a):\n    pass\n");
    m_first = m_repo.commit("three functions: one a decorator class changes, one kept by a lambda");
    m_repo.write_file("src/cpkg/dispatch.py", dispatch_module("['backend', 'device']"));
    m_second = m_repo.commit("the decorator class adds another parameter; no def changed");
  }

  fs::path config(const std::string& extractor) {
    json functions = json::array();
    for (const char* name : {"dispatched", "kept", "plain"})
      functions.push_back(
          {{"import_statement", "import cpkg"}, {"function_path", std::string("cpkg.") + name}});
    json config = {{"repository_url", m_repo.path().string()},
                   {"functions_to_monitor", functions},
                   {"state_dir", (m_dir.path() / ("state-" + extractor)).string()},
                   {"start_commit", m_first},
                   {"extractor", extractor},
                   {"sandbox", {{"kind", "auto"}}},
                   {"log", {{"file", ""}}}};
    fs::path path = m_dir.path() / ("config-" + extractor + ".json");
    std::ofstream(path) << config.dump(2);
    return path;
  }

  ProcessResult run(const std::vector<std::string>& args) { return run_watcher(m_dir.path(), args); }

  TempDir m_dir{"aaw-import-confirmation"};
  GitFixture m_repo{m_dir.path() / "src"};
  std::string m_first;
  std::string m_second;
};

TEST_F(ImportConfirmationCliTest, TheImportsAnswerWinsWhereStaticExtractionCannotVouch) {
  // Static alone: both decorated functions flagged, and the second commit is no change at all.
  const fs::path alone = config("static");
  ProcessResult r = run({"watch", "--config", alone.string(), "--once"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out + r.err, "at the last commit, 2 functions unverified")) << r.out << r.err;
  EXPECT_TRUE(
      json::parse(run({"history", "--config", alone.string(), "--format", "json"}).out)["changes"].empty());

  const fs::path cfg = config("static+import");
  r = run({"watch", "--config", cfg.string(), "--once"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string log = r.out + r.err;
  EXPECT_TRUE(contains(log, "Initial signature for cpkg.dispatched: (x, y=1, *, backend=None)\n")) << log;
  EXPECT_TRUE(contains(log, "Importing cpkg.dispatched at " + m_first +
                                " gives (x, y=1, *, backend=None), not the (x, y=1) static extraction read"))
      << log;
  EXPECT_TRUE(contains(log, "Initial signature for cpkg.kept: (a, b=2)\n")) << log;  // confirmed: no flag
  EXPECT_TRUE(contains(log, "Initial signature for cpkg.plain: (a)\n")) << log;
  EXPECT_FALSE(contains(log, "functions unverified")) << log;
  // Imported twice: both doubtful functions at the first commit, only dispatched at the second
  // (what it read changed; nothing kept read did).
  EXPECT_TRUE(contains(log,
                       "import confirmation: 3 states of doubtful functions in 2 imports: 1 confirmed, "
                       "2 differed and 0 resolved (the import's recorded), 0 unanswered (static kept)"))
      << log;

  json history = json::parse(run({"history", "--config", cfg.string(), "--format", "json"}).out)["changes"];
  ASSERT_EQ(history.size(), 1u) << history.dump(2);
  EXPECT_EQ(history[0]["function_path"], "cpkg.dispatched");
  EXPECT_EQ(history[0]["commit"], m_second);
  EXPECT_EQ(history[0]["changes"][0]["kind"], "parameter_added");
  EXPECT_EQ(history[0]["changes"][0]["parameter"], "device");

  r = run({"show", "--config", cfg.string(), m_second, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json shown = json::parse(r.out)["functions"];
  ASSERT_EQ(shown.size(), 3u);
  EXPECT_EQ(shown[0]["state"]["by_import"], true);
  EXPECT_FALSE(shown[1]["state"].contains("by_import"));
  EXPECT_FALSE(shown[1]["state"].contains("unverified"));
}

}  // namespace
}  // namespace aaw::test
