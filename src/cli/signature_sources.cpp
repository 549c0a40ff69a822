#include "signature_sources.hpp"

#include "aaw/core/sandbox.hpp"
#include "aaw/core/work_tree.hpp"
#include "aaw/extract/both_source.hpp"
#include "aaw/extract/runtime_source.hpp"
#include "aaw/extract/static_extractor.hpp"
#include "aaw/extract/static_memo.hpp"
#include "aaw/io/embedded_python.hpp"
#include "aaw/io/libgit2_work_tree.hpp"
#include "aaw/io/posix_sandbox.hpp"
#include "aaw/io/runtime.hpp"
#include "command_context.hpp"

namespace aaw::cli {
SignatureSources::SignatureSources(const Config& config, GitMirror& mirror, Runtime& runtime, Logger& log,
                                   std::function<bool()> stop_requested) {
  if (config.extractor != ExtractorKind::runtime) {
    m_extractor = std::make_unique<StaticExtractor>(runtime.python());
    m_static = std::make_unique<IncrementalStaticSource>(mirror, *m_extractor);
  }
  if (config.extractor == ExtractorKind::static_ast) return;
  // The work tree's origin is the redacted URL: it only resolves relative submodule URLs, and
  // state_dir must hold no credentials.
  m_work_tree = value_or_throw(
      open_work_tree(config.state_dir / "work", mirror.path(), mirror.display_url(), log, stop_requested));
  m_sandbox = value_or_throw(
      make_sandbox(config.sandbox, std::filesystem::absolute(config.state_dir / "sandbox"), log));
  RuntimeSourceOptions options;
  options.state_dir = config.state_dir;
  options.build = config.build;
  options.runtime = config.runtime;
  options.python = embedded_python_executable();
  options.python_version = embedded_python_version();
  options.stop_requested = std::move(stop_requested);
  m_runtime = std::make_unique<RuntimeSource>(*m_work_tree, *m_sandbox, std::move(options), log);
  if (config.extractor == ExtractorKind::both)
    m_both = std::make_unique<BothSource>(*m_static, *m_runtime, log);
}

SignatureSources::~SignatureSources() = default;

SignatureSource& SignatureSources::source() {
  if (m_both) return *m_both;
  if (m_runtime) return *m_runtime;
  return *m_static;
}

}  // namespace aaw::cli
