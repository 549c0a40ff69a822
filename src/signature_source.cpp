#include "aaw/signature_source.hpp"

namespace aaw {
namespace {

// What the tree holds at the place `probe` looked: the same kind of probe, answered now.
std::optional<PathProbe> probe_now(SourceTree& tree, const PathProbe& probe) {
  PathProbe now{probe.path, std::nullopt, std::nullopt};
  if (probe.directory) {
    auto is_dir = tree.is_directory(probe.path);
    if (!is_dir) return std::nullopt;
    now.directory = *is_dir;
  } else {
    auto blob = tree.find_blob(probe.path);
    if (!blob) return std::nullopt;
    now.blob = *blob;
  }
  return now;
}

}  // namespace

bool IncrementalStaticSource::unchanged(SourceTree& tree, const Memo& memo,
                                        std::map<std::string, PathProbe>& seen) {
  for (const PathProbe& probe : memo.consulted) {
    // Many functions consult the same files (a package's __init__.py): look each up once.
    std::string key = (probe.directory ? "d:" : "f:") + probe.path;
    auto it = seen.find(key);
    if (it == seen.end()) {
      auto now = probe_now(tree, probe);
      if (!now) return false;  // unreadable: let the resolver report it
      it = seen.emplace(key, *now).first;
    }
    if (!(it->second == probe)) return false;
  }
  return true;
}

Result<std::vector<SignatureState>> IncrementalStaticSource::extract(
    const ObjectId& commit, const std::vector<MonitoredFunction>& functions) {
  auto tree = m_mirror.tree(commit);
  if (!tree) return tree.error();
  std::vector<SignatureState> states(functions.size());
  std::vector<MonitoredFunction> stale;
  std::vector<std::size_t> stale_index;
  std::map<std::string, PathProbe> seen;
  for (std::size_t i = 0; i < functions.size(); ++i) {
    auto memo = m_memo.find({functions[i].import_statement, functions[i].function_path});
    if (memo != m_memo.end() && unchanged(**tree, memo->second, seen)) {
      states[i] = memo->second.state;
      ++m_reused;
    } else {
      stale.push_back(functions[i]);
      stale_index.push_back(i);
    }
  }
  if (stale.empty()) return states;
  auto extractions = m_extractor.extract(**tree, stale);
  if (!extractions) return extractions.error();
  for (std::size_t j = 0; j < stale.size(); ++j) {
    Extraction& e = (*extractions)[j];
    Key key{stale[j].import_statement, stale[j].function_path};
    // A failure of the machinery says nothing about the code: never reuse it.
    if (is_machinery_failure(e.state.status)) {
      m_memo.erase(key);
    } else {
      m_memo[key] = Memo{e.state, std::move(e.consulted)};
    }
    states[stale_index[j]] = std::move(e.state);
  }
  m_resolved += stale.size();
  return states;
}

}  // namespace aaw
