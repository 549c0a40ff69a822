// The report: what the state store knows of each monitored function, arranged for people to read.
// Per function, a timeline of its signatures across commits (the initial signature, then every
// recorded change with its severity, commit, author and pull request) and its latest state; and a
// few facts about the watcher (repository, branch, last processed commit, last poll).
//
// Every change can carry detail tables from other parts of the tool (ReportDetailSource): a
// consumer's call sites that the change breaks, for example. The report only lays them out.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/model/diff.hpp"
#include "core/model/signature.hpp"
#include "core/ports/state_store.hpp"
#include "core/watch/poll_status.hpp"
#include "util/result.hpp"
#include "util/time.hpp"

namespace aaw {

// A table under one change: a title, column names and rows of plain text (escaped when rendered).
struct DetailTable {
  std::string title;                           // "Call sites this change breaks"
  std::vector<std::string> columns;            // header cells
  std::vector<std::vector<std::string>> rows;  // each as many cells as columns
  std::string note;                            // shown when there are no rows (or why they are missing)
  bool operator==(const DetailTable&) const = default;
};

// One point of a function's timeline: the signature it has from this commit on.
struct TimelineEntry {
  std::string commit;                       // full SHA
  std::string commit_date;                  // the author date, ISO 8601 with its offset
  std::string author;                       // "Name <email>"
  std::string subject;                      // first line of the commit message
  std::optional<std::string> pull_request;  // URL, when known
  std::optional<SignatureState> before;     // nullopt: the initial signature
  SignatureState after;
  std::vector<Change> changes;       // empty for the initial signature
  std::vector<DetailTable> details;  // from the detail sources, in their order

  bool initial() const { return !before.has_value(); }
  // The highest severity of `changes`; nullopt for the initial signature.
  std::optional<Severity> severity() const { return highest(changes); }
};

struct FunctionReport {
  MonitoredFunction function;
  bool monitored = true;                 // false: recorded earlier, no longer in functions_to_monitor
  std::vector<TimelineEntry> timeline;   // oldest first
  std::optional<SignatureState> latest;  // the last state that is not a machinery failure
};

struct Report {
  std::string repository_url;  // redacted
  std::string web_url;  // report.web_url without a trailing '/': where commits are linked ("": github.com's)
  std::string branch;
  std::string generated_at;              // UTC, ISO 8601
  std::optional<std::string> line_head;  // the last processed commit
  std::int64_t commits_recorded = 0;
  FailedCommits failed_commits;  // recorded without their states
  PollStatus poll;
  std::vector<FunctionReport> functions;  // functions_to_monitor's order, then the others
};

// Adds detail tables to the changes of a report (not to initial signatures). The consumer
// call-site check plugs in here: its source returns the call sites each change breaks.
class ReportDetailSource {
 public:
  virtual ~ReportDetailSource() = default;
  // The tables for `entry` of `function`. An Error does not fail the report: it is shown in the
  // entry as a table with the error as its note.
  virtual Result<std::vector<DetailTable>> details(const MonitoredFunction& function,
                                                   const TimelineEntry& entry) = 0;
  // A title for that error table ("Consumer call sites").
  virtual std::string name() const = 0;
};

struct ReportInput {
  std::string repository_url;
  std::string web_url;  // the config's report.web_url
  std::string branch;
  std::vector<MonitoredFunction> functions;  // functions_to_monitor
  std::vector<ReportDetailSource*> detail_sources;
};

// Reads the timelines from `store`: initial signatures from its events, changes from its history
// (with their pull requests), latest states from its baseline. An Error when the store cannot be
// read or holds a record that does not parse (naming the commit and function).
Result<Report> build_report(StateStore& store, const ReportInput& input, TimePoint now);

}  // namespace aaw
