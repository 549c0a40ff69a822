#include "extract/static/summary_worker.hpp"

#include <algorithm>
#include <charconv>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/watch/parse_share.hpp"

namespace aaw {
namespace {

// Blobs already sent are not parsed again; the set starts over past this many (a daemon's
// history is unbounded, and a repeat costs one parse).
constexpr std::size_t k_sent_limit = std::size_t{1} << 16;

class SummaryWorker {
 public:
  SummaryWorker(GitMirror& repository, StaticExtractor& extractor, LineInput& in, std::ostream& out)
      : m_repository(repository), m_extractor(extractor), m_in(in), m_out(out) {}

  int run() {
    for (;;) {
      take_in();
      std::optional<std::string> line;
      if (!m_queue.empty()) {
        line = std::move(m_queue.front());
        m_queue.pop_front();
      } else {
        line = m_in.next(true);
        if (!line) return 0;
        if (at_once(*line)) continue;
      }
      if (skipped(*line)) continue;
      if (!command(*line)) return 2;
    }
  }

 private:
  // Takes in the lines that have arrived, without waiting: what the main process parses itself
  // counts at once, the other commands wait their turn.
  void take_in() {
    while (auto line = m_in.next(false)) {
      if (!at_once(*line)) m_queue.push_back(std::move(*line));
    }
  }

  // "mine BLOB": the main process parses that blob itself, so it is not parsed here (unless it was
  // begun). "share K": from now on it parses the files of its share (ParseShare) itself.
  // "reached COMMIT": the main process is at that commit, ahead of this walk. False for any other
  // line; a share that is no number is taken as none.
  bool at_once(const std::string& line) {
    if (line.starts_with("mine ")) {
      remember_sent(line.substr(5));
      return true;
    }
    if (line.starts_with("reached ")) {
      reached(line.substr(8));
      return true;
    }
    if (!line.starts_with("share ")) return false;
    const char* first = line.data() + 6;
    const char* last = line.data() + line.size();
    auto [end, error] = std::from_chars(first, last, m_share);
    if (error != std::errc() || end != last) m_share = 0;
    return true;
  }

  // What this walk would parse before the commit the main process reached, it would send too late:
  // the main process parsed those modules itself. So the walk leaves the commit it is at (no
  // more parses there) and goes straight to that one. A commit it is not given yet is ignored.
  void reached(const std::string& commit) {
    const std::string wanted = "commit " + commit;
    if (std::find(m_queue.begin(), m_queue.end(), wanted) != m_queue.end()) m_skip_to = commit;
  }

  // Whether `line` is a commit the walk leaves out on its way to the one reached. Before that one,
  // it moves to the last one left out without parsing (so that only what changes after is parsed)
  // and reports that one done (so that what it sends next counts for the commit reached).
  bool skipped(const std::string& line) {
    if (m_skip_to.empty() || !line.starts_with("commit ")) return false;
    const std::string commit = line.substr(7);
    if (commit != m_skip_to) {
      m_last_skipped = commit;
      return true;
    }
    m_skip_to.clear();
    if (!m_last_skipped.empty()) {
      walk_to(ObjectId{m_last_skipped});
      m_out << "done " << m_last_skipped << '\n';
      m_last_skipped.clear();
    }
    return false;
  }

  void remember_sent(std::string blob) {
    if (m_sent.size() >= k_sent_limit) m_sent.clear();
    m_sent.insert(std::move(blob));
  }

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
    auto changed = walk_to(commit);
    if (!changed.empty() && m_tree) send(changed);
    m_out << "done " << commit.hex << '\n';
    m_out.flush();
    return static_cast<bool>(m_out);
  }

  // Moves the walk to `commit`: the watched files that changed since where it was (path, blob),
  // but those sent or claimed.
  std::vector<std::pair<const std::string*, ObjectId>> walk_to(const ObjectId& commit) {
    m_tree = open(commit);
    std::vector<std::pair<const std::string*, ObjectId>> changed;  // path, blob
    for (Directory& dir : m_directories) {
      std::optional<ObjectId> id = directory_id(dir.path);
      if (id && id == dir.id) continue;
      dir.id = id;
      for (auto& [path, last] : dir.files) {
        std::optional<ObjectId> now = blob_at(path);
        if (now == last) continue;
        last = now;
        if (now && !m_sent.contains(now->hex)) changed.emplace_back(&path, *now);
      }
    }
    return changed;
  }

  // One at a time, each announced before it is parsed (the replay waits for that one rather than
  // parse it too) and sent as soon as it is made (it may be waiting); those the main process
  // claimed meanwhile, or whose files are in its share, are left to it.
  void send(const std::vector<std::pair<const std::string*, ObjectId>>& blobs) {
    for (const auto& [path, blob] : blobs) {
      take_in();
      if (!m_skip_to.empty()) break;  // the main process is past this commit
      if (m_sent.contains(blob.hex) || ParseShare::replay_parses(*path, m_share)) continue;
      m_out << "parsing " << blob.hex << '\n';
      m_out.flush();
      auto made = m_extractor.pickled_summary(*m_tree, blob);
      if (!made || !*made) continue;  // the main process parses it itself
      const PickledSummary& summary = **made;
      m_out << "summary " << blob.hex << ' ' << summary.characters << ' ' << summary.pickled.size() << '\n';
      m_out.write(summary.pickled.data(), static_cast<std::streamsize>(summary.pickled.size()));
      m_out.flush();
      remember_sent(blob.hex);
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
  LineInput& m_in;
  std::ostream& m_out;
  std::deque<std::string> m_queue;     // commands taken in, not yet run
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
  std::unordered_set<std::string> m_sent;  // blobs sent, or claimed by the main process
  int m_share = 0;                         // of the files, those the main process parses itself
  std::string m_skip_to;                   // the commit the main process reached, ahead of this walk
  std::string m_last_skipped;              // the last commit left out on the way to it
};

}  // namespace

int run_summary_worker(GitMirror& repository, StaticExtractor& extractor, LineInput& in, std::ostream& out) {
  return SummaryWorker(repository, extractor, in, out).run();
}

}  // namespace aaw
