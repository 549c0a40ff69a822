// The SignatureSource a config asks for (`extractor`: static, runtime or both), built with
// everything it runs on: the static extractor on the embedded interpreter, or the work tree, the
// sandbox and the runtime source under state_dir. Construction failures throw CommandError.
#pragma once

#include <functional>
#include <memory>

#include "aaw/core/config.hpp"
#include "aaw/core/git_mirror.hpp"
#include "aaw/core/log.hpp"
#include "aaw/extract/static_memo.hpp"

namespace aaw {
class Runtime;
class StaticExtractor;
class WorkTree;
class Sandbox;
class RuntimeSource;
class BothSource;
}  // namespace aaw

namespace aaw::cli {

class SignatureSources {
 public:
  // `mirror`, `runtime` and `log` outlive this object. `stop_requested` (empty: never) ends a
  // runtime extraction's wait, build, child or submodule fetch as cancelled once it is true.
  SignatureSources(const Config& config, GitMirror& mirror, Runtime& runtime, Logger& log,
                   std::function<bool()> stop_requested = {});
  ~SignatureSources();
  SignatureSources(const SignatureSources&) = delete;
  SignatureSources& operator=(const SignatureSources&) = delete;

  SignatureSource& source();
  // The static source when the config uses one (static or both), else nullptr.
  const IncrementalStaticSource* static_source() const { return m_static.get(); }

 private:
  std::unique_ptr<StaticExtractor> m_extractor;
  std::unique_ptr<IncrementalStaticSource> m_static;
  std::unique_ptr<WorkTree> m_work_tree;
  std::unique_ptr<Sandbox> m_sandbox;
  std::unique_ptr<RuntimeSource> m_runtime;
  std::unique_ptr<BothSource> m_both;
};

}  // namespace aaw::cli
