// The consumer a config names, opened for a command that needs it: a local checkout
// (`consumer.path`) or a repository (`consumer.repository_url` + `branch`) mirrored beside the
// watched one and checked out under the state dir; the scan of its call sites (rescanned when it
// moves, and stored in the state dir), a binder through the embedded interpreter, the impact
// assessor made of both, and the state dir's cache of answers (unchanged files are not parsed again).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>

#include "core/consumer/consumer_impact.hpp"
#include "core/model/config.hpp"
#include "core/ports/git_mirror.hpp"
#include "core/ports/result_cache.hpp"
#include "core/ports/work_tree.hpp"
#include "core/report/log.hpp"
#include "io/runtime.hpp"

namespace aaw::cli {

class ConsumerSession {
 public:
  // nullptr when the config names no consumer; an Error naming the consumer when it cannot be
  // read (no such directory, an unreachable repository, the interpreter does not start).
  static Result<std::unique_ptr<ConsumerSession>> open(const Config& config, Runtime& runtime, Logger& log);

  // Fetches a repository consumer and rescans it when its branch moved; rescans a local checkout
  // (it may have been edited). Returns whether the call sites changed. On an Error the previous
  // scan stays in use.
  Result<bool> refresh();

  ImpactAssessor& assessor() { return *m_assessor; }
  const ConsumerScan& scan() const { return m_assessor->scan(); }
  CallBinder& binder() { return *m_binder; }
  // The consumer's commit scanned, for a repository consumer.
  const std::optional<ObjectId>& commit() const { return m_commit; }
  // Answers kept in the state dir between runs (cache.db), or nullptr when it cannot be opened
  // there (a read-only state dir): then everything is computed afresh.
  ResultCache* cache() { return m_cache.get(); }

 private:
  ConsumerSession(const Config& config, PythonHost& python, Logger& log);
  Result<std::filesystem::path> checkout();
  Result<void> open_repository();
  void open_cache();

  Config m_config;
  PythonHost& m_python;
  Logger& m_log;
  std::unique_ptr<GitMirror> m_mirror;  // repository consumers only
  std::unique_ptr<WorkTree> m_tree;
  std::unique_ptr<ResultCache> m_cache;
  std::optional<ObjectId> m_commit;
  std::unique_ptr<CallBinder> m_binder;
  std::optional<ImpactAssessor> m_assessor;
};

}  // namespace aaw::cli
