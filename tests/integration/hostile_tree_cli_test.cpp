// A repository written to stall a static extractor, watched with `watch --once` by the built
// binary: a 10 MB module, a default 50,000 terms long, one nested 1,000 deep, an import cycle, a
// 300-module chain of star imports, a binary and a badly encoded module, symlink loops, a package
// path 100 directories deep. The run ends (its time is a benchmark's business, not this test's:
// 0.7 s when measured) with a precise status for every function, and the others unharmed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/git_fixture.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"

namespace aaw::test {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string repeated(const std::string& text, int times) {
  std::string out;
  out.reserve(text.size() * static_cast<std::size_t>(times));
  for (int i = 0; i < times; ++i) out += text;
  return out;
}

std::string deep_package_path() { return "pkg" + repeated("/d", 100); }

void write_hostile_tree(GitFixture& repo) {
  repo.write_file("pkg/__init__.py", "from .star0 import *\nfrom .big import big\n");
  repo.write_file("pkg/big.py",
                  "def big(a, b=1):\n    pass\n" + repeated("# filler line\n", 10'000'000 / 14));
  repo.write_file("pkg/longexpr.py", "def longexpr(x=1" + repeated("+1", 50'000) + "):\n    pass\n");
  repo.write_file("pkg/deep.py",
                  "def deep(x=" + repeated("(", 1000) + "1" + repeated(")", 1000) + "):\n    pass\n");
  repo.write_file("pkg/cyc_a.py", "from .cyc_b import *\nfrom .cyc_b import f_b as f_a\n");
  repo.write_file("pkg/cyc_b.py", "from .cyc_a import *\nfrom .cyc_a import f_a as f_b\n");
  for (int i = 0; i < 300; ++i)
    repo.write_file(
        "pkg/star" + std::to_string(i) + ".py",
        i < 299 ? "from .star" + std::to_string(i + 1) + " import *\n" : "def leaf(x, y=2):\n    pass\n");
  std::string binary;
  for (int i = 0; i < 256 * 1000; ++i) binary += static_cast<char>(i % 256);
  repo.write_file("pkg/binary.py", binary);
  repo.write_file("pkg/latin.py", "def latin(x='\xe9'):\n    pass\n");
  fs::create_symlink("loop_b", repo.path() / "pkg" / "loop_a");
  fs::create_symlink("loop_a", repo.path() / "pkg" / "loop_b");
  std::string dir = "pkg";
  for (int i = 0; i < 100; ++i) {
    dir += "/d";
    repo.write_file(dir + "/__init__.py", "");
  }
  repo.write_file(dir + "/m.py", "def f(a):\n    pass\n");
  repo.write_file("pkg/plain.py", "def plain(a, *, b=None):\n    pass\n");
  repo.commit("hostile");
}

TEST(HostileTreeCliTest, WatchOnceEndsWithAPreciseStatusForEveryFunction) {
  TempDir dir("aaw-hostile");
  GitFixture repo(dir.path() / "src");
  write_hostile_tree(repo);
  const std::string deep_module = deep_package_path();
  std::string deep_import = "from ";
  for (char c : deep_module) deep_import += c == '/' ? '.' : c;
  deep_import += ".m import f";
  const json functions = json::array({
      {{"import_statement", "from pkg.plain import plain"}, {"function_path", "plain"}},
      {{"import_statement", "from pkg.big import big"}, {"function_path", "big"}},
      {{"import_statement", "from pkg.longexpr import longexpr"}, {"function_path", "longexpr"}},
      {{"import_statement", "from pkg.deep import deep"}, {"function_path", "deep"}},
      {{"import_statement", "from pkg.cyc_a import f_a"}, {"function_path", "f_a"}},
      {{"import_statement", "import pkg"}, {"function_path", "pkg.leaf"}},
      {{"import_statement", "from pkg.binary import x"}, {"function_path", "x"}},
      {{"import_statement", "from pkg.latin import latin"}, {"function_path", "latin"}},
      {{"import_statement", "from pkg.loop_a import z"}, {"function_path", "z"}},
      {{"import_statement", deep_import}, {"function_path", "f"}},
  });
  const json config = {{"repository_url", repo.path().string()},
                       {"functions_to_monitor", functions},
                       {"state_dir", (dir.path() / "state").string()},
                       {"log", {{"file", ""}}}};
  std::ofstream(dir.path() / "config.json") << config.dump(2);
  RunOptions options;
  options.cwd = dir.path();
  options.unset_env = {"GITHUB_TOKEN"};
  options.timeout_seconds = 120;  // a hang is a failure, not a stalled suite
  const ProcessResult r = run_process(
      {AAW_BINARY, "watch", "--config", (dir.path() / "config.json").string(), "--once"}, options);
  ASSERT_FALSE(r.timed_out) << "watch --once did not end on the hostile tree";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string log = r.out + r.err;
  for (const char* expected : {
           "Initial signature for plain: (a, *, b=None)",
           "Initial signature for big: (a, b=1)",
           "Initial signature for longexpr: unresolved: pkg/longexpr.py: nested too deeply to read",
           "Initial signature for deep: syntax_error: pkg/deep.py:1: too many nested parentheses",
           "Initial signature for f_a: missing: 'f_a' not found in module 'pkg.cyc_a' (import cycle)",
           "Initial signature for pkg.leaf: unresolved: 'leaf' is looked for through a chain of more than "
           "100 star "
           "imports",
           "Initial signature for x: syntax_error: pkg/binary.py: source code string cannot contain null "
           "bytes",
           "Initial signature for latin: syntax_error: pkg/latin.py:1: (unicode error)",
           // Python would find no module through the loop, but links are not followed statically.
           "Initial signature for z: unresolved: 'pkg/loop_a' is a symbolic link, which static extraction "
           "does "
           "not follow",
           "Initial signature for f: (a)",
       })
    EXPECT_TRUE(contains(log, expected)) << expected << "\n" << log.substr(0, 6000);
}

}  // namespace
}  // namespace aaw::test
