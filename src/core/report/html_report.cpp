#include "core/report/html_report.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <system_error>

#include "core/model/compiled_binding.hpp"
#include "util/files.hpp"
#include "util/time.hpp"
#include "util/url.hpp"

namespace aaw {
namespace {

// Inline, so the page needs nothing but itself. Severity colours: one class per severity name.
constexpr const char* k_style = R"css(
:root { --breaking:#c62828; --unknown:#6a1b9a; --behavioural:#e65100; --compatible:#2e7d32;
  --annotation:#455a64; --initial:#757575; --line:#d0d7de; --muted:#57606a; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2328; }
header, main, nav { max-width: 1200px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 18px; }
h1 { font-size: 22px; margin: 0 0 8px; }
h2 { font-size: 18px; margin: 0 0 6px; }
code, pre { font: 13px/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, monospace; }
h1 code, h2 code { font-size: inherit; }
a { color: #0969da; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0 0 12px; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; }
nav.filter { padding-top: 6px; padding-bottom: 6px; border-top: 1px solid var(--line); border-bottom: 1px solid var(--line); }
nav.filter label { margin-right: 14px; white-space: nowrap; }
table { border-collapse: collapse; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
table.summary { margin: 14px 0; width: 100%; }
.badge { display: inline-block; border-radius: 10px; padding: 0 8px; color: #fff; font-size: 12px;
  background: var(--initial); }
.sev-breaking .badge, .badge.sev-breaking { background: var(--breaking); }
.sev-unknown .badge, .badge.sev-unknown { background: var(--unknown); }
.sev-behavioural .badge, .badge.sev-behavioural { background: var(--behavioural); }
.sev-compatible .badge, .badge.sev-compatible { background: var(--compatible); }
.sev-annotation .badge, .badge.sev-annotation { background: var(--annotation); }
section.function { border: 1px solid var(--line); border-radius: 6px; padding: 12px 16px; margin: 16px 0; }
section.function.retired { opacity: .8; }
.import, .latest { margin: 2px 0; }
.strip { position: relative; height: 14px; margin: 10px 7px 0; }
.strip::before { content: ""; position: absolute; left: 0; right: 0; top: 6px; height: 2px; background: var(--line); }
.strip a { position: absolute; top: 0; width: 14px; height: 14px; margin-left: -7px; border-radius: 50%;
  background: var(--initial); }
.axis { display: flex; justify-content: space-between; margin: 2px 0 10px; font-size: 12px; color: #666; }
.strip a.sev-breaking { background: var(--breaking); }
.strip a.sev-unknown { background: var(--unknown); }
.strip a.sev-behavioural { background: var(--behavioural); }
.strip a.sev-compatible { background: var(--compatible); }
.strip a.sev-annotation { background: var(--annotation); }
ol.timeline { list-style: none; margin: 0; padding: 0 0 0 18px; border-left: 3px solid var(--line); }
li.entry { position: relative; margin: 0 0 14px; padding-left: 10px; }
li.entry::before { content: ""; position: absolute; left: -27px; top: 3px; width: 12px; height: 12px;
  border-radius: 50%; background: var(--initial); border: 2px solid #fff; }
li.entry.sev-breaking::before { background: var(--breaking); }
li.entry.sev-unknown::before { background: var(--unknown); }
li.entry.sev-behavioural::before { background: var(--behavioural); }
li.entry.sev-compatible::before { background: var(--compatible); }
li.entry.sev-annotation::before { background: var(--annotation); }
.meta { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; }
.meta .subject { font-weight: 600; }
.meta .author { color: var(--muted); }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; margin: 6px 0; }
.sides.single { grid-template-columns: 1fr; }
.side h4 { margin: 0 0 2px; font-size: 12px; color: var(--muted); text-transform: uppercase; }
.side pre { margin: 0; padding: 6px 8px; background: #f6f8fa; border: 1px solid var(--line); border-radius: 4px;
  white-space: pre-wrap; word-break: break-word; }
.side.old mark { background: #ffebe9; color: #82071e; }
.side.new mark { background: #dafbe1; color: #116329; }
pre.state { color: var(--muted); font-style: italic; }
ul.changes { margin: 4px 0; padding-left: 18px; }
table.details { margin: 6px 0; }
table.details caption { text-align: left; font-weight: 600; padding: 2px 0; }
.note { color: var(--muted); }
.unverified { color: #9a6700; font-style: italic; }
.by-import { color: #57606a; font-style: italic; }
.empty { color: var(--muted); font-style: italic; }
body.hide-breaking li.entry.sev-breaking, body.hide-unknown li.entry.sev-unknown,
body.hide-behavioural li.entry.sev-behavioural, body.hide-compatible li.entry.sev-compatible,
body.hide-annotation li.entry.sev-annotation, body.hide-initial li.entry.sev-initial { display: none; }
footer { max-width: 1200px; margin: 20px auto; padding: 0 20px; color: var(--muted); font-size: 12px; }
@media (max-width: 800px) { .sides { grid-template-columns: 1fr; } }
)css";

// Unticking a severity hides its entries; without JavaScript everything stays visible. The body's
// data-filter="ready" says the script ran (the browser test reads it).
constexpr const char* k_script = R"js(
document.querySelectorAll('nav.filter input[data-severity]').forEach(function (box) {
  box.addEventListener('change', function () {
    document.body.classList.toggle('hide-' + box.dataset.severity, !box.checked);
  });
});
document.body.dataset.filter = 'ready';
)js";

// Most severe first, as the filter lists them; "initial" is the first signature of a function.
constexpr std::array<const char*, 6> k_entry_kinds = {"breaking",   "unknown",    "behavioural",
                                                      "compatible", "annotation", "initial"};

std::string severity_name(const TimelineEntry& entry) {
  auto severity = entry.severity();
  return severity ? std::string(to_string(*severity)) : std::string("initial");
}

std::string badge(const std::string& kind) {
  return "<span class=\"badge sev-" + kind + "\">" + html_escape(kind) + "</span>";
}

std::string code(std::string_view text) { return "<code>" + html_escape(text) + "</code>"; }

std::string link(const std::string& href, const std::string& text, const std::string& css_class) {
  return "<a class=\"" + css_class + "\" href=\"" + html_escape(href) + "\">" + html_escape(text) + "</a>";
}

// Where a commit or a pull request is shown on the web: under report.web_url when the config
// names one (a mirror, a GitHub Enterprise or Gitea host), else on github.com when the repository
// is there, else nowhere (the page shows the SHA or "#123" without a link).
std::optional<std::string> commit_href(const Report& report, const std::string& sha) {
  if (!report.web_url.empty()) return report.web_url + "/commit/" + sha;
  return commit_url(report.repository_url, sha);
}

std::string commit_html(const Report& report, const std::string& sha) {
  std::string shown = sha.substr(0, 12);
  auto url = commit_href(report, sha);
  return url ? link(*url, shown, "commit")
             : "<code class=\"commit\" title=\"" + html_escape(sha) + "\">" + html_escape(shown) + "</code>";
}

// ".../pull/123" -> "PR #123"; "#123" a link under web_url when there is one; other text as it is.
std::string pull_request_html(const Report& report, const std::string& recorded) {
  std::string url = recorded;
  if (!report.web_url.empty() && recorded.rfind('#', 0) == 0)
    url = report.web_url + "/pull/" + recorded.substr(1);
  auto at = url.rfind("/pull/");
  std::string text = at == std::string::npos ? url : "PR #" + url.substr(at + 6);
  return is_http_url(url) ? link(url, text, "pr") : "<span class=\"pr\">" + html_escape(url) + "</span>";
}

// The span of commit dates the strips share, so that every function's dots sit on one time scale:
// a dot's place says when, and the gaps between dots how long nothing changed.
struct TimeAxis {
  std::int64_t first = 0;
  std::int64_t last = 0;
  std::string first_day, last_day;  // "2025-04-26"

  static TimeAxis of(const Report& report) {
    TimeAxis axis;
    bool any = false;
    for (const FunctionReport& f : report.functions)
      for (const TimelineEntry& e : f.timeline) {
        auto t = parse_iso8601(e.commit_date);
        if (!t) continue;
        if (!any || *t < axis.first) axis.first = *t, axis.first_day = e.commit_date.substr(0, 10);
        if (!any || *t > axis.last) axis.last = *t, axis.last_day = e.commit_date.substr(0, 10);
        any = true;
      }
    return axis;
  }
  // The place of `date` along the axis, in percent; the middle when the span is a single instant,
  // the start when the date does not parse.
  double percent(const std::string& date) const {
    auto t = parse_iso8601(date);
    if (!t) return 0;
    if (last <= first) return 50;
    return 100.0 * static_cast<double>(*t - first) / static_cast<double>(last - first);
  }
};

// The parameters a change names, marked on both sides of the comparison.
std::set<std::string> touched_parameters(const TimelineEntry& entry) {
  std::set<std::string> names;
  for (const Change& change : entry.changes)
    if (change.parameter) names.insert(*change.parameter);
  return names;
}

bool return_touched(const TimelineEntry& entry) {
  return std::any_of(entry.changes.begin(), entry.changes.end(),
                     [](const Change& c) { return c.kind == ChangeKind::return_annotation_changed; });
}

std::string marked(const std::string& text, bool mark) {
  return mark ? "<mark>" + html_escape(text) + "</mark>" : html_escape(text);
}

// One parameter a line, as a reader compares them; the touched ones marked.
std::string signature_html(const SignatureState& state, const std::set<std::string>& touched,
                           bool mark_return) {
  if (!state.is_ok()) return "<pre class=\"state\">" + html_escape(state.summary()) + "</pre>";
  std::vector<SignaturePart> parts = state.signature.parts();
  std::string out = "<pre class=\"sig\">(";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    bool mark = parts[i].parameter && touched.count(parts[i].parameter->name) > 0;
    out += "\n    " + marked(parts[i].text, mark) + (i + 1 < parts.size() ? "," : "");
  }
  out += parts.empty() ? ")" : "\n)";
  if (state.signature.return_annotation)
    out += " -> " + marked(*state.signature.return_annotation, mark_return);
  out += "</pre>";
  if (state.is_unverified())
    out += "<p class=\"unverified\">unverified: " + html_escape(state.unverified) + "</p>";
  if (state.by_import)
    out +=
        "<p class=\"by-import\">read by importing the commit's tree (static extraction could not vouch for "
        "it): defaults as Python prints them</p>";
  return out;
}

std::string sides_html(const TimelineEntry& entry) {
  std::set<std::string> touched = touched_parameters(entry);
  bool mark_return = return_touched(entry);
  std::string after = signature_html(entry.after, touched, mark_return);
  if (entry.initial())
    return "<div class=\"sides single\"><div class=\"side new\"><h4>Initial signature</h4>" + after +
           "</div></div>";
  // A change of the compiled binding: each side's binding under its signature.
  std::vector<std::string> bindings = binding_sides(*entry.before, entry.after, entry.changes);
  auto binding = [&](std::size_t side) {
    return bindings.empty() ? std::string()
                            : "<pre class=\"state\">" + html_escape(bindings[side]) + "</pre>";
  };
  return "<div class=\"sides\"><div class=\"side old\"><h4>Before</h4>" +
         signature_html(*entry.before, touched, mark_return) + binding(0) +
         "</div><div class=\"side new\"><h4>After</h4>" + after + binding(1) + "</div></div>";
}

std::string changes_html(const TimelineEntry& entry) {
  if (entry.changes.empty()) return "";
  std::string out = "<ul class=\"changes\">";
  for (const Change& change : entry.changes) {
    std::string kind(to_string(change.severity));
    out += "<li class=\"sev-" + kind + "\">" + badge(kind) + " " + html_escape(change.describe()) + "</li>";
  }
  return out + "</ul>";
}

std::string row_html(const std::vector<std::string>& cells, const char* tag) {
  std::string out = "<tr>";
  for (const std::string& cell : cells)
    out += std::string("<") + tag + ">" + html_escape(cell) + "</" + tag + ">";
  return out + "</tr>";
}

std::string details_html(const std::vector<DetailTable>& tables) {
  std::string out;
  for (const DetailTable& table : tables) {
    out += "<table class=\"details\"><caption>" + html_escape(table.title) + "</caption>";
    if (!table.columns.empty()) out += "<thead>" + row_html(table.columns, "th") + "</thead>";
    out += "<tbody>";
    for (const auto& row : table.rows) out += row_html(row, "td");
    out += "</tbody></table>";
    if (!table.note.empty()) out += "<p class=\"note\">" + html_escape(table.note) + "</p>";
  }
  return out;
}

std::string meta_html(const TimelineEntry& entry, const Report& report) {
  std::string out = "<div class=\"meta\">" + badge(severity_name(entry)) + " <time>" +
                    html_escape(entry.commit_date) + "</time> " + commit_html(report, entry.commit);
  if (entry.pull_request) out += " " + pull_request_html(report, *entry.pull_request);
  out += " <span class=\"subject\">" + html_escape(entry.subject) + "</span>";
  out += " <span class=\"author\">" + html_escape(entry.author) + "</span></div>";
  return out;
}

std::string entry_id(std::size_t function_index, std::size_t entry_index) {
  return "fn" + std::to_string(function_index + 1) + "-" + std::to_string(entry_index + 1);
}

std::string entry_html(const TimelineEntry& entry, const std::string& id, const Report& report) {
  std::string kind = severity_name(entry);
  return "<li class=\"entry sev-" + kind + "\" id=\"" + id + "\" data-severity=\"" + kind + "\">" +
         meta_html(entry, report) + sides_html(entry) + changes_html(entry) + details_html(entry.details) +
         "</li>";
}

// A dot per entry at its commit's date on the page's time axis, each a link to its entry: the
// shape of the history at a glance, comparable from one function to the next.
std::string strip_html(const FunctionReport& f, std::size_t index, const TimeAxis& axis) {
  if (f.timeline.empty()) return "";
  std::string out =
      "<div class=\"strip\" aria-label=\"timeline from " + axis.first_day + " to " + axis.last_day + "\">";
  for (std::size_t i = 0; i < f.timeline.size(); ++i) {
    const TimelineEntry& e = f.timeline[i];
    char left[32];
    std::snprintf(left, sizeof left, "%.2f", axis.percent(e.commit_date));
    out += "<a class=\"sev-" + severity_name(e) + "\" style=\"left:" + left + "%\" href=\"#" +
           entry_id(index, i) + "\" title=\"" +
           html_escape(severity_name(e) + " " + e.commit.substr(0, 12) + " " + e.commit_date) + "\"></a>";
  }
  return out + "</div><div class=\"axis\"><span>" + html_escape(axis.first_day) + "</span><span>" +
         html_escape(axis.last_day) + "</span></div>";
}

std::optional<Severity> worst(const FunctionReport& f) {
  std::optional<Severity> out;
  for (const TimelineEntry& e : f.timeline)
    if (auto s = e.severity(); s && (!out || *s > *out)) out = s;
  return out;
}

std::size_t change_count(const FunctionReport& f) {
  return static_cast<std::size_t>(std::count_if(f.timeline.begin(), f.timeline.end(),
                                                [](const TimelineEntry& e) { return !e.initial(); }));
}

std::string latest_text(const FunctionReport& f) {
  return f.latest ? f.latest->summary() : "not recorded yet";
}

std::string function_html(const FunctionReport& f, std::size_t index, const Report& report,
                          const TimeAxis& axis) {
  auto severity = worst(f);
  std::string out = "<section class=\"function" + std::string(f.monitored ? "" : " retired") + "\" id=\"fn" +
                    std::to_string(index + 1) + "\"><h2>" + code(f.function.function_path) +
                    (severity ? " " + badge(std::string(to_string(*severity))) : "") + "</h2>";
  if (!f.monitored) out += "<p class=\"note\">No longer in functions_to_monitor.</p>";
  out += "<p class=\"import\">Import: " + code(f.function.import_statement) + "</p>";
  out += "<p class=\"latest\">Latest: " + code(latest_text(f)) + "</p>";
  out += strip_html(f, index, axis);
  if (f.timeline.empty()) return out + "<p class=\"empty\">Nothing recorded yet.</p></section>";
  out += "<ol class=\"timeline\">";
  for (std::size_t i = 0; i < f.timeline.size(); ++i)
    out += entry_html(f.timeline[i], entry_id(index, i), report);
  return out + "</ol></section>";
}

std::string summary_html(const Report& report) {
  std::string out =
      "<table class=\"summary\"><thead><tr><th>function</th><th>latest signature</th><th>changes</th>"
      "<th>highest severity</th><th>last change</th></tr></thead><tbody>";
  for (std::size_t i = 0; i < report.functions.size(); ++i) {
    const FunctionReport& f = report.functions[i];
    auto severity = worst(f);
    std::string last = change_count(f) ? f.timeline.back().commit_date : "";
    out += "<tr><td><a href=\"#fn" + std::to_string(i + 1) + "\">" + code(f.function.function_path) +
           "</a></td><td>" + code(latest_text(f)) + "</td><td>" + std::to_string(change_count(f)) +
           "</td><td>" + (severity ? badge(std::string(to_string(*severity))) : "") + "</td><td>" +
           html_escape(last) + "</td></tr>";
  }
  return out + "</tbody></table>";
}

std::string filter_html(const Report& report) {
  std::string out = "<nav class=\"filter\">Show: ";
  for (const char* kind : k_entry_kinds) {
    std::size_t n = 0;
    for (const FunctionReport& f : report.functions)
      n += static_cast<std::size_t>(
          std::count_if(f.timeline.begin(), f.timeline.end(),
                        [&](const TimelineEntry& e) { return severity_name(e) == kind; }));
    out += "<label><input type=\"checkbox\" checked data-severity=\"" + std::string(kind) + "\"> " +
           badge(kind) + " " + std::to_string(n) + "</label>";
  }
  return out + "</nav>";
}

std::string fact(const std::string& name, const std::string& value_html) {
  return "<dt>" + html_escape(name) + "</dt><dd>" + value_html + "</dd>";
}

std::string header_html(const Report& report) {
  std::string out = "<header><h1>API signature changes: " + code(report.repository_url) + " " +
                    code(report.branch) + "</h1><dl class=\"facts\">";
  out +=
      fact("last processed commit", report.line_head ? commit_html(report, *report.line_head) : "none yet");
  out += fact("commits recorded", std::to_string(report.commits_recorded));
  if (const FailedCommits& failed = report.failed_commits; failed.last)
    out +=
        fact("failed commits",
             html_escape(std::to_string(failed.count) + " (their states are unknown; the last: ") +
                 commit_html(report, failed.last->commit.hex) + html_escape(": " + failed.last->error + ")"));
  const PollStatus& poll = report.poll;
  out += fact("last poll", poll.last_poll_time ? html_escape(*poll.last_poll_time + " (" +
                                                             poll.last_poll_result.value_or("?") + ")")
                                               : "never");
  if (poll.last_replay_time)
    out += fact("last replay",
                html_escape(*poll.last_replay_time + " (" + poll.last_replay_result.value_or("?") + ")"));
  out += fact("generated", html_escape(report.generated_at));
  return out + "</dl></header>";
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_html_report(const Report& report) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<meta name=\"generator\" content=\"aiter-api-watcher\"><title>API changes: " +
      html_escape(report.repository_url) + " (" + html_escape(report.branch) + ")</title><style>" + k_style +
      "</style></head>\n<body>";
  out += header_html(report) + filter_html(report) + "<main>" + summary_html(report);
  if (report.functions.empty()) out += "<p class=\"empty\">No function is monitored or recorded.</p>";
  const TimeAxis axis = TimeAxis::of(report);
  for (std::size_t i = 0; i < report.functions.size(); ++i)
    out += "\n" + function_html(report.functions[i], i, report, axis);
  out += "</main><footer>Generated by aiter-api-watcher from its state store.</footer><script>";
  return out + k_script + "</script></body></html>\n";
}

Result<std::filesystem::path> write_html_report(const Report& report, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return Error(ErrorCode::io, "cannot create report directory '" + dir.string() + "': " + ec.message());
  std::filesystem::path file = dir / k_report_file;
  if (auto written = write_file_atomically(file, render_html_report(report)); !written)
    return written.error();
  return file;
}

}  // namespace aaw
