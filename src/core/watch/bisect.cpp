#include "core/watch/bisect.hpp"

#include <map>

#include "core/model/diff.hpp"

namespace aaw {
namespace {

using Known = std::vector<std::optional<SignatureState>>;

class Bisector {
 public:
  Bisector(const std::vector<ObjectId>& commits, const ExtractCommit& extract)
      : m_commits(commits), m_extract(extract) {
    m_result.extracted.resize(commits.size());
    m_result.states.resize(commits.size());
  }

  // Decides every commit in [lo, hi] given the good states before lo; returns those after hi.
  Result<Known> settle(std::size_t lo, std::size_t hi, const Known& left) {
    auto at_hi = states_at(hi);
    if (!at_hi) return at_hi.error();  // cancelled
    if (lo == hi || (*at_hi && unchanged(left, **at_hi))) {
      for (std::size_t i = lo; i < hi; ++i) m_result.states[i] = inferred(left);
      return *at_hi ? carry(left, **at_hi) : left;
    }
    std::size_t mid = lo + (hi - lo) / 2;  // in [lo, hi - 1]
    auto middle = settle(lo, mid, left);
    if (!middle) return middle;
    return settle(mid + 1, hi, *middle);
  }

  BisectResult take() { return std::move(m_result); }

 private:
  // The states at commit i, extracted once; nullptr when its extraction failed. An Error only
  // when cancelled.
  Result<const CommitStates*> states_at(std::size_t i) {
    if (!m_result.extracted[i]) {
      auto states = m_extract(m_commits[i]);
      if (!states && states.error().code() == ErrorCode::cancelled) return states.error();
      ++m_result.builds;
      if (states) m_result.states[i] = *states;
      m_result.extracted[i] = std::move(states);
    }
    const auto& extracted = *m_result.extracted[i];
    return extracted ? &*extracted : nullptr;
  }

  // True when `after` shows every function exactly as the good states before: a change, or a
  // failure to see, anywhere means the range has to be looked into.
  static bool unchanged(const Known& before, const CommitStates& after) {
    if (before.size() != after.size()) return false;
    for (std::size_t i = 0; i < after.size(); ++i) {
      if (!before[i] || is_machinery_failure(after[i].status)) return false;
      if (!diff_states(*before[i], after[i]).empty()) return false;
    }
    return true;
  }

  // The good states after a commit with `states`: a machinery failure keeps the previous one.
  static Known carry(Known known, const CommitStates& states) {
    known.resize(states.size());
    for (std::size_t i = 0; i < states.size(); ++i)
      if (!is_machinery_failure(states[i].status)) known[i] = states[i];
    return known;
  }

  static CommitStates inferred(const Known& known) {
    CommitStates states;
    for (const auto& state : known) states.push_back(*state);  // unchanged() checked they exist
    return states;
  }

  const std::vector<ObjectId>& m_commits;
  const ExtractCommit& m_extract;
  BisectResult m_result;
};

}  // namespace

Result<BisectResult> bisect_range(const std::vector<ObjectId>& commits,
                                  const std::vector<std::optional<SignatureState>>& before,
                                  const ExtractCommit& extract) {
  Bisector bisector(commits, extract);
  if (!commits.empty()) {
    if (auto settled = bisector.settle(0, commits.size() - 1, before); !settled) return settled.error();
  }
  return bisector.take();
}

}  // namespace aaw
