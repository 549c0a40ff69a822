// `report [--out DIR]`: writes the HTML report (core/report/html_report.hpp) of what the state store
// holds to DIR/index.html (DIR: --out, else the config's report.dir). Reads state_dir only: no
// network, and no state directory is created. `watch` refreshes the same page after each poll
// through publish_report().
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "cli/command.hpp"
#include "cli/consumer/consumer_session.hpp"
#include "core/model/config.hpp"
#include "core/ports/state_store.hpp"
#include "core/report/report.hpp"

namespace aaw::cli {

struct ReportOptions {
  std::filesystem::path config_path;
  std::filesystem::path out;  // empty: the config's report.dir
};

void add_report_command(CLI::App& app, Commands& commands);

// Returns 0 with the page's path on stdout; errors throw CommandError (exit 2).
int run_report(const ReportOptions& options, Runtime& runtime);

// The detail tables added under each change (core/report/report.hpp): with a consumer configured, the
// consumer's call sites each change breaks (core/consumer/consumer_report.hpp), from `consumer`'s scan when
// given (the daemon's), else from a scan made for this page.
std::vector<std::unique_ptr<ReportDetailSource>> report_detail_sources(
    const Config& config, Runtime& runtime, const ConsumerSession* consumer = nullptr);

// Builds the report of `store` for `config` and writes it into `dir`: the page's path, or the
// error (a daemon logs it and goes on).
Result<std::filesystem::path> publish_report(StateStore& store, const Config& config,
                                             const std::filesystem::path& dir, Runtime& runtime,
                                             const ConsumerSession* consumer = nullptr);

}  // namespace aaw::cli
