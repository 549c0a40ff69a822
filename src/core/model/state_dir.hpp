// Every path under state_dir, named once. Nothing else spells a file name of the state directory.
//
//   state.db            the state store (SQLite, WAL)
//   cache.db            answers kept between runs (consumer files' scans, ops registered at a commit)
//   events.jsonl        one event a line
//   mirrors/            one bare mirror per repository URL
//   work/               the runtime source's work tree
//   venv/               the runtime source's virtual environment
//   sandbox/            HOME, TMPDIR and the extraction child's request and result files
//   logs/               build and extraction logs of the newest commits
//   last_build.json     what the last successful build was
//   sandbox.json        which sandbox confines builds and imports, and how (for `status`)
//   runtime.lock        one runtime extraction at a time
//   writer.lock         one writer (watch, replay) at a time; holds the writer's PID
#pragma once

#include <filesystem>

namespace aaw {

class StateDir {
 public:
  explicit StateDir(std::filesystem::path root) : m_root(std::move(root)) {}

  const std::filesystem::path& root() const { return m_root; }
  std::filesystem::path database() const { return m_root / "state.db"; }
  std::filesystem::path cache() const { return m_root / "cache.db"; }
  std::filesystem::path events() const { return m_root / "events.jsonl"; }
  std::filesystem::path mirrors() const { return m_root / "mirrors"; }
  std::filesystem::path work_tree() const { return m_root / "work"; }
  std::filesystem::path venv() const { return m_root / "venv"; }
  std::filesystem::path sandbox() const { return m_root / "sandbox"; }
  std::filesystem::path logs() const { return m_root / "logs"; }
  std::filesystem::path last_build() const { return m_root / "last_build.json"; }
  std::filesystem::path sandbox_mode() const { return m_root / "sandbox.json"; }
  std::filesystem::path runtime_lock() const { return m_root / "runtime.lock"; }
  std::filesystem::path writer_lock() const { return m_root / "writer.lock"; }
  // The consumer given as a repository: its checkout, and the last scan of its call sites.
  std::filesystem::path consumer_tree() const { return m_root / "consumer" / "tree"; }
  std::filesystem::path consumer_scan() const { return m_root / "consumer" / "scan.json"; }

  // The same directory as an absolute, normal path: for paths handed to children whose working
  // directory is elsewhere.
  StateDir absolute() const { return StateDir(std::filesystem::absolute(m_root).lexically_normal()); }

 private:
  std::filesystem::path m_root;
};

}  // namespace aaw
