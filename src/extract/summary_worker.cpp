#include "aaw/extract/summary_worker.hpp"

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace aaw {
namespace {

// Blobs already sent are not parsed again; the set starts over past this many (a daemon's
// history is unbounded, and a repeat costs one parse).
constexpr std::size_t k_sent_limit = std::size_t{1} << 16;

class SummaryWorker {
 public:
  SummaryWorker(GitMirror& repository, StaticExtractor& extractor, std::ostream& out)
      : m_repository(repository), m_extractor(extractor), m_out(out) {}

  bool command(const std::string& line) {
    const auto space = line.find(' ');
    if (space == std::string::npos) return false;
    const std::string verb = line.substr(0, space);
    const std::string argument = line.substr(space + 1);
    if (verb == "base") return base(ObjectId{argument});
    if (verb == "watch") return watch(argument);
    if (verb == "commit") return commit(ObjectId{argument});
    return false;
  }

 private:
  bool base(const ObjectId& commit) {
    m_tree = open(commit);
    for (Directory& dir : m_directories) {
      dir.id = directory_id(dir.path);
      for (auto& [path, blob] : dir.files) blob = blob_at(path);
    }
    return true;
  }

  bool watch(const std::string& path) {
    if (!m_watched.insert(path).second) return true;
    const std::string dir = split_tree_path(path).first;
    auto known = m_directory_index.find(dir);
    if (known == m_directory_index.end()) {
      known = m_directory_index.emplace(dir, m_directories.size()).first;
      m_directories.push_back({dir, directory_id(dir), {}});
    }
    m_directories[known->second].files.emplace_back(path, blob_at(path));
    return true;
  }

  // The files that changed since the commit before (under directories whose id changed only).
  bool commit(const ObjectId& commit) {
    m_tree = open(commit);
    std::vector<ObjectId> changed;
    for (Directory& dir : m_directories) {
      std::optional<ObjectId> id = directory_id(dir.path);
      if (id && id == dir.id) continue;
      dir.id = id;
      for (auto& [path, last] : dir.files) {
        std::optional<ObjectId> now = blob_at(path);
        if (now == last) continue;
        last = now;
        if (now && !m_sent.contains(now->hex)) changed.push_back(*now);
      }
    }
    if (!changed.empty() && m_tree) send(changed);
    m_out << "done " << commit.hex << '\n';
    m_out.flush();
    return static_cast<bool>(m_out);
  }

  // One at a time, each sent as soon as it is made: the replay may be waiting for it.
  void send(const std::vector<ObjectId>& blobs) {
    for (const ObjectId& blob : blobs) {
      auto made = m_extractor.pickled_summary(*m_tree, blob);
      if (!made || !*made) continue;  // the main process parses it itself
      if (m_sent.size() >= k_sent_limit) m_sent.clear();
      const PickledSummary& summary = **made;
      m_out << "summary " << blob.hex << ' ' << summary.characters << ' ' << summary.pickled.size() << '\n';
      m_out.write(summary.pickled.data(), static_cast<std::streamsize>(summary.pickled.size()));
      m_out.flush();
      m_sent.insert(blob.hex);
    }
  }

  std::unique_ptr<SourceTree> open(const ObjectId& commit) {
    auto tree = m_repository.tree(commit);
    return tree ? std::move(*tree) : nullptr;
  }

  std::optional<ObjectId> directory_id(const std::string& dir) {
    if (!m_tree) return std::nullopt;
    auto id = m_tree->directory_id(dir);
    return id ? *id : std::nullopt;
  }

  std::optional<ObjectId> blob_at(const std::string& path) {
    if (!m_tree) return std::nullopt;
    auto blob = m_tree->find_blob(path);
    return blob ? *blob : std::nullopt;
  }

  GitMirror& m_repository;
  StaticExtractor& m_extractor;
  std::ostream& m_out;
  std::unique_ptr<SourceTree> m_tree;  // of the commit the walk is at; nullptr when unreadable
  // The watched files by directory, with the ids where the walk is.
  struct Directory {
    std::string path;
    std::optional<ObjectId> id;
    std::vector<std::pair<std::string, std::optional<ObjectId>>> files;
  };
  std::vector<Directory> m_directories;  // in the order first watched
  std::unordered_map<std::string, std::size_t> m_directory_index;
  std::unordered_set<std::string> m_watched;
  std::unordered_set<std::string> m_sent;
};

}  // namespace

int run_summary_worker(GitMirror& repository, StaticExtractor& extractor, std::istream& in,
                       std::ostream& out) {
  SummaryWorker worker(repository, extractor, out);
  for (std::string line; std::getline(in, line);) {
    if (!worker.command(line)) return 2;
  }
  return 0;
}

}  // namespace aaw
