#include "extract/static/incremental_static_source.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "extract/source_registry.hpp"

namespace aaw {

// Functions resolved in one call to Python at most (see examine).
constexpr std::size_t k_resolution_batch = 64;
// Ranges of fewer commits are not parsed ahead (a daemon's poll finds a handful): starting the
// helper's interpreter would cost more than it saves.
constexpr std::size_t k_parse_ahead_from = 32;

namespace {
// 0, 1, ..., count - 1: every function of a list.
std::vector<std::size_t> every_position(std::size_t count) {
  std::vector<std::size_t> positions(count);
  std::iota(positions.begin(), positions.end(), std::size_t{0});
  return positions;
}
// The directory `dir` is in ("" for one at the root).
std::string_view parent_of(std::string_view dir) {
  auto slash = dir.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : dir.substr(0, slash);
}
}  // namespace

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
      if (now.blob) {
        auto link = m_tree.is_link(probe.path);
        if (!link) return std::nullopt;
        now.link = *link;
      }
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
  for (auto& [dir, watch] : memo.directories) watch_new_directory(memo, dir, watch, view);
  return memo;
}

// Gives a directory new to `memo` its id now, and watches it.
void IncrementalStaticSource::watch_new_directory(Memo& memo, const std::string& dir, DirectoryWatch& watch,
                                                  CommitView& view) {
  auto id = view.has_directory_ids() ? view.directory_id(dir) : Result<std::optional<ObjectId>>(std::nullopt);
  watch.id = id ? *id : std::nullopt;
  if (id && view.has_directory_ids()) {
    watch_directory(dir, *id, view);
  } else {
    memo.checked = 0;  // never checked by the watched directories alone
  }
}

// Watches `dir` (at `id` now) and every directory above it, so that changed_directories can skip
// what lies under a directory that did not change.
void IncrementalStaticSource::watch_directory(const std::string& dir, const std::optional<ObjectId>& id,
                                              CommitView& view) {
  if (!m_watched.emplace(dir, id).second || dir.empty()) return;
  std::string parent = split_tree_path(dir).first;
  auto parent_id = view.directory_id(parent);
  if (parent_id) watch_directory(parent, *parent_id, view);
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
// is checked in full). `before`, when given, receives each changed directory's id at the last
// extraction, in the same order.
std::optional<std::vector<std::string>> IncrementalStaticSource::changed_directories(
    CommitView& view, std::vector<std::optional<ObjectId>>* before) {
  bool known = view.has_directory_ids() && m_watched_generation + 1 == m_generation;
  std::vector<std::string> changed;
  m_watched_generation = view.has_directory_ids() ? m_generation : 0;
  // Directories come before those under them, and each has its parent watched: under one whose
  // id is what it was at the last extraction nothing changed. Only when every id is of that one
  // extraction: an id kept from an older one says nothing of what lies under it since.
  std::unordered_set<std::string_view> unchanged;
  for (auto& [dir, id] : m_watched) {
    if (known && !dir.empty() && unchanged.contains(parent_of(dir))) {
      unchanged.insert(dir);
      continue;
    }
    auto now =
        view.has_directory_ids() ? view.directory_id(dir) : Result<std::optional<ObjectId>>(std::nullopt);
    if (!now) {
      m_watched_generation = 0;
      return std::nullopt;
    }
    if (*now != id) {
      changed.push_back(dir);
      if (before) before->push_back(id);
      id = *now;
    } else {
      unchanged.insert(dir);
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
    // A link is never read: its text is no module, whatever digest it would give.
    if (!probe.digest || !probe.blob || !now->blob || now->link || probe.link) return false;
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

// The positions of the functions in `pending` whose memo no longer holds once the changed files'
// digests are known; the others are brought up to date.
Result<std::vector<std::size_t>> IncrementalStaticSource::settle(std::vector<Pending>& pending,
                                                                 CommitView& view) {
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
    ++m_work.reused;
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

IncrementalStaticSource::Verdict IncrementalStaticSource::verdict(
    Memo* memo, CommitView& view, const std::optional<std::vector<std::string>>& changed, bool current,
    Pending& pending) {
  if (!memo) return Verdict::stale;
  if (changed && (current || memo->checked + 1 == m_generation))
    return check_changed(*memo, *changed, view, pending);
  return check(*memo, view, pending);
}

// Checks the memos of the functions at `positions` against this commit and resolves again those
// that no longer hold, returning their states by position; the others still hold their memo's
// state. `indexed`: `functions` are the last extraction's, whose index is kept up to date here.
Result<IncrementalStaticSource::Resolved> IncrementalStaticSource::examine(
    CommitView& view, const std::vector<MonitoredFunction>& functions,
    const std::vector<std::size_t>& positions, const std::optional<std::vector<std::string>>& changed,
    bool indexed) {
  // Every memo of the last extraction's functions held there (checked then or untouched since).
  bool all_current = indexed && m_all_current + 1 == m_generation;
  std::vector<std::size_t> stale;
  std::vector<Pending> pending;
  for (std::size_t i : positions) {
    Memo* memo = nullptr;
    if (indexed) {
      memo = m_positions[i];
    } else if (auto found = m_memo.find({functions[i].import_statement, functions[i].function_path});
               found != m_memo.end()) {
      memo = &found->second;
    }
    Pending candidate{i, memo, {}, {}};
    Verdict v = verdict(memo, view, changed, all_current, candidate);
    if (v == Verdict::valid) {
      ++m_work.reused;
    } else if (v == Verdict::pending) {
      pending.push_back(std::move(candidate));
    } else {
      if (memo) share_unchanged(*memo, view);
      stale.push_back(i);
    }
  }
  if (!pending.empty()) {
    auto also_stale = settle(pending, view);
    if (!also_stale) return also_stale.error();
    stale.insert(stale.end(), also_stale->begin(), also_stale->end());
  }
  Resolved resolved;
  // In batches: what one resolution call returns (every probe of every function, as Python
  // objects, then JSON, then memos) is held at once, and an edit every function reads through (a
  // package's star imports) would make that the run's peak of memory.
  for (std::size_t first = 0; first < stale.size(); first += k_resolution_batch) {
    std::size_t end = std::min(stale.size(), first + k_resolution_batch);
    std::vector<MonitoredFunction> asked;
    for (std::size_t j = first; j < end; ++j) asked.push_back(functions[stale[j]]);
    auto extractions = m_extractor.extract(view.tree(), asked, view.known());
    if (!extractions) return extractions.error();
    for (std::size_t j = first; j < end; ++j) {
      Cost& cost = m_costs[{asked[j - first].import_statement, asked[j - first].function_path}];
      ++cost.resolutions;
      cost.resolving += (*extractions)[j - first].seconds;
      resolved.emplace_back(stale[j], (*extractions)[j - first].state);
      replace_memo(asked[j - first], stale[j], std::move((*extractions)[j - first]), view, indexed);
    }
  }
  m_work.resolved += stale.size();
  std::sort(resolved.begin(), resolved.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return resolved;
}

// A failure of the machinery says nothing about the code: it is never reused.
void IncrementalStaticSource::replace_memo(const MonitoredFunction& function, std::size_t position,
                                           Extraction extraction, CommitView& view, bool indexed) {
  auto found = m_memo.find({function.import_statement, function.function_path});
  if (indexed && found != m_memo.end()) unwatch(position, found->second);
  Memo* memo = nullptr;
  if (is_machinery_failure(extraction.state.status)) {
    if (found != m_memo.end()) m_memo.erase(found);
  } else {
    Memo& slot = m_memo[{function.import_statement, function.function_path}];
    slot = make_memo(std::move(extraction), view);
    memo = &slot;
  }
  if (!indexed) return;
  m_positions[position] = memo;
  if (memo) watch(position, *memo);
}

IncrementalStaticSource::~IncrementalStaticSource() {
  if (m_prefetch) m_extractor.set_prefetch(nullptr);
}

void IncrementalStaticSource::parse_ahead(std::unique_ptr<SummaryPrefetch> prefetch) {
  m_prefetch = std::move(prefetch);
  m_extractor.set_prefetch(m_prefetch.get());
  m_entries_told = 0;
}

void IncrementalStaticSource::expect(const std::optional<ObjectId>& from,
                                     const std::vector<ObjectId>& commits) {
  if (!m_prefetch) return;
  m_expected_first.clear();
  if (commits.size() < k_parse_ahead_from) {
    m_prefetch->rest();  // a poll's few commits: not worth a second interpreter
    return;
  }
  if (m_entry_watchers.empty()) {
    // Nothing read yet, so nothing to parse ahead: it starts after the first extraction.
    m_expected_first = commits;
    return;
  }
  tell_prefetch();
  m_prefetch->expect(from, commits);
}

// After the first extraction of a range expected before anything was read: parsing ahead starts
// from it, with the files it read.
void IncrementalStaticSource::start_prefetch_after(const ObjectId& commit) {
  if (m_expected_first.empty()) return;
  std::vector<ObjectId> commits = std::move(m_expected_first);
  m_expected_first.clear();
  auto at = std::find(commits.begin(), commits.end(), commit);
  if (at == commits.end() || m_entry_watchers.empty()) return;
  m_prefetch->expect(commit, std::vector<ObjectId>(at + 1, commits.end()));
}

// An entry's key stays in m_entry_watchers until reindex clears the whole index (which sets
// m_entries_told back to 0), so a size that changed means new entries.
void IncrementalStaticSource::tell_prefetch() {
  if (!m_prefetch || m_entry_watchers.size() == m_entries_told) return;
  m_entries_told = m_entry_watchers.size();
  std::vector<std::string> modules;
  for (const auto& [path, flags] : m_entry_watchers)
    if (path.ends_with(".py")) modules.push_back(path);
  std::sort(modules.begin(), modules.end());  // the same order every run
  m_prefetch->watch(modules);
}

Result<std::vector<SignatureState>> IncrementalStaticSource::extract(
    const ObjectId& commit, const std::vector<MonitoredFunction>& functions) {
  if (m_prefetch) m_prefetch->reach(commit);
  bool indexed = m_last_commit && functions == m_last_functions;
  m_last_commit.reset();  // until this extraction is complete
  m_inputs_changed.reset();
  auto tree = m_mirror.tree(commit);
  if (!tree) return tree.error();
  CommitView view(**tree);
  ++m_generation;
  auto changed = changed_directories(view);
  auto resolved = examine(view, functions, every_position(functions.size()), changed, indexed);
  if (!resolved) return resolved.error();
  std::vector<SignatureState> states(functions.size());
  auto next = resolved->begin();
  for (std::size_t i = 0; i < functions.size(); ++i) {
    if (next != resolved->end() && next->first == i) {
      states[i] = std::move((next++)->second);
    } else {
      states[i] = m_memo.at({functions[i].import_statement, functions[i].function_path}).state;
    }
  }
  reindex(commit, functions, indexed);
  if (m_prefetch) {
    tell_prefetch();
    start_prefetch_after(commit);  // with the files told just now
  }
  return states;
}

Result<std::vector<StateUpdate>> IncrementalStaticSource::advance(
    const ObjectId& from, const ObjectId& commit, const std::vector<MonitoredFunction>& functions,
    const std::vector<SignatureState>& states) {
  m_inputs_changed.reset();
  if (!continues(from, functions) || states.size() != functions.size())
    return SignatureSource::advance(from, commit, functions, states);
  if (m_prefetch) m_prefetch->reach(commit);
  m_last_commit.reset();  // until this extraction is complete
  auto tree = m_mirror.tree(commit);
  if (!tree) return tree.error();
  CommitView view(**tree);
  ++m_generation;
  std::vector<std::optional<ObjectId>> before;
  auto changed = changed_directories(view, &before);
  std::vector<std::size_t> positions;
  std::size_t kept_before = m_work.kept_by_stars;
  if (changed) {
    std::vector<char> watching(functions.size(), 0);
    auto started = std::chrono::steady_clock::now();
    auto found = concerned(*changed, before, view, watching);
    if (!found) return found.error();
    charge_checking(watching,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    positions = std::move(*found);
    std::vector<std::size_t> touched;
    for (std::size_t i = 0, k = 0; i < functions.size(); ++i) {
      const bool resolved = k < positions.size() && positions[k] == i;
      k += resolved;
      if (resolved || watching[i]) touched.push_back(i);
    }
    m_inputs_changed = std::move(touched);
  } else {
    positions = every_position(functions.size());
  }
  std::size_t untouched = functions.size() - positions.size();
  auto resolved = examine(view, functions, positions, changed, true);
  if (!resolved) return resolved.error();
  m_work.reused += untouched;
  m_work.untouched += untouched - (m_work.kept_by_stars - kept_before);
  reindex(commit, functions, true);
  tell_prefetch();
  std::vector<StateUpdate> updates;
  for (auto& [i, state] : *resolved)
    if (!(state == states[i])) updates.push_back({i, std::move(state)});
  return updates;
}

bool IncrementalStaticSource::continues(const ObjectId& from,
                                        const std::vector<MonitoredFunction>& functions) const {
  return m_last_commit && *m_last_commit == from && functions == m_last_functions;
}

// After an extraction of `functions` at `commit`: every memo of theirs holds there. The index is
// built again unless the extraction kept it up to date (`indexed`); a list that names one function
// twice is never indexed (two positions would share one memo).
void IncrementalStaticSource::reindex(const ObjectId& commit, const std::vector<MonitoredFunction>& functions,
                                      bool indexed) {
  m_all_current = m_generation;
  if (!indexed) {
    m_last_functions = functions;
    m_dir_watchers.clear();
    m_entry_watchers.clear();
    m_entries_told = 0;
    m_positions.assign(functions.size(), nullptr);
    m_position_costs.assign(functions.size(), nullptr);
    for (std::size_t i = 0; i < functions.size(); ++i)
      m_position_costs[i] = &m_costs[{functions[i].import_statement, functions[i].function_path}];
    std::map<const Memo*, std::size_t> seen;
    for (std::size_t i = 0; i < functions.size(); ++i) {
      auto found = m_memo.find({functions[i].import_statement, functions[i].function_path});
      if (found == m_memo.end()) continue;
      if (!seen.emplace(&found->second, i).second) {
        m_last_functions.clear();
        m_positions.clear();
        m_dir_watchers.clear();
        m_entry_watchers.clear();
        m_entries_told = 0;
        return;
      }
      m_positions[i] = &found->second;
      watch(i, found->second);
    }
  }
  m_last_commit = commit;
}

namespace {
std::string entry_path(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : dir + '/' + name;
}
void flag(std::unordered_map<std::string, std::vector<char>>& watchers, const std::string& key,
          std::size_t position, std::size_t size, char value) {
  std::vector<char>& flags = watchers[key];
  flags.resize(size);
  flags[position] = value;
}
void mark(const std::unordered_map<std::string, std::vector<char>>& watchers, const std::string& key,
          std::vector<char>& marked) {
  auto flags = watchers.find(key);
  if (flags == watchers.end()) return;
  for (std::size_t i = 0; i < flags->second.size(); ++i) marked[i] |= flags->second[i];
}
}  // namespace

void IncrementalStaticSource::watch(std::size_t position, const Memo& memo) {
  for (const auto& [dir, watch] : memo.directories) {
    flag(m_dir_watchers, dir, position, m_positions.size(), 1);
    for (const auto& [name, probes] : watch.probes)
      flag(m_entry_watchers, entry_path(dir, name), position, m_positions.size(), 1);
  }
}

void IncrementalStaticSource::unwatch(std::size_t position, const Memo& memo) {
  for (const auto& [dir, watch] : memo.directories) {
    flag(m_dir_watchers, dir, position, m_positions.size(), 0);
    for (const auto& [name, probes] : watch.probes)
      flag(m_entry_watchers, entry_path(dir, name), position, m_positions.size(), 0);
  }
}

// The probes `memo` made of the entry; null when it made none.
const std::vector<PathProbe>* IncrementalStaticSource::probes_of(const Memo& memo,
                                                                 const ChangedEntry& entry) {
  auto watch = memo.directories.find(entry.dir);
  if (watch == memo.directories.end()) return nullptr;
  auto probes = watch->second.probes.find(entry.name);
  return probes == watch->second.probes.end() ? nullptr : &probes->second;
}

// Whether every probe `memo` made of the entry `name` of `dir` reads the same now: a directory
// still a directory (what changed under it is probed apart), and in `blob`, the file there now, by
// its outline: a module asked only about names it does not bind, which it still does not bind
// under the same star imports. The probes the outline cannot answer for (pseudo-names,
// names the module binds) are added to `ask`. A change of that entry that holds cannot concern the
// function.
IncrementalStaticSource::Holds IncrementalStaticSource::holds_by_outline(const Memo& memo,
                                                                         const ChangedEntry& entry,
                                                                         Asking& asking) {
  const std::vector<PathProbe>* probes = probes_of(memo, entry);
  if (!probes) return Holds::no;
  for (const PathProbe& probe : *probes) {
    if (probe.directory) {  // still a directory, or still none: what is under it is probed apart
      if (!entry.directory || *probe.directory != *entry.directory) return Holds::no;
      continue;
    }
    if (!probe.blob || !probe.digest || !entry.blob || entry.link) return Holds::no;
    if (*probe.blob == *entry.blob) continue;
    auto digest = entry.outline ? entry.outline->digest(probe.digest_names) : std::nullopt;
    if (!digest) {
      asking.digests.push_back(&probe);
    } else if (*digest != *probe.digest) {
      if (!star_checkable(probe, entry)) return Holds::no;
      asking.stars.push_back(&probe);
    }
  }
  return asking.digests.empty() && asking.stars.empty() ? Holds::yes : Holds::ask;
}

// Whether a probe `memo` made of the entry could be answered by the outline of the file there
// now: one of a changed file, about names none of which starts with '<' but an identity (a
// packaging file's roots are asked of Python, and a file that is no module is never outlined).
bool IncrementalStaticSource::wants_outline(const Memo& memo, const ChangedEntry& entry) {
  const std::vector<PathProbe>* probes = probes_of(memo, entry);
  if (!probes || !entry.blob || entry.link) return false;
  for (const PathProbe& probe : *probes) {
    if (probe.directory || !probe.blob || !probe.digest || *probe.blob == *entry.blob) continue;
    const auto& names = probe.digest_names;
    if (!names.empty() && std::none_of(names.begin(), names.end(), [](const std::string& name) {
          return bare_name(name).starts_with('<');
        }))
      return true;
  }
  return false;
}

// The entries of the `changed` directories that differ from the last extraction and that some
// memo read, each with the file there now and its outline; every function watching a directory
// that appeared or went is marked in `marked` instead.
Result<std::vector<IncrementalStaticSource::ChangedEntry>> IncrementalStaticSource::changed_entries(
    const std::vector<std::string>& changed, const std::vector<std::optional<ObjectId>>& before,
    CommitView& view, std::vector<char>& marked) {
  std::vector<ChangedEntry> entries;
  for (std::size_t d = 0; d < changed.size(); ++d) {
    const std::string& dir = changed[d];
    auto now = view.directory_id(dir);
    if (!now) return now.error();
    if (!before[d] || !*now) {
      mark(m_dir_watchers, dir, marked);
      continue;
    }
    auto names = view.changed(*before[d], **now);
    if (!names) return names.error();
    for (const std::string& name : **names) {
      std::string path = entry_path(dir, name);
      if (!m_entry_watchers.contains(path)) continue;
      auto file = view.probe_now(PathProbe{path, std::nullopt, std::nullopt});
      auto directory = view.probe_now(PathProbe{path, std::nullopt, true});
      entries.push_back({dir, name, std::move(path), file ? file->blob : std::nullopt, file && file->link,
                         directory ? directory->directory : std::nullopt, nullptr});
    }
  }
  return entries;
}

// The probes an outline could not answer for, each distinct set of names asked once (every
// function asks a packaging file the same): a function whose probe reads otherwise now is marked.
// Without the digests, every one of them is.
void IncrementalStaticSource::settle_by_digests(std::vector<Asking>& asking, CommitView& view,
                                                std::vector<char>& marked) {
  std::vector<StaticExtractor::DigestQuery> queries;
  std::unordered_map<std::string, std::size_t> query_of;  // blob and names -> query
  std::vector<std::vector<std::size_t>> queries_of(asking.size());
  for (std::size_t k = 0; k < asking.size(); ++k) {
    const ObjectId& blob = *asking[k].entry->blob;
    for (const PathProbe* probe : asking[k].digests) {
      std::string key = blob.hex;
      for (const std::string& name : probe->digest_names) key += '\n' + name;
      auto [at, added] = query_of.emplace(std::move(key), queries.size());
      if (added) queries.push_back({blob, &probe->digest_names});
      queries_of[k].push_back(at->second);
    }
  }
  if (queries.empty()) return;
  auto digests = m_extractor.digests_of_sets(view.tree(), queries);
  for (std::size_t k = 0; k < asking.size(); ++k) {
    Asking& a = asking[k];
    for (std::size_t j = 0; j < a.digests.size() && !marked[a.position]; ++j) {
      if (digests && (*digests)[queries_of[k][j]] == *a.digests[j]->digest) continue;
      if (digests && star_checkable(*a.digests[j], *a.entry)) {
        a.stars.push_back(a.digests[j]);  // names it binds: its star imports may still have only grown
      } else {
        marked[a.position] = 1;
      }
    }
  }
}

// Whether a probe whose digest changed may still hold by a check of the star imports its module
// added: it asks names of a module not known not to parse (which names the check can vouch for,
// Python says: aaw_summary.StarDelta).
bool IncrementalStaticSource::star_checkable(const PathProbe& probe, const ChangedEntry& entry) {
  return (!entry.outline || entry.outline->parsed()) && !probe.digest_names.empty();
}

// The functions left in doubt by a module that no longer reads the same for names it does not
// bind: when its new version only adds star imports, none of which binds a name the function
// asked (Python checks each module once for all of them), what the function resolves to is
// unchanged, and its memo takes what the check read instead of a resolution. The others are
// marked. One edit of a package's star imports costs one check, not one resolution per function
// imported through it.
void IncrementalStaticSource::settle_by_stars(const std::vector<Asking>& asking, CommitView& view,
                                              std::vector<char>& marked) {
  struct Place {
    const PathProbe* probe;
    std::size_t check, ask;
  };
  std::vector<StaticExtractor::StarCheck> checks;
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> check_of;  // path, before, after
  std::map<std::size_t, std::vector<Place>> places;                                   // by position
  for (const Asking& a : asking) {
    if (a.stars.empty() || marked[a.position]) continue;
    for (const PathProbe* probe : a.stars) {
      auto [at, added] = check_of.emplace(
          std::make_tuple(a.entry->path, probe->blob->hex, a.entry->blob->hex), checks.size());
      if (added) checks.push_back({a.entry->path, *probe->blob, *a.entry->blob, {}});
      places[a.position].push_back({probe, at->second, checks[at->second].asks.size()});
      checks[at->second].asks.push_back(&probe->digest_names);
    }
  }
  if (checks.empty()) return;
  auto answers = m_extractor.star_additions(view.tree(), checks);
  if (!answers) {
    if (m_work.failed_star_checks++ == 0) m_work.first_star_check_failure = answers.error().message();
  }
  for (const auto& [position, found] : places) {
    if (marked[position]) continue;
    std::vector<StarAnswer> kept;
    for (const Place& place : found) {
      if (!answers || !(*answers)[place.check][place.ask]) break;
      kept.emplace_back(place.probe, &*(*answers)[place.check][place.ask]);
    }
    if (kept.size() != found.size()) {
      marked[position] = 1;
      continue;
    }
    Memo& memo = *m_positions[position];
    unwatch(position, memo);
    take_star_answers(memo, kept, view);
    watch(position, memo);
    ++m_work.kept_by_stars;
  }
}

// In place: an edit of a package's __init__ keeps thousands of memos this way, each with dozens of
// probes, and copying them cost more than the check itself (docs/performance.md, "Star-import checks").
void IncrementalStaticSource::take_star_answers(Memo& memo, const std::vector<StarAnswer>& answers,
                                                CommitView& view) {
  std::unordered_set<const PathProbe*> answered;
  std::vector<std::vector<PathProbe>*> lists;  // those holding an answered probe, each once
  for (const auto& [probe, read] : answers) {
    answered.insert(probe);
    auto [dir, name] = split_tree_path(probe->path);
    auto watch = memo.directories.find(dir);
    if (watch == memo.directories.end()) continue;
    auto list = watch->second.probes.find(name);
    if (list != watch->second.probes.end() &&
        std::find(lists.begin(), lists.end(), &list->second) == lists.end())
      lists.push_back(&list->second);
  }
  // remove_if tests each probe where it was, before anything is moved onto it.
  for (std::vector<PathProbe>* list : lists)
    std::erase_if(*list, [&](const PathProbe& probe) { return answered.count(&probe) > 0; });
  for (const auto& [probe, read] : answers)  // each probe is gone now: only what it read is used
    for (const PathProbe& added : *read) add_probe(memo, added, view);
}

// Adds `probe` to `memo` unless it holds the same already, watching its directory if new.
void IncrementalStaticSource::add_probe(Memo& memo, const PathProbe& probe, CommitView& view) {
  auto [dir, name] = split_tree_path(probe.path);
  auto [watch, added] = memo.directories.try_emplace(dir);
  if (added) watch_new_directory(memo, dir, watch->second, view);
  std::vector<PathProbe>& probes = watch->second.probes[name];
  for (const PathProbe& known : probes)
    if (known == probe && known.digest == probe.digest && known.digest_names == probe.digest_names) return;
  probes.push_back(probe);
}

// The positions whose memo read an entry of the `changed` directories that differs now from the
// last extraction in a way its outline cannot vouch for (every entry of a directory that appeared
// or went), and those without a memo. `watching` gets a flag for each position whose memo read a
// changed entry: those the time this took is charged to.
Result<std::vector<std::size_t>> IncrementalStaticSource::concerned(
    const std::vector<std::string>& changed, const std::vector<std::optional<ObjectId>>& before,
    CommitView& view, std::vector<char>& watching) {
  std::vector<char> marked(m_positions.size(), 0);
  auto entries = changed_entries(changed, before, view, marked);
  if (!entries) return entries.error();
  std::vector<ObjectId> blobs;
  std::vector<ChangedEntry*> outlined;
  for (ChangedEntry& entry : *entries) {
    const std::vector<char>& flags = m_entry_watchers.at(entry.path);
    for (std::size_t i = 0; i < flags.size() && i < watching.size(); ++i) watching[i] |= flags[i];
    for (std::size_t i = 0; i < flags.size(); ++i) {
      if (flags[i] && m_positions[i] && wants_outline(*m_positions[i], entry)) {
        blobs.push_back(*entry.blob);
        outlined.push_back(&entry);
        break;
      }
    }
  }
  // Without outlines every probe of a changed file is asked of Python: slower, as right.
  auto outlines = blobs.empty() ? Result<std::vector<ModuleOutline>>(std::vector<ModuleOutline>{})
                                : m_extractor.outlines(view.tree(), blobs);
  for (std::size_t k = 0; outlines && k < outlined.size(); ++k) outlined[k]->outline = &(*outlines)[k];
  std::vector<Asking> asking;
  for (ChangedEntry& entry : *entries) {
    const std::vector<char>& flags = m_entry_watchers.at(entry.path);
    for (std::size_t i = 0; i < flags.size(); ++i) {
      if (!flags[i] || marked[i]) continue;
      Asking ask{i, &entry, {}, {}};
      Holds holds = m_positions[i] ? holds_by_outline(*m_positions[i], entry, ask) : Holds::no;
      if (holds == Holds::no) marked[i] = 1;
      if (holds == Holds::ask) asking.push_back(std::move(ask));
    }
  }
  settle_by_digests(asking, view, marked);
  settle_by_stars(asking, view, marked);
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < marked.size(); ++i)
    if (marked[i] || !m_positions[i]) out.push_back(i);
  return out;
}

std::string IncrementalStaticSource::work_summary() const {
  std::string summary = fmt::format(
      "Static extraction: {} function states resolved in Python, {} reused unchanged ({} without a look: "
      "nothing they read changed, or only in names they do not ask about; {} kept through a check of the "
      "star "
      "imports a module added)",
      m_work.resolved, m_work.reused, m_work.untouched, m_work.kept_by_stars);
  if (m_work.failed_star_checks > 0)
    summary +=
        fmt::format("; {} star-import checks failed in Python, their functions resolved instead (first: {})",
                    m_work.failed_star_checks, m_work.first_star_check_failure);
  auto stats = m_extractor.parse_stats();
  if (stats)
    summary +=
        fmt::format("; {} module parses of {} distinct blobs ({} of skeletons, {} function bodies checked)",
                    stats->parses + (m_prefetch ? m_prefetch->made() : 0), stats->distinct_blobs,
                    stats->skeletons, stats->bodies_parsed);
  if (m_prefetch && (m_prefetch->made() > 0 || !m_prefetch->failure().empty())) {
    summary += fmt::format("; {} of the parses made ahead by a second process, {} of them used",
                           m_prefetch->made(), m_prefetch->taken());
    if (std::int64_t kb = m_prefetch->peak_rss_kb(); kb > 0)
      summary += fmt::format(", its peak RSS {} MB", kb / 1024);
    if (!m_prefetch->failure().empty()) summary += " (" + m_prefetch->failure() + ")";
  }
  return summary;
}

void IncrementalStaticSource::charge_checking(const std::vector<char>& watching, double seconds) {
  auto count = static_cast<double>(std::count(watching.begin(), watching.end(), 1));
  for (std::size_t i = 0; i < watching.size() && i < m_position_costs.size(); ++i) {
    if (!watching[i]) continue;
    ++m_position_costs[i]->checks;
    m_position_costs[i]->checking += seconds / count;
  }
}

std::string IncrementalStaticSource::cost_summary() const {
  constexpr std::size_t k_listed = 5;
  std::vector<std::pair<const Key*, const Cost*>> costs;
  for (const auto& [key, cost] : m_costs) costs.emplace_back(&key, &cost);
  if (costs.empty()) return "";
  std::size_t listed = std::min(k_listed, costs.size());
  const auto total = [](const Cost* cost) { return cost->resolving + cost->checking; };
  std::partial_sort(costs.begin(), costs.begin() + static_cast<std::ptrdiff_t>(listed), costs.end(),
                    [&](const auto& a, const auto& b) { return total(a.second) > total(b.second); });
  std::string line =
      "Costliest functions (resolving them, and checking the changed files they read, that time split "
      "among the functions reading each):";
  for (std::size_t i = 0; i < listed; ++i) {
    const Cost& cost = *costs[i].second;
    line += fmt::format("{} {} {:.2f} s ({} resolution{}, {} check{})", i == 0 ? "" : ",",
                        costs[i].first->second, total(&cost), cost.resolutions,
                        cost.resolutions == 1 ? "" : "s", cost.checks, cost.checks == 1 ? "" : "s");
  }
  return line;
}

SourceKind static_source_kind() {
  return {
      "static", "read each commit's files from git and resolve signatures with Python's ast (the default)",
      [](const Config& config, SourceDeps& deps) -> Result<std::unique_ptr<SignatureSource>> {
        auto source =
            std::make_unique<IncrementalStaticSource>(deps.mirror, deps.python(), config.static_extraction);
        if (deps.parse_ahead) source->parse_ahead(deps.parse_ahead());
        return std::unique_ptr<SignatureSource>(std::move(source));
      }};
}

}  // namespace aaw
