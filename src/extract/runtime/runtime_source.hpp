// Runtime extraction: what callers really get. Per commit: move the work tree to it, build it into
// a virtual environment in the sandbox (`build.command`, skipped when nothing under `build.paths`
// changed since the last successful build), then one extraction child (this binary's hidden
// `__extract` subcommand, in the sandbox) imports the package once and returns the
// inspect.signature of every monitored function.
//
// Failures of this machinery never look like API changes: a failed or timed-out build makes every
// function build_failed, and a child that crashes, hangs or writes no readable result makes every
// function extract_failed (docs/design.md: recorded, never diffed). An import that raises is
// import_error, and a module or attribute of the watched package that is not there is missing.
//
// Layout under state_dir: work/ (the work tree), venv/ (one per repository, created once with
// --system-site-packages, again when the embedded Python's X.Y changes), sandbox/ (HOME, TMPDIR and the
// child's request and result files), logs/<sha>-build.log and logs/<sha>-extract.log (the newest kept),
// last_build.json (what the last successful build was, to skip the next one), runtime.lock (one extraction at
// a time).
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/model/config.hpp"
#include "core/model/state_dir.hpp"
#include "core/ports/python_host.hpp"
#include "core/ports/sandbox.hpp"
#include "core/ports/signature_source.hpp"
#include "core/ports/work_tree.hpp"
#include "core/report/log.hpp"
#include "util/result.hpp"

namespace aaw {

struct RuntimeSourceOptions {
  std::filesystem::path state_dir;
  BuildConfig build;
  RuntimeConfig runtime;
  // The interpreter the venv is created from, and its X.Y: the one this binary embeds
  // (io/python/embedded_python.hpp), so that extensions built for it import in the extraction child.
  std::filesystem::path python;
  std::string python_version;
  // The binary run as the extraction child (`PROGRAM __extract REQUEST RESULT`): this one.
  std::filesystem::path extract_program = this_program();
  std::size_t kept_logs = 50;  // commits whose build and extract logs are kept
  // Set when the work tree is imported as it is, unbuilt (no build.command): its top-level packages
  // are then put on the path from where static extraction finds them (these roots; empty: the
  // root, src/, then what the packaging files declare), so that a src/ layout imports too.
  std::optional<std::vector<std::string>> source_roots = std::nullopt;
  // Polled while waiting for runtime.lock, a build or the child (SIGTERM to the daemon): once true,
  // what runs is killed and extract() returns cancelled. Empty: never.
  std::function<bool()> stop_requested;

  static std::filesystem::path this_program();  // /proc/self/exe, resolved
};

// How long the parts of the last extract() took: the benchmark's split of a commit's cost.
struct RuntimeTimings {
  std::chrono::milliseconds checkout{0};
  std::chrono::milliseconds build{0};  // 0 when the build was skipped
  std::chrono::milliseconds extract{0};
  bool built = false;  // false: skipped (unchanged since the last successful build) or no build
};

class RuntimeSource final : public SignatureSource {
 public:
  // `work_tree` and `sandbox` outlive the source. The sandbox's writable paths will be the work
  // tree and the venv.
  RuntimeSource(WorkTree& work_tree, Sandbox& sandbox, RuntimeSourceOptions options, Logger& log);
  // Owning the work tree and the sandbox.
  RuntimeSource(std::unique_ptr<WorkTree> work_tree, std::unique_ptr<Sandbox> sandbox,
                RuntimeSourceOptions options, Logger& log);

  // One state per function. Any commit, in any order (each call checks out what it needs). Waits
  // while another process extracts with the same state_dir (state_dir/runtime.lock). An
  // Error when the commit cannot be checked out, the venv cannot be created or a child cannot be
  // started at all; a failing build or child is a state, not an Error. cancelled (nothing to
  // record) when options.stop_requested turned true before the states were complete. A child that
  // crashed after writing a complete result (a runtime's teardown at exit) still counts.
  Result<std::vector<SignatureState>> extract(const ObjectId& commit,
                                              const std::vector<MonitoredFunction>& functions) override;

  // It builds and imports: costly enough to bisect long ranges.
  bool builds_each_commit() const override { return true; }

  const RuntimeTimings& last_timings() const { return m_timings; }
  const std::filesystem::path& venv() const { return m_venv; }

 private:
  bool stopping() const;
  Result<void> ensure_venv();
  bool build_is_current(const ObjectId& commit);
  // nullopt when the build succeeded (or was not needed); else the build_failed detail.
  Result<std::optional<std::string>> build(const ObjectId& commit, const std::string& package);
  Result<std::vector<SignatureState>> run_child(const ObjectId& commit,
                                                const std::vector<MonitoredFunction>& functions);
  SandboxRequest request_for(std::vector<std::string> argv, std::chrono::seconds timeout,
                             std::filesystem::path log_file) const;
  void prune_logs() const;

  WorkTree& m_work_tree;
  Sandbox& m_sandbox;
  RuntimeSourceOptions m_options;
  Logger& m_log;
  StateDir m_state;  // absolute
  std::filesystem::path m_venv;
  std::filesystem::path m_logs;
  bool m_venv_ready = false;
  RuntimeTimings m_timings;
  std::unique_ptr<WorkTree> m_owned_work_tree;
  std::unique_ptr<Sandbox> m_owned_sandbox;
};

// The top-level package a monitored function's import statement imports ("import aiter.ops as
// o" -> "aiter"); its function path's first name when the statement names none.
std::string top_level_package(const MonitoredFunction& function);

// The extraction child's side: reads the request file RuntimeSource wrote, imports and inspects
// in `python` (src/python/aaw_runtime.py), writes the result file. io or python on failure.
Result<void> run_extraction_child(const std::filesystem::path& request, const std::filesystem::path& result,
                                  PythonHost& python);

// The "runtime" entry of the source registry: a RuntimeSource on the work tree and sandbox that
// `deps` open under state_dir.
struct SourceKind;
SourceKind runtime_source_kind();

}  // namespace aaw
