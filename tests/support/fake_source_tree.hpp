// FakeSourceTree: a SourceTree over an in-memory map path -> content. Blob ids are a hash of the
// content (like git's: same content, same id), directories are implied by the paths, reads are
// counted, and a path's blob can be made unreadable to simulate a missing object.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "core/ports/source_tree.hpp"

namespace aaw::test {

class FakeSourceTree final : public SourceTree {
 public:
  FakeSourceTree() = default;
  explicit FakeSourceTree(const std::map<std::string, std::string>& files) {
    for (const auto& [path, content] : files) {
      write(path, content);
    }
  }

  // 16 hex digits of FNV-1a over the content.
  static ObjectId blob_id(std::string_view content) {
    std::uint64_t hash = 14695981039346656037ULL;
    for (unsigned char c : content) {
      hash = (hash ^ c) * 1099511628211ULL;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    return ObjectId{hex};
  }

  // Adds or replaces a file. Blobs stay in the object store when the file changes, as in git.
  void write(const std::string& path, std::string content) {
    ObjectId id = blob_id(content);
    m_blobs[id.hex] = std::move(content);
    m_files[path] = id.hex;
  }
  void remove(std::string_view path) {
    if (auto it = m_files.find(path); it != m_files.end()) {
      m_files.erase(it);
    }
  }
  // read_blob of the blob now at `path` returns not_found from now on.
  void fail_read(std::string_view path) { m_unreadable.insert(m_files.at(std::string(path))); }
  // find_blob and is_directory of `path` return an io error from now on.
  void fail_lookup(std::string path) { m_unlookable.insert(std::move(path)); }

  // How often read_blob was called for the blob now at `path`; for a blob id; in total.
  int reads_of(std::string_view path) const {
    auto file = m_files.find(path);
    return file == m_files.end() ? 0 : reads(ObjectId{file->second});
  }
  int reads(const ObjectId& blob) const {
    auto it = m_reads.find(blob.hex);
    return it == m_reads.end() ? 0 : it->second;
  }
  int total_reads() const {
    int total = 0;
    for (const auto& [blob, count] : m_reads) {
      total += count;
    }
    return total;
  }
  std::optional<ObjectId> blob_of(std::string_view path) const {
    auto file = m_files.find(path);
    if (file == m_files.end()) {
      return std::nullopt;
    }
    return ObjectId{file->second};
  }

  Result<std::optional<ObjectId>> find_blob(std::string_view path) override {
    if (m_unlookable.count(std::string(path)) != 0) {
      return Error(ErrorCode::io, "cannot look up '" + std::string(path) + "'");
    }
    return blob_of(path);
  }

  Result<bool> is_directory(std::string_view path) override {
    if (m_unlookable.count(std::string(path)) != 0) {
      return Error(ErrorCode::io, "cannot look up '" + std::string(path) + "'");
    }
    const std::string prefix = path.empty() ? std::string() : std::string(path) + "/";
    auto it = m_files.lower_bound(prefix);
    return it != m_files.end() && it->first.compare(0, prefix.size(), prefix) == 0;
  }

  Result<std::string> read_blob(const ObjectId& blob) override {
    ++m_reads[blob.hex];
    auto it = m_blobs.find(blob.hex);
    if (it == m_blobs.end() || m_unreadable.count(blob.hex) != 0) {
      return Error(ErrorCode::not_found, "object " + blob.hex + " is missing");
    }
    return it->second;
  }

 private:
  std::map<std::string, std::string, std::less<>> m_files;  // path -> blob id
  std::map<std::string, std::string, std::less<>> m_blobs;  // blob id -> content
  std::map<std::string, int, std::less<>> m_reads;          // blob id -> read_blob calls
  std::set<std::string, std::less<>> m_unreadable;          // blob ids
  std::set<std::string, std::less<>> m_unlookable;          // paths
};

}  // namespace aaw::test
