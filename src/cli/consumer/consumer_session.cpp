#include "cli/consumer/consumer_session.hpp"

#include <spdlog/spdlog.h>

#include "cli/command.hpp"
#include "cli/command_context.hpp"
#include "core/model/state_dir.hpp"
#include "extract/consumer/consumer_scanner.hpp"
#include "extract/consumer/python_call_binder.hpp"
#include "io/git/libgit2_work_tree.hpp"
#include "io/python/embedded_python.hpp"
#include "io/sqlite/sqlite_result_cache.hpp"
#include "util/files.hpp"

namespace aaw::cli {
namespace {

std::size_t call_site_count(const ConsumerScan& scan) {
  std::size_t sites = 0;
  for (const ConsumerFunction& f : scan.functions) sites += f.call_sites.size();
  return sites;
}

// "; of the 209 files naming aiter, 3 parsed, 206 read from cache.db", or "" without a cache.
std::string cache_use_text(const ConsumerScan& scan) {
  if (!scan.cache_use) return "";
  return "; of the " + std::to_string(scan.cache_use->parsed + scan.cache_use->cached) + " files naming " +
         scan.package + ", " + std::to_string(scan.cache_use->parsed) + " parsed, " +
         std::to_string(scan.cache_use->cached) + " read from cache.db";
}

// The consumer's repository as a Config the mirror helpers take: its URL and branch, the
// watched repository's state dir, token and timeouts.
Config repository_config(const Config& config) {
  Config consumer = config;
  consumer.repository_url = config.consumer.repository_url;
  consumer.branch = config.consumer.branch;
  return consumer;
}

}  // namespace

ConsumerSession::ConsumerSession(const Config& config, PythonHost& python, Logger& log)
    : m_config(config), m_python(python), m_log(log), m_binder(std::make_unique<PythonCallBinder>(python)) {}

Result<std::unique_ptr<ConsumerSession>> ConsumerSession::open(const Config& config, Runtime& runtime,
                                                               Logger& log) {
  if (!config.consumer.configured()) return std::unique_ptr<ConsumerSession>();
  const std::string what = "consumer '" + config.consumer.display() + "'";
  PythonHost* python = nullptr;
  try {
    python = &runtime.python();
  } catch (const std::exception& e) {
    return Error(ErrorCode::python, e.what()).context(what);
  }
  std::unique_ptr<ConsumerSession> session(new ConsumerSession(config, *python, log));
  session->open_cache();
  if (!config.consumer.repository_url.empty())
    if (auto opened = session->open_repository(); !opened) return opened.error().context(what);
  auto scanned = session->refresh();
  if (!scanned) return scanned.error();
  return session;
}

Result<void> ConsumerSession::open_repository() {
  try {
    m_mirror = open_mirror_or_throw(repository_config(m_config), &m_log);
  } catch (const CommandError& e) {
    return Error(ErrorCode::git, e.message);
  }
  auto tree = open_work_tree(StateDir(m_config.state_dir).consumer_tree(), m_mirror->path(),
                             m_mirror->display_url(), m_log);
  if (!tree) return tree.error();
  m_tree = std::move(*tree);
  return {};
}

void ConsumerSession::open_cache() {
  const auto path = StateDir(m_config.state_dir).cache();
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  auto cache = SqliteResultCache::open(path, std::string(k_version) + "-" + embedded_python_digest());
  if (!cache) {
    m_log.debug("No cache of answers: {}", cache.error().message());
    return;
  }
  m_cache = std::move(*cache);
}

// The directory to scan: the local checkout, or the repository's branch head checked out (after a
// fetch; a failed fetch falls back on what the mirror has).
Result<std::filesystem::path> ConsumerSession::checkout() {
  if (!m_mirror) return std::filesystem::path(m_config.consumer.path);
  if (auto fetched = m_mirror->fetch(); !fetched)
    m_log.warn("Cannot fetch the consumer {}: {}", m_mirror->display_url(), fetched.error().message());
  auto head = m_mirror->resolve(m_config.consumer.branch);
  if (!head) return head.error().context("consumer branch '" + m_config.consumer.branch + "'");
  if (m_tree->head() != *head)
    if (auto moved = m_tree->checkout(*head, false); !moved) return moved.error();
  m_commit = *head;
  return m_tree->path();
}

Result<bool> ConsumerSession::refresh() {
  const std::optional<ObjectId> before = m_commit;
  auto root = checkout();
  if (!root) return root.error();
  if (m_assessor && m_mirror && before == m_commit) return false;
  auto scan =
      scan_consumer(m_python, *root, m_config.consumer.package, m_config.consumer.exclude, m_cache.get());
  if (!scan) return scan.error();
  if (m_assessor && scan->document == m_assessor->scan().document) return false;
  m_log.info("Consumer {}{}: {} call sites of {} {} functions{}", m_config.consumer.display(),
             m_commit ? " at " + m_commit->short_hex() : std::string(), call_site_count(*scan),
             scan->functions.size(), m_config.consumer.package, cache_use_text(*scan));
  Json stored = {{"consumer", m_config.consumer.display()},
                 {"commit", m_commit ? Json(m_commit->hex) : Json(nullptr)},
                 {"scan", scan->document}};
  const auto file = StateDir(m_config.state_dir).consumer_scan();
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (auto written = write_file_atomically(file, stored.dump(1)); !written)
    m_log.warn("Cannot store the consumer's call sites: {}", written.error().message());
  m_assessor.emplace(std::move(*scan), *m_binder);
  return true;
}

}  // namespace aaw::cli
