// A signature read through a decorator the resolver cannot follow, as a user meets it with the
// built binary: `watch --once` logs it flagged and counts it in its closing line, `show` prints
// the flag and the count, `show --format json` carries the reason, a decorator that appears is
// one unknown change, and `static.unverified: unresolved` records such states unresolved.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/git_fixture.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/watcher_binary.hpp"

namespace aaw::test {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

class UnverifiedCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_repo.write_file("pkg/__init__.py", "from .ops import jitted, plain\n");
    m_repo.write_file("pkg/ops.py",
                      "import somelib\n"
                      "@somelib.jit\ndef jitted(x, y=1):\n    pass\n"
                      "def plain(a):\n    pass\n");
    m_first = m_repo.commit("two functions, one decorated by another package");
    m_repo.write_file("pkg/ops.py",
                      "import somelib\n"
                      "@somelib.jit\ndef jitted(x, y=1):\n    pass\n"
                      "@somelib.jit\ndef plain(a):\n    pass\n");
    m_second = m_repo.commit("plain decorated too");
  }

  fs::path config(const std::string& unverified) {
    json config = {{"repository_url", m_repo.path().string()},
                   {"functions_to_monitor",
                    json::array({{{"import_statement", "import pkg"}, {"function_path", "pkg.jitted"}},
                                 {{"import_statement", "import pkg"}, {"function_path", "pkg.plain"}}})},
                   {"state_dir", (m_dir.path() / ("state-" + unverified)).string()},
                   {"start_commit", m_first},
                   {"log", {{"file", ""}}},
                   {"static", {{"unverified", unverified}}}};
    fs::path path = m_dir.path() / ("config-" + unverified + ".json");
    std::ofstream(path) << config.dump(2);
    return path;
  }

  ProcessResult run(const std::vector<std::string>& args) { return run_watcher(m_dir.path(), args); }

  TempDir m_dir{"aaw-unverified"};
  GitFixture m_repo{m_dir.path() / "src"};
  std::string m_first;
  std::string m_second;
};

TEST_F(UnverifiedCliTest, FlaggedInTheLogCountedAtTheEndShownByShowAndItsAppearanceIsOneUnknownChange) {
  const fs::path cfg = config("ok");
  ProcessResult r = run({"watch", "--config", cfg.string(), "--once"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string log = r.out + r.err;
  EXPECT_NE(log.find("Initial signature for pkg.jitted: (x, y=1)  [unverified: decorated with @somelib.jit, "
                     "defined outside the repository (somelib.jit)"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("Initial signature for pkg.plain: (a)\n"), std::string::npos) << log;
  EXPECT_NE(log.find("at the last commit, 2 functions unverified"), std::string::npos) << log;

  json history = json::parse(run({"history", "--config", cfg.string(), "--format", "json"}).out)["changes"];
  ASSERT_EQ(history.size(), 1u) << history.dump(2);
  EXPECT_EQ(history[0]["function_path"], "pkg.plain");
  EXPECT_EQ(history[0]["changes"][0]["kind"], "state_changed");
  EXPECT_EQ(history[0]["changes"][0]["severity"], "unknown");

  r = run({"show", "--config", cfg.string(), m_second});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("pkg.plain: (a)  [unverified: decorated with @somelib.jit"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(2 functions: 2 unverified, 0 unresolved"), std::string::npos) << r.out;
  r = run({"show", "--config", cfg.string(), m_second, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json shown = json::parse(r.out);
  ASSERT_EQ(shown["functions"].size(), 2u);
  EXPECT_EQ(shown["functions"][0]["state"]["status"], "ok");
  EXPECT_NE(shown["functions"][0]["state"]["unverified"].get<std::string>().find("somelib.jit"),
            std::string::npos);
}

TEST_F(UnverifiedCliTest, StaticUnverifiedUnresolvedRecordsThemUnresolved) {
  const fs::path cfg = config("unresolved");
  ProcessResult r = run({"watch", "--config", cfg.string(), "--once"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string log = r.out + r.err;
  EXPECT_NE(log.find("Initial signature for pkg.jitted: unresolved: unverified: decorated with @somelib.jit"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("at the last commit, 2 functions unresolved"), std::string::npos) << log;
}

}  // namespace
}  // namespace aaw::test
