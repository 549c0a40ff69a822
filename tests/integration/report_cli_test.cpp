// `report` on the built binary, and the page it writes loaded in a real browser: Debian's
// chromium, headless, with a fresh profile and no network of its own. The rendered DOM is
// checked (every function, its timeline, the severities, the side-by-side signatures, the commit
// links, the filter script having run), and a screenshot is kept outside the repository for a
// person to look at ($AAW_ARTIFACTS_DIR, default <tmp>/aiter-api-watcher-artifacts). Also:
// `watch` refreshing the page after a poll (report.dir), and the errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>

#include "support/process.hpp"
#include "support/synthetic_aiter.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"

namespace aaw::test {
namespace {

namespace fs = std::filesystem;

fs::path artifacts_dir() {
  const char* configured = std::getenv("AAW_ARTIFACTS_DIR");
  fs::path dir = configured && *configured ? fs::path(configured)
                                           : fs::temp_directory_path() / "aiter-api-watcher-artifacts";
  fs::create_directories(dir);
  return dir;
}

// Headless chromium as the test plan says: no sandbox (we may be root), no GPU, none of the
// background connections the closed network would refuse, and a profile of its own.
ProcessResult chromium(const fs::path& profile, std::vector<std::string> args) {
  std::vector<std::string> argv = {"chromium",
                                   "--headless",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--disable-background-networking",
                                   "--disable-component-update",
                                   "--disable-sync",
                                   "--no-first-run",
                                   "--user-data-dir=" + profile.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions options;
  options.timeout_seconds = 120;
  return run_process(argv, options);
}

class ReportCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_commits = SyntheticAiter::build(m_repo);
    m_served = m_repo.bare_clone(m_dir.path() / "served" / "aiter.git");
  }

  fs::path config(const std::string& extra = "") {
    auto path = m_dir.path() / "config.json";
    std::string keys = "\"start_commit\": \"" + m_commits.base + "\"" + (extra.empty() ? "" : ", " + extra);
    std::ofstream(path) << SyntheticAiter::config_json(m_served.string(), m_dir.path(), keys);
    return path;
  }
  ProcessResult run(std::vector<std::string> args) { return run_watcher(AAW_BINARY, m_dir.path(), args); }

  TempDir m_dir{"aaw-report-cli"};
  GitFixture m_repo{m_dir.path() / "work"};
  SyntheticAiterCommits m_commits;
  fs::path m_served;
};

TEST_F(ReportCliTest, ThePageRendersInChromiumWithEveryFunctionItsTimelineAndItsChanges) {
  auto cfg = config();
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  fs::path out = m_dir.path() / "site";
  auto r = run({"report", "--config", cfg.string(), "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, (out / "index.html").string() + "\n");

  std::string url = "file://" + (out / "index.html").string();
  auto dom = chromium(m_dir.path() / "profile", {"--dump-dom", url});
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  const std::string& html = dom.out;
  EXPECT_NE(html.find("data-filter=\"ready\""), std::string::npos) << "the filter script ran without error";
  for (const MonitoredFunction& f : SyntheticAiter::functions())
    EXPECT_NE(html.find("<code>" + f.function_path + "</code></a>"), std::string::npos)
        << f.function_path << " in the summary";
  EXPECT_EQ(count_of(html, "<li class=\"entry sev-initial\""), 10) << "one initial signature per function";
  // The 13 planted changes of main (watcher_test's list) come as 12 entries: renamed's two
  // changes of moe_sorting_ck are one entry, and so on; at least the breaking ones are there.
  EXPECT_GE(count_of(html, "<li class=\"entry sev-breaking\""), 4) << html;
  EXPECT_NE(html.find("<h4>Before</h4>"), std::string::npos);
  EXPECT_NE(html.find("<h4>After</h4>"), std::string::npos);
  EXPECT_NE(html.find("<mark>"), std::string::npos) << "touched parameters are marked";
  EXPECT_NE(html.find("parameter 'expert_mask' removed"), std::string::npos) << "renamed to mask";
  EXPECT_NE(html.find(m_commits.renamed.substr(0, 12)), std::string::npos);
  EXPECT_EQ(html.find("/commit/"), std::string::npos) << "a local repository has no commit pages to link";

  fs::path screenshot = artifacts_dir() / "report.png";
  fs::remove(screenshot);
  auto shot = chromium(m_dir.path() / "profile-shot", {"--window-size=1280,2400", "--hide-scrollbars",
                                                       "--screenshot=" + screenshot.string(), url});
  ASSERT_EQ(shot.exit_code, 0) << shot.err;
  std::string png = read_text(screenshot);
  ASSERT_GT(png.size(), 10000u) << "a real picture of the page";
  EXPECT_EQ(png.substr(1, 3), "PNG");
  std::cout << "report screenshot: " << screenshot.string() << "\n";
}

TEST_F(ReportCliTest, WatchWritesTheReportAfterItsPollIntoReportDir) {
  auto cfg = config("\"report\": {\"dir\": \"pages\"}");
  ASSERT_FALSE(fs::exists(m_dir.path() / "pages"));
  auto r = run({"watch", "--config", cfg.string(), "--once"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string page = read_text(m_dir.path() / "pages" / "index.html");
  EXPECT_NE(page.find(m_commits.compatible), std::string::npos) << "the last processed commit";
  EXPECT_NE(page.find("ck_moe_2stages"), std::string::npos);
  EXPECT_NE(page.find("last poll</dt><dd>"), std::string::npos);
  EXPECT_NE(page.find("(ok)"), std::string::npos) << "the poll recorded before the page was written";
}

TEST_F(ReportCliTest, WebUrlLinksTheCommitsOfALocalMirrorAndTheStripsShareATimeAxis) {
  auto cfg =
      config("\"report\": {\"dir\": \"pages\", \"web_url\": \"https://git.example.com/mirrors/aiter/\"}");
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  std::string page = read_text(m_dir.path() / "pages" / "index.html");
  EXPECT_NE(page.find("href=\"https://git.example.com/mirrors/aiter/commit/" + m_commits.renamed + "\""),
            std::string::npos)
      << "a local repository's commits link to its web page";
  EXPECT_EQ(page.find("<code class=\"commit\""), std::string::npos) << "every commit is a link";
  // Every strip is drawn on the same axis: one axis line per function, all alike.
  const std::string axis = page.substr(page.find("<div class=\"axis\">"), 60);
  EXPECT_EQ(count_of(page, axis.substr(0, axis.find("</div>"))), 10) << axis;
  EXPECT_NE(page.find("style=\"left:0.00%\""), std::string::npos) << "the oldest commit at the start";

  std::ofstream(cfg) << SyntheticAiter::config_json(m_served.string(), m_dir.path(),
                                                    "\"report\": {\"web_url\": \"git.example.com/aiter\"}");
  auto r = run({"report", "--config", cfg.string(), "--out", (m_dir.path() / "other").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("report.web_url: expected an http(s) URL"), std::string::npos) << r.err;
}

TEST_F(ReportCliTest, ReplayOnceWritesTheReportIntoReportDirToo) {
  auto cfg = config("\"report\": {\"dir\": \"pages\"}");
  auto r = run({"replay", "--config", cfg.string(), "--once", m_commits.base, m_commits.renamed});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string page = read_text(m_dir.path() / "pages" / "index.html");
  EXPECT_NE(page.find("parameter &#39;expert_mask&#39; removed"), std::string::npos);
}

TEST_F(ReportCliTest, ReportDirOfTheConfigIsTheDefaultOutput) {
  auto cfg = config("\"report\": {\"dir\": \"pages\"}");
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  fs::remove_all(m_dir.path() / "pages");
  auto r = run({"report", "--config", cfg.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(m_dir.path() / "pages" / "index.html"));
}

TEST_F(ReportCliTest, WithoutAStateStoreItSaysSoAndCreatesNothing) {
  auto cfg = config();
  auto r = run({"report", "--config", cfg.string(), "--out", (m_dir.path() / "site").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("aiter-api-watcher: error: state_dir '"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no state store there yet"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(fs::exists(m_dir.path() / "state"));
  EXPECT_FALSE(fs::exists(m_dir.path() / "site"));
}

TEST_F(ReportCliTest, WithoutAnOutputDirectoryItNamesBothWaysToGiveOne) {
  auto cfg = config();
  auto r = run({"report", "--config", cfg.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give --out DIR or set report.dir"), std::string::npos) << r.err;
}

TEST_F(ReportCliTest, AnOutputDirectoryThatCannotBeMadeIsAnError) {
  auto cfg = config();
  ASSERT_EQ(run({"watch", "--config", cfg.string(), "--once"}).exit_code, 0);
  std::ofstream(m_dir.path() / "plain-file") << "x";
  auto r =
      run({"report", "--config", cfg.string(), "--out", (m_dir.path() / "plain-file" / "site").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot create report directory"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace aaw::test
