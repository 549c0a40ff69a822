// The extension point for extractors: a table of named source kinds. The config's `extractor`, the
// `--extractor` flag of every command and the factory all read this one table, so adding an
// extractor is one file pair defining its SourceKind plus one line in builtin_sources().
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/config.hpp"
#include "core/model/state_dir.hpp"
#include "core/ports/git_mirror.hpp"
#include "core/ports/python_host.hpp"
#include "core/ports/sandbox.hpp"
#include "core/ports/signature_source.hpp"
#include "core/ports/summary_prefetch.hpp"
#include "core/ports/work_tree.hpp"
#include "core/report/log.hpp"
#include "util/named_table.hpp"
#include "util/result.hpp"

namespace aaw {

// What a source may run on. The composition root (src/cli) fills in the adapters; a source takes
// only what it needs, and what it does not need is never opened (a static source opens no work
// tree, a runtime source starts no interpreter in this process).
struct SourceDeps {
  GitMirror& mirror;
  Logger& log;
  StateDir state_dir;
  std::function<PythonHost&()> python;  // the embedded interpreter, started on first use
  // At state_dir/work, its checkouts confined in the sandbox given.
  std::function<Result<std::unique_ptr<WorkTree>>(Sandbox&)> open_work_tree;
  std::function<Result<std::unique_ptr<Sandbox>>()> make_sandbox;  // rooted at state_dir/sandbox
  std::filesystem::path python_executable;                         // venvs are made from it
  std::string python_version;                                      // its "X.Y"
  std::function<bool()> stop_requested;                            // empty: never
  // A helper that parses ahead of a replay (summary_prefetch.hpp); empty: none.
  std::function<std::unique_ptr<SummaryPrefetch>()> parse_ahead;
};

struct SourceKind {
  std::string name;         // the config's `extractor` value
  std::string description;  // one line, for --help and check-config
  // The source for `config` (REQUIRES: config.extractor == name). An Error when what it runs on
  // cannot be opened (the work tree, the sandbox).
  std::function<Result<std::unique_ptr<SignatureSource>>(const Config& config, SourceDeps& deps)> make;
};

// add(kind) (a later kind of a name replaces the earlier one), find(name), names().
class SourceRegistry : public NamedTable<SourceKind> {
 public:
  // The source config.extractor names; invalid_input listing the known names when none does.
  Result<std::unique_ptr<SignatureSource>> make(const Config& config, SourceDeps& deps) const;
};

// static, runtime, both and static+import.
SourceRegistry builtin_sources();

}  // namespace aaw
