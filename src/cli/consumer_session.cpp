#include "consumer_session.hpp"

#include <spdlog/spdlog.h>

#include "aaw/extract/consumer_scanner.hpp"

namespace aaw::cli {

Result<std::unique_ptr<ConsumerSession>> ConsumerSession::open(const Config& config, Runtime& runtime,
                                                               Logger& log) {
  if (config.consumer.path.empty()) return std::unique_ptr<ConsumerSession>();
  PythonHost* python = nullptr;
  try {
    python = &runtime.python();
  } catch (const std::exception& e) {
    return Error(ErrorCode::python, e.what()).context("consumer '" + config.consumer.path + "'");
  }
  auto scan = scan_consumer(*python, config.consumer.path, config.consumer.package);
  if (!scan) return scan.error();
  std::size_t sites = 0;
  for (const ConsumerFunction& f : scan->functions) sites += f.call_sites.size();
  log.info("Consumer {}: {} call sites of {} {} functions", config.consumer.path, sites,
           scan->functions.size(), config.consumer.package);
  std::unique_ptr<ConsumerSession> session(new ConsumerSession());
  session->m_binder = std::make_unique<PythonCallBinder>(*python);
  session->m_assessor.emplace(std::move(*scan), *session->m_binder);
  return session;
}

}  // namespace aaw::cli
