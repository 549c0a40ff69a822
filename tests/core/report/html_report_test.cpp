// The HTML page of a report: self-contained, everything from the store escaped, commit and pull
// request links only where they lead somewhere, touched parameters marked on both sides, the
// severity filter's counts, detail tables, and the file written atomically.
#include "core/report/html_report.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "support/sample_values.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"

namespace aaw {
namespace {

using test::count_of;

using test::contains;
using test::param;

TimelineEntry entry(std::string sha, std::optional<SignatureState> before, SignatureState after) {
  TimelineEntry e;
  e.commit = std::move(sha);
  e.commit_date = "2025-04-26T17:41:54+02:00";
  e.author = "Ada <ada@example.com>";
  e.subject = "Tune <moe> & friends";
  e.before = std::move(before);
  e.after = std::move(after);
  if (e.before) e.changes = diff_states(*e.before, e.after);
  return e;
}

// fmoe: initial (x: str | None, kernel='<ActivationType.Silu: 0>'), then kernel removed (breaking).
Report sample(const std::string& repository_url = "https://github.com/ROCm/aiter.git") {
  SignatureState first = SignatureState::ok(Signature{
      {param("x", std::nullopt, "str | None"), param("kernel", "<ActivationType.Silu: 0>")}, "None"});
  SignatureState second = SignatureState::ok(Signature{{param("x", std::nullopt, "str | None")}, "None"});
  Report report;
  report.repository_url = repository_url;
  report.branch = "main";
  report.generated_at = "2026-11-21T06:07:23Z";
  report.line_head = std::string(40, 'b');
  report.commits_recorded = 2;
  FunctionReport f;
  f.function = {"import aiter", "aiter.fmoe"};
  f.timeline.push_back(entry(std::string(40, 'a'), std::nullopt, first));
  f.timeline.push_back(entry(std::string(40, 'b'), first, second));
  f.timeline[1].pull_request = "https://github.com/ROCm/aiter/pull/42";
  f.latest = second;
  report.functions.push_back(f);
  return report;
}

TEST(HtmlReportTest, ABindingChangeShowsEachSidesBinding) {
  Report report = sample();
  SignatureState stub = SignatureState::ok(Signature{{param("x", std::nullopt, "str | None")}, "None"});
  CompiledBinding binding;
  binding.name = "fmoe";
  binding.module = "module_moe_asm";
  binding.file = "csrc/include/rocm_ops.hpp";
  binding.line = 12;
  binding.signature = Signature{{param("x")}, std::nullopt};
  SignatureState before = stub;
  before.binding = binding;
  binding.signature.parameters[0].name = "input";
  SignatureState after = stub;
  after.binding = binding;
  report.functions[0].timeline.push_back(entry(std::string(40, 'c'), before, after));
  std::string html = render_html_report(report);
  EXPECT_TRUE(contains(html, "old binding: pybind11 fmoe(x) at csrc/include/rocm_ops.hpp:12")) << html;
  EXPECT_TRUE(contains(html, "new binding: pybind11 fmoe(input) at csrc/include/rocm_ops.hpp:12"));
  EXPECT_TRUE(contains(html, "breaking: binding parameter &#39;x&#39; removed"));
}

// Static+import: a signature the import gave (static extraction could not vouch for it) says so,
// as an unverified one says why it is.
TEST(HtmlReportTest, ASignatureReadByImportAndAnUnverifiedOneSaySo) {
  Report report = sample();
  SignatureState imported =
      SignatureState::ok(Signature{{param("x"), param("backend", "None")}, std::nullopt});
  imported.by_import = true;
  SignatureState doubted = SignatureState::ok(Signature{{param("x")}, std::nullopt});
  doubted.unverified = "decorated with @dispatch: an instance of class dispatch replaces the function";
  report.functions[0].timeline.push_back(entry(std::string(40, 'c'), doubted, imported));
  std::string html = render_html_report(report);
  EXPECT_TRUE(contains(html, "read by importing the commit's tree")) << html;
  EXPECT_TRUE(contains(html, "unverified: decorated with @dispatch")) << html;
}

TEST(HtmlReportTest, EscapesEveryCharacterThatMeansSomethingInHtml) {
  EXPECT_EQ(html_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
}

TEST(HtmlReportTest, IsOneSelfContainedDocument) {
  std::string html = render_html_report(sample());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_TRUE(contains(html, "<style>"));
  EXPECT_FALSE(contains(html, "<link")) << "no external stylesheet";
  EXPECT_FALSE(contains(html, "<script src")) << "no external script";
  EXPECT_FALSE(contains(html, "<img")) << "no external image";
  EXPECT_FALSE(contains(html, "url(")) << "no external asset in the styles";
}

TEST(HtmlReportTest, TextFromTheStoreIsEscaped) {
  std::string html = render_html_report(sample());
  EXPECT_TRUE(contains(html, "kernel=&lt;ActivationType.Silu: 0&gt;")) << "a runtime repr is text, not a tag";
  EXPECT_TRUE(contains(html, "Tune &lt;moe&gt; &amp; friends"));
  EXPECT_TRUE(contains(html, "Ada &lt;ada@example.com&gt;"));
  EXPECT_TRUE(contains(html, "x: str | None")) << "the | of a union type is kept whole";
  EXPECT_FALSE(contains(html, "<moe>"));
}

TEST(HtmlReportTest, TheHeaderCountsTheCommitsRecordedAsFailed) {
  Report report = sample();
  EXPECT_FALSE(contains(render_html_report(report), "failed commits")) << "none: nothing said";
  report.failed_commits = {2, CommitStatus{ObjectId{std::string(40, 'c')}, CommitOutcome::failed,
                                           "object <x> is missing from the mirror", 3, "t"}};
  std::string html = render_html_report(report);
  EXPECT_TRUE(contains(html, "<dt>failed commits</dt><dd>2 (their states are unknown; the last: ")) << html;
  EXPECT_TRUE(
      contains(html, std::string(12, 'c') + "</a>: object &lt;x&gt; is missing from the mirror)</dd>"));
}

TEST(HtmlReportTest, CommitsAndPullRequestsLinkToGithub) {
  std::string html = render_html_report(sample());
  EXPECT_TRUE(contains(html, "href=\"https://github.com/ROCm/aiter/commit/" + std::string(40, 'b') + "\">" +
                                 std::string(12, 'b') + "</a>"));
  EXPECT_TRUE(contains(html, "href=\"https://github.com/ROCm/aiter/pull/42\">PR #42</a>"));
}

TEST(HtmlReportTest, CommitsOfAnotherHostAreShownWithoutALink) {
  std::string html = render_html_report(sample("/srv/git/aiter.git"));
  EXPECT_FALSE(contains(html, "/commit/"));
  EXPECT_TRUE(contains(html, "<code class=\"commit\" title=\"" + std::string(40, 'b') + "\">" +
                                 std::string(12, 'b') + "</code>"));
}

TEST(HtmlReportTest, WebUrlLinksCommitsAndPullRequestsOfAnyHost) {
  Report report = sample("/srv/git/aiter.git");
  report.web_url = "https://git.example.com/mirrors/aiter";
  report.functions[0].timeline[1].pull_request = "#42";  // how a non-GitHub remote's PR is recorded
  std::string html = render_html_report(report);
  EXPECT_TRUE(contains(html, "href=\"https://git.example.com/mirrors/aiter/commit/" + std::string(40, 'b') +
                                 "\">" + std::string(12, 'b') + "</a>"))
      << html;
  EXPECT_TRUE(contains(html, "href=\"https://git.example.com/mirrors/aiter/pull/42\">PR #42</a>"));
  EXPECT_FALSE(contains(html, "<code class=\"commit\""));
}

TEST(HtmlReportTest, TheStripsShareOneTimeAxis) {
  Report report = sample();
  report.functions[0].timeline[0].commit_date = "2025-01-01T00:00:00+00:00";
  report.functions[0].timeline[1].commit_date = "2025-01-11T00:00:00+00:00";
  FunctionReport other = report.functions[0];
  other.function.function_path = "aiter.other";
  other.timeline.resize(1);
  other.timeline[0].commit_date = "2025-01-03T12:00:00+12:00";  // 2025-01-03 00:00 UTC: a fifth of the way
  report.functions.push_back(other);
  std::string html = render_html_report(report);
  EXPECT_TRUE(contains(html, "style=\"left:0.00%\" href=\"#fn1-1\"")) << html;
  EXPECT_TRUE(contains(html, "style=\"left:100.00%\" href=\"#fn1-2\""));
  EXPECT_TRUE(contains(html, "style=\"left:20.00%\" href=\"#fn2-1\""));
  EXPECT_EQ(count_of(html, "<div class=\"axis\"><span>2025-01-01</span><span>2025-01-11</span></div>"), 2);
}

TEST(HtmlReportTest, APullRequestThatIsNotAWebUrlIsNotALink) {
  Report report = sample();
  report.functions[0].timeline[1].pull_request = "javascript:alert(1)";
  std::string html = render_html_report(report);
  EXPECT_FALSE(contains(html, "href=\"javascript:"));
  EXPECT_TRUE(contains(html, "<span class=\"pr\">javascript:alert(1)</span>"));
}

TEST(HtmlReportTest, OldAndNewSignaturesSideBySideWithTheTouchedParameterMarked) {
  std::string html = render_html_report(sample());
  EXPECT_TRUE(contains(html, "<div class=\"side old\"><h4>Before</h4><pre class=\"sig\">("));
  EXPECT_TRUE(contains(html, "<mark>kernel=&lt;ActivationType.Silu: 0&gt;</mark>"));
  EXPECT_EQ(count_of(html, "<mark>"), 1) << "only the removed parameter, on the old side";
  EXPECT_TRUE(contains(html, "<h4>Initial signature</h4>"));
  EXPECT_TRUE(contains(html, "breaking: parameter &#39;kernel&#39; removed"));
}

TEST(HtmlReportTest, EntriesCarryTheirSeverityForTheFilter) {
  std::string html = render_html_report(sample());
  EXPECT_TRUE(contains(html, "<li class=\"entry sev-initial\" id=\"fn1-1\" data-severity=\"initial\">"));
  EXPECT_TRUE(contains(html, "<li class=\"entry sev-breaking\" id=\"fn1-2\" data-severity=\"breaking\">"));
  EXPECT_TRUE(contains(
      html, "data-severity=\"breaking\"> <span class=\"badge sev-breaking\">breaking</span> 1</label>"));
  EXPECT_TRUE(contains(
      html,
      "data-severity=\"compatible\"> <span class=\"badge sev-compatible\">compatible</span> 0</label>"));
  EXPECT_TRUE(contains(html, "href=\"#fn1-2\"")) << "the strip links to the entry";
}

TEST(HtmlReportTest, FailedStatesAreShownAsTheirStatusAndDetail) {
  Report report = sample();
  report.functions[0].timeline[1].after = SignatureState::failed(Status::missing, "no attribute 'fmoe'");
  std::string html = render_html_report(report);
  EXPECT_TRUE(contains(html, "<pre class=\"state\">missing: no attribute &#39;fmoe&#39;</pre>"));
}

TEST(HtmlReportTest, DetailTablesAreRenderedUnderTheirChange) {
  Report report = sample();
  report.functions[0].timeline[1].details.push_back(
      {"Call sites this change breaks", {"file", "line"}, {{"vllm/<x>.py", "12"}}, ""});
  report.functions[0].timeline[1].details.push_back({"Consumer call sites", {}, {}, "unavailable: no clone"});
  std::string html = render_html_report(report);
  EXPECT_TRUE(contains(html,
                       "<caption>Call sites this change breaks</caption><thead><tr><th>file</th><th>line</th>"
                       "</tr></thead><tbody><tr><td>vllm/&lt;x&gt;.py</td><td>12</td></tr></tbody>"));
  EXPECT_TRUE(contains(html, "<p class=\"note\">unavailable: no clone</p>"));
}

TEST(HtmlReportTest, AFunctionWithNothingRecordedSaysSo) {
  Report report = sample();
  report.functions.push_back(FunctionReport{{"import aiter", "aiter.new_fn"}, true, {}, std::nullopt});
  std::string html = render_html_report(report);
  EXPECT_TRUE(contains(html, "<section class=\"function\" id=\"fn2\">"));
  EXPECT_TRUE(contains(html, "Nothing recorded yet."));
  EXPECT_TRUE(contains(html, "not recorded yet"));
}

TEST(HtmlReportTest, WritesIndexHtmlIntoANewDirectory) {
  test::TempDir dir("aaw-html-report");
  auto page = write_html_report(sample(), dir / "a" / "b");
  ASSERT_TRUE(page) << page.error().message();
  EXPECT_EQ(*page, dir / "a" / "b" / "index.html");
  EXPECT_EQ(test::read_text(*page), render_html_report(sample()));
}

TEST(HtmlReportTest, ADirectoryThatCannotBeMadeIsAnError) {
  test::TempDir dir("aaw-html-report");
  std::ofstream(dir / "file") << "x";
  auto page = write_html_report(sample(), dir / "file" / "report");
  ASSERT_FALSE(page);
  EXPECT_NE(page.error().message().find("cannot create report directory"), std::string::npos)
      << page.error().message();
}

}  // namespace
}  // namespace aaw
