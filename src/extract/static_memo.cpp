#include "aaw/extract/static_memo.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <unordered_map>

#include "aaw/extract/source_registry.hpp"

namespace aaw {
// One commit's tree, with every answer cached: many functions consult the same files and
// directories (a package's __init__.py), so each is looked up once per commit.
class IncrementalStaticSource::CommitView {
 public:
  explicit CommitView(SourceTree& tree) : m_tree(tree) {}

  SourceTree& tree() { return m_tree; }
  bool has_directory_ids() const { return m_tree.has_directory_ids(); }

  // What the tree holds where `probe` looked, asked the same way; nullopt when unreadable.
  std::optional<PathProbe> probe_now(const PathProbe& probe) {
    auto& answers = probe.directory ? m_directory_probes : m_file_probes;
    if (auto it = answers.find(probe.path); it != answers.end()) return it->second;
    PathProbe now{probe.path, std::nullopt, std::nullopt};
    if (probe.directory) {
      auto is_dir = m_tree.is_directory(probe.path);
      if (!is_dir) return std::nullopt;
      now.directory = *is_dir;
    } else {
      auto blob = m_tree.find_blob(probe.path);
      if (!blob) return std::nullopt;
      now.blob = *blob;
    }
    return answers.emplace(probe.path, now).first->second;
  }

  Result<std::optional<ObjectId>> directory_id(const std::string& dir) {
    if (auto it = m_directories.find(dir); it != m_directories.end()) return it->second;
    auto id = m_tree.directory_id(dir);
    if (!id) return id.error();
    return m_directories.emplace(dir, *id).first->second;
  }

  Result<const std::vector<std::string>*> changed(const ObjectId& before, const ObjectId& after) {
    auto key = std::make_pair(before, after);
    if (auto it = m_changes.find(key); it != m_changes.end()) return &it->second;
    auto names = m_tree.changed_entries(before, after);
    if (!names) return names.error();
    return &m_changes.emplace(key, std::move(*names)).first->second;
  }

  // Answers known for this tree, to spare the resolver its questions.
  std::vector<PathProbe> known() const {
    std::vector<PathProbe> out;
    for (const auto& [path, probe] : m_file_probes) out.push_back(probe);
    for (const auto& [path, probe] : m_directory_probes) out.push_back(probe);
    return out;
  }
  void remember(const PathProbe& probe) {
    (probe.directory ? m_directory_probes : m_file_probes).emplace(probe.path, probe);
  }

 private:
  SourceTree& m_tree;
  std::unordered_map<std::string, PathProbe> m_file_probes;
  std::unordered_map<std::string, PathProbe> m_directory_probes;
  std::unordered_map<std::string, std::optional<ObjectId>> m_directories;
  std::map<std::pair<ObjectId, ObjectId>, std::vector<std::string>> m_changes;
};

IncrementalStaticSource::Memo IncrementalStaticSource::make_memo(Extraction extraction, CommitView& view) {
  Memo memo{std::move(extraction.state), {}, m_generation};
  for (PathProbe& probe : extraction.consulted) {
    auto [dir, name] = split_tree_path(probe.path);
    view.remember(probe);
    memo.directories[dir].probes[name].push_back(std::move(probe));
  }
  for (auto& [dir, watch] : memo.directories) {
    auto id =
        view.has_directory_ids() ? view.directory_id(dir) : Result<std::optional<ObjectId>>(std::nullopt);
    watch.id = id ? *id : std::nullopt;
    if (id && view.has_directory_ids()) {
      m_watched.emplace(dir, *id);
    } else {
      memo.checked = 0;  // never checked by the watched directories alone
    }
  }
  return memo;
}

IncrementalStaticSource::Verdict IncrementalStaticSource::check(Memo& memo, CommitView& view,
                                                                Pending& pending) {
  for (auto& [dir, watch] : memo.directories)
    if (!check_directory(dir, watch, view, pending)) return Verdict::stale;
  return conclude(memo, pending);
}

// Only the directories that changed since the last extraction, which this memo was checked at: the
// others hold what they held then.
IncrementalStaticSource::Verdict IncrementalStaticSource::check_changed(
    Memo& memo, const std::vector<std::string>& changed, CommitView& view, Pending& pending) {
  for (const std::string& dir : changed) {
    auto watch = memo.directories.find(dir);
    if (watch != memo.directories.end() && !check_directory(dir, watch->second, view, pending))
      return Verdict::stale;
  }
  return conclude(memo, pending);
}

IncrementalStaticSource::Verdict IncrementalStaticSource::conclude(Memo& memo, Pending& pending) {
  if (!pending.changed.empty()) return Verdict::pending;
  for (auto& [dir, id] : pending.directory_ids) memo.directories[dir].id = id;
  memo.checked = m_generation;
  return Verdict::valid;
}

// False when the probes under `dir` no longer hold (or cannot be read).
bool IncrementalStaticSource::check_directory(const std::string& dir, DirectoryWatch& watch, CommitView& view,
                                              Pending& pending) {
  const std::vector<std::string>* changed_names = nullptr;  // null: compare every probe
  if (view.has_directory_ids()) {
    auto now = view.directory_id(dir);
    if (!now) return false;
    pending.directory_ids[dir] = *now;
    if (watch.id && *now == watch.id) return true;  // nothing under it changed
    if (watch.id && *now) {
      auto names = view.changed(*watch.id, **now);
      if (!names) return false;
      changed_names = *names;
    }
  }
  return compare_probes(watch, changed_names, view, pending);
}

// The watched directories whose id differs from the last extraction's, all of them brought up to
// date; nullopt when the last extraction's ids are not known for every one of them (then each memo
// is checked in full).
std::optional<std::vector<std::string>> IncrementalStaticSource::changed_directories(CommitView& view) {
  bool known = view.has_directory_ids() && m_watched_generation + 1 == m_generation;
  std::vector<std::string> changed;
  m_watched_generation = view.has_directory_ids() ? m_generation : 0;
  for (auto& [dir, id] : m_watched) {
    auto now =
        view.has_directory_ids() ? view.directory_id(dir) : Result<std::optional<ObjectId>>(std::nullopt);
    if (!now) {
      m_watched_generation = 0;
      return std::nullopt;
    }
    if (*now != id) {
      changed.push_back(dir);
      id = *now;
    }
  }
  if (!known) return std::nullopt;
  return changed;
}

// Compares the probes of one directory (only those named in `changed_names` when given) with
// the tree. A file still there under another blob may resolve alike: its digest will decide.
bool IncrementalStaticSource::compare_probes(DirectoryWatch& watch,
                                             const std::vector<std::string>* changed_names, CommitView& view,
                                             Pending& pending) {
  auto compare = [&](PathProbe& probe) {
    auto now = view.probe_now(probe);
    if (!now) return false;
    if (*now == probe) return true;
    if (!probe.digest || !probe.blob || !now->blob) return false;
    pending.changed.emplace_back(&probe, *now->blob);
    return true;
  };
  if (!changed_names) {
    for (auto& [name, probes] : watch.probes)
      for (PathProbe& probe : probes)
        if (!compare(probe)) return false;
    return true;
  }
  for (const std::string& name : *changed_names) {
    auto it = watch.probes.find(name);
    if (it == watch.probes.end()) continue;
    for (PathProbe& probe : it->second)
      if (!compare(probe)) return false;
  }
  return true;
}

Result<std::vector<std::size_t>> IncrementalStaticSource::settle(std::vector<Pending>& pending,
                                                                 CommitView& view,
                                                                 std::vector<SignatureState>& states) {
  std::vector<StaticExtractor::DigestQuery> queries;
  for (const Pending& p : pending)
    for (const auto& [probe, blob] : p.changed) queries.push_back({blob, &probe->digest_names});
  auto digests = m_extractor.digests(view.tree(), queries);
  if (!digests) return digests.error();
  std::vector<std::size_t> stale;
  std::size_t next = 0;
  for (Pending& p : pending) {
    bool same = true;
    for (const auto& [probe, blob] : p.changed) same = (*digests)[next++] == *probe->digest && same;
    if (!same) {
      stale.push_back(p.index);
      continue;
    }
    for (auto& [probe, blob] : p.changed) probe->blob = blob;  // same API, new content
    for (auto& [dir, id] : p.directory_ids) p.memo->directories[dir].id = id;
    p.memo->checked = m_generation;
    states[p.index] = p.memo->state;
    ++m_reused;
  }
  return stale;
}

void IncrementalStaticSource::share_unchanged(const Memo& memo, CommitView& view) {
  if (!view.has_directory_ids()) return;
  for (const auto& [dir, watch] : memo.directories) {
    auto now = view.directory_id(dir);
    if (!now || !watch.id || *now != watch.id) continue;
    // The directory did not change, so neither did these answers.
    for (const auto& [name, probes] : watch.probes)
      for (const PathProbe& probe : probes) view.remember(probe);
  }
}

Result<std::vector<SignatureState>> IncrementalStaticSource::extract(
    const ObjectId& commit, const std::vector<MonitoredFunction>& functions) {
  auto tree = m_mirror.tree(commit);
  if (!tree) return tree.error();
  CommitView view(**tree);
  ++m_generation;
  auto changed = changed_directories(view);
  std::vector<SignatureState> states(functions.size());
  std::vector<std::size_t> stale_index;
  std::vector<Pending> pending;
  for (std::size_t i = 0; i < functions.size(); ++i) {
    auto memo = m_memo.find({functions[i].import_statement, functions[i].function_path});
    Pending candidate{i, memo == m_memo.end() ? nullptr : &memo->second, {}, {}};
    Verdict verdict = !candidate.memo ? Verdict::stale
                      : changed && candidate.memo->checked + 1 == m_generation
                          ? check_changed(*candidate.memo, *changed, view, candidate)
                          : check(*candidate.memo, view, candidate);
    if (verdict == Verdict::valid) {
      states[i] = memo->second.state;
      ++m_reused;
    } else if (verdict == Verdict::pending) {
      pending.push_back(std::move(candidate));
    } else {
      if (candidate.memo) share_unchanged(*candidate.memo, view);
      stale_index.push_back(i);
    }
  }
  if (!pending.empty()) {
    auto also_stale = settle(pending, view, states);
    if (!also_stale) return also_stale.error();
    stale_index.insert(stale_index.end(), also_stale->begin(), also_stale->end());
  }
  if (stale_index.empty()) return states;
  std::vector<MonitoredFunction> stale;
  for (std::size_t i : stale_index) stale.push_back(functions[i]);
  auto extractions = m_extractor.extract(view.tree(), stale, view.known());
  if (!extractions) return extractions.error();
  for (std::size_t j = 0; j < stale.size(); ++j) {
    Extraction& e = (*extractions)[j];
    Key key{stale[j].import_statement, stale[j].function_path};
    states[stale_index[j]] = e.state;
    // A failure of the machinery says nothing about the code: never reuse it.
    if (is_machinery_failure(e.state.status)) {
      m_memo.erase(key);
    } else {
      m_memo[key] = make_memo(std::move(e), view);
    }
  }
  m_resolved += stale.size();
  return states;
}

std::string IncrementalStaticSource::work_summary() const {
  std::string summary = fmt::format(
      "Static extraction: {} function states resolved in Python, {} reused unchanged", m_resolved, m_reused);
  auto stats = m_extractor.parse_stats();
  if (stats)
    summary +=
        fmt::format("; {} module parses of {} distinct blobs ({} of skeletons, {} function bodies checked)",
                    stats->parses, stats->distinct_blobs, stats->skeletons, stats->bodies_parsed);
  return summary;
}

SourceKind static_source_kind() {
  return {"static",
          "read each commit's files from git and resolve signatures with Python's ast (the default)",
          [](const Config& config, SourceDeps& deps) -> Result<std::unique_ptr<SignatureSource>> {
            return std::unique_ptr<SignatureSource>(std::make_unique<IncrementalStaticSource>(
                deps.mirror, deps.python(), config.static_extraction));
          }};
}

}  // namespace aaw
