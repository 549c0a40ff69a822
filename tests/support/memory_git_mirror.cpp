#include "support/memory_git_mirror.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>

#include "support/fake_source_tree.hpp"
#include "util/hash.hpp"

namespace aaw::test {
namespace {

std::string hex40(const std::string& seed) {
  std::string out;
  for (int round = 0; out.size() < 40; ++round) {
    char part[17];
    std::snprintf(part, sizeof part, "%016llx",
                  static_cast<unsigned long long>(fnv1a_64(seed + "#" + std::to_string(round))));
    out += part;
  }
  return out.substr(0, 40);
}

bool is_hex(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isdigit(c) || (c >= 'a' && c <= 'f');
  });
}

}  // namespace

ObjectId InMemoryGitMirror::commit(const std::map<std::string, std::optional<std::string>>& changes,
                                   const std::string& subject, const std::string& branch) {
  Commit made;
  auto head = m_remote.find(branch);
  if (head != m_remote.end()) {
    made.info.parents.push_back(head->second);
    made.files = m_commits.at(head->second.hex).files;
  }
  for (const auto& [path, content] : changes) {
    if (content)
      made.files[path] = *content;
    else
      made.files.erase(path);
  }
  const std::string parent = made.info.parents.empty() ? "" : made.info.parents.front().hex;
  made.info.id = ObjectId{hex40(parent + "\n" + subject + "\n" + std::to_string(m_commits.size()))};
  made.info.author_name = "Test Author";
  made.info.author_email = "author@example.com";
  made.info.author_time = 1700000000 + static_cast<std::int64_t>(m_commits.size()) * 60;
  made.info.subject = subject;
  made.info.message = subject + "\n";
  ObjectId id = made.info.id;
  m_commits.emplace(id.hex, std::move(made));
  m_remote[branch] = id;
  return id;
}

void InMemoryGitMirror::set_branch(const std::string& branch, const ObjectId& commit) {
  m_remote[branch] = commit;
}

const std::map<std::string, std::string>& InMemoryGitMirror::files(const ObjectId& commit) const {
  return m_commits.at(commit.hex).files;
}

Result<void> InMemoryGitMirror::fetch() {
  ++m_fetches;
  m_branches = m_remote;
  return {};
}

Result<const InMemoryGitMirror::Commit*> InMemoryGitMirror::find(const ObjectId& commit) const {
  auto found = m_commits.find(commit.hex);
  if (found == m_commits.end())
    return Error(ErrorCode::not_found, "object " + commit.hex + " is missing from the mirror");
  return &found->second;
}

// What `git rev-parse` accepts for one commit, as far as tests need it: a full or unambiguous short
// id, a branch (or origin/<branch>, or HEAD for main) as of the last fetch, then any ~N and ^.
Result<ObjectId> InMemoryGitMirror::resolve(std::string_view revision) {
  const std::string text(revision);
  if (text.empty() || text.front() == '-' || text.find("..") != std::string::npos)
    return Error(ErrorCode::invalid_input, "invalid revision '" + text + "'");
  const std::size_t suffix = text.find_first_of("~^");
  auto base = resolve_name(text.substr(0, suffix));
  if (!base || suffix == std::string::npos) return base;
  ObjectId at = *base;
  for (std::size_t i = suffix; i < text.size();) {
    const char op = text[i++];
    std::size_t digits = i;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
    if (op != '~' && op != '^') return Error(ErrorCode::invalid_input, "invalid revision '" + text + "'");
    int steps = digits > i ? std::stoi(text.substr(i, digits - i)) : 1;
    if (op == '^' && steps != 1) return Error(ErrorCode::not_found, "revision '" + text + "' not found");
    i = digits;
    for (; steps > 0; --steps) {
      auto commit = find(at);
      if (!commit) return commit.error();
      if ((*commit)->info.parents.empty())
        return Error(ErrorCode::not_found, "revision '" + text + "' not found");
      at = (*commit)->info.parents.front();
    }
  }
  return at;
}

Result<ObjectId> InMemoryGitMirror::resolve_name(const std::string& name) const {
  std::string branch = name == "HEAD" ? "main" : name;
  if (branch.rfind("origin/", 0) == 0) branch = branch.substr(7);
  if (auto found = m_branches.find(branch); found != m_branches.end()) return found->second;
  if (name.size() >= 4 && is_hex(name)) {
    std::vector<ObjectId> matches;
    for (const auto& [id, commit] : m_commits)
      if (id.compare(0, name.size(), name) == 0) matches.push_back(commit.info.id);
    if (matches.size() == 1) return matches.front();
    if (matches.size() > 1) return Error(ErrorCode::ambiguous, "short id '" + name + "' is ambiguous");
  }
  return Error(ErrorCode::not_found, "revision '" + name + "' not found");
}

Result<CommitInfo> InMemoryGitMirror::commit_info(const ObjectId& commit) {
  auto found = find(commit);
  if (!found) return found.error();
  return (*found)->info;
}

Result<std::unique_ptr<SourceTree>> InMemoryGitMirror::tree(const ObjectId& commit) {
  auto found = find(commit);
  if (!found) return found.error();
  return std::unique_ptr<SourceTree>(std::make_unique<FakeSourceTree>((*found)->files));
}

Result<ObjectId> InMemoryGitMirror::remote_head(std::string_view branch) {
  auto found = m_remote.find(std::string(branch));
  if (found == m_remote.end())
    return Error(ErrorCode::not_found, "no branch '" + std::string(branch) + "' on '" + m_url + "'");
  return found->second;
}

std::vector<ObjectId> InMemoryGitMirror::ancestors(const ObjectId& commit) const {
  std::vector<ObjectId> out;
  std::set<std::string> seen;
  std::vector<ObjectId> pending{commit};
  while (!pending.empty()) {
    ObjectId next = pending.back();
    pending.pop_back();
    if (!seen.insert(next.hex).second) continue;
    out.push_back(next);
    auto found = m_commits.find(next.hex);
    if (found != m_commits.end())
      for (const ObjectId& parent : found->second.info.parents) pending.push_back(parent);
  }
  return out;
}

Result<std::vector<ObjectId>> InMemoryGitMirror::first_parent_range(const ObjectId& since,
                                                                    const ObjectId& tip) {
  for (const ObjectId* end : {&since, &tip})
    if (auto found = find(*end); !found) return found.error();
  std::set<std::string> reached;
  for (const ObjectId& id : ancestors(since)) reached.insert(id.hex);
  std::vector<ObjectId> range;
  for (ObjectId at = tip; !reached.count(at.hex);) {
    range.push_back(at);
    const Commit& commit = m_commits.at(at.hex);
    if (commit.info.parents.empty()) break;
    at = commit.info.parents.front();
  }
  std::reverse(range.begin(), range.end());
  return range;
}

Result<bool> InMemoryGitMirror::is_ancestor(const ObjectId& ancestor, const ObjectId& descendant) {
  for (const ObjectId* end : {&ancestor, &descendant})
    if (auto found = find(*end); !found) return found.error();
  for (const ObjectId& id : ancestors(descendant))
    if (id == ancestor) return true;
  return false;
}

Result<std::optional<ObjectId>> InMemoryGitMirror::merge_base(const ObjectId& a, const ObjectId& b) {
  for (const ObjectId* end : {&a, &b})
    if (auto found = find(*end); !found) return found.error();
  std::set<std::string> of_a;
  for (const ObjectId& id : ancestors(a)) of_a.insert(id.hex);
  // The common ancestors of b, the one that descends from none of the others first: with a
  // history of first parents (what tests make), the nearest one.
  for (ObjectId at = b;;) {
    if (of_a.count(at.hex)) return std::optional<ObjectId>(at);
    const Commit& commit = m_commits.at(at.hex);
    if (commit.info.parents.empty()) return std::optional<ObjectId>();
    at = commit.info.parents.front();
  }
}

}  // namespace aaw::test
