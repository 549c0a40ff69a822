#include "cli/query/report_command.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <exception>
#include <iostream>

#include "cli/command_context.hpp"
#include "cli/consumer/consumer_session.hpp"
#include "core/consumer/consumer_report.hpp"
#include "core/model/state_dir.hpp"
#include "core/report/html_report.hpp"
#include "extract/consumer/python_call_binder.hpp"

namespace aaw::cli {
namespace {

// A report of nothing would hide a wrong config or state_dir: say so instead. Read-only: a report
// writes only its page, and may be made of a state_dir the service's user owns.
std::unique_ptr<StateStore> open_report_store(const Config& config) {
  std::unique_ptr<StateStore> store = open_recorded_store(StateDir(config.state_dir), config);
  if (!store)
    throw CommandError{"state_dir '" + config.state_dir.string() +
                       "': no state store there yet: run 'watch' or 'replay' with this config first"};
  return store;
}

std::filesystem::path output_dir(const ReportOptions& options, const Config& config) {
  if (!options.out.empty()) return options.out;
  if (!config.report.dir.empty()) return config.report.dir;
  throw CommandError{"report: no output directory: give --out DIR or set report.dir in '" +
                     options.config_path.string() + "'"};
}

}  // namespace

void add_report_command(CLI::App& app, Commands& commands) {
  auto shared = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Write a static HTML page of every function's signature timeline (DIR/index.html)");
  cmd->add_option("--out", shared->out, "Output directory (default: the config's report.dir)");
  cmd->footer(
      "Exit codes: 0 written (its path on stdout); 2 an error (a bad config, no state store yet, no output "
      "directory, a page that cannot be written).");
  commands.on(cmd, shared, run_report);
}

std::vector<std::unique_ptr<ReportDetailSource>> report_detail_sources(const Config& config, Runtime& runtime,
                                                                       const ConsumerSession* consumer) {
  std::vector<std::unique_ptr<ReportDetailSource>> sources;
  if (!config.consumer.configured()) return sources;
  std::unique_ptr<ConsumerSession> opened;
  if (consumer == nullptr) {
    auto made = ConsumerSession::open(config, runtime, *null_logger());
    if (!made) {  // said under each change
      sources.push_back(std::make_unique<ConsumerDetailSource>(made.error(), nullptr));
      return sources;
    }
    opened = std::move(*made);
    consumer = opened.get();
  }
  sources.push_back(std::make_unique<ConsumerDetailSource>(
      consumer->scan(), std::make_unique<PythonCallBinder>(runtime.python())));
  return sources;
}

Result<std::filesystem::path> publish_report(StateStore& store, const Config& config,
                                             const std::filesystem::path& dir, Runtime& runtime,
                                             const ConsumerSession* consumer) {
  auto sources = report_detail_sources(config, runtime, consumer);
  ReportInput input{
      config.repository_url, config.report.web_url, config.branch, config.functions_to_monitor, {}};
  for (const auto& source : sources) input.detail_sources.push_back(source.get());
  auto report = build_report(store, input, std::chrono::system_clock::now());
  if (!report) return report.error().context("reading the state store for the report");
  return write_html_report(*report, dir);
}

int run_report(const ReportOptions& options, Runtime& runtime) {
  Config config = read_config_or_throw(options.config_path);
  std::filesystem::path dir = output_dir(options, config);
  auto store = open_report_store(config);
  std::filesystem::path page = value_or_throw(publish_report(*store, config, dir, runtime));
  std::cout << page.string() << "\n";
  return 0;
}

}  // namespace aaw::cli
