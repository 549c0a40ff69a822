// bisect_range against histories whose truth is known: the states every commit would show if each
// were built. What matters is that the recorded story is the true one (every change attributed to
// the first commit that shows it) and that it costs about log2(N) builds per change.
#include "core/watch/bisect.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <string>

namespace aaw {
namespace {

SignatureState with_parameters(const std::string& names) {
  Signature signature;
  for (char name : names)
    signature.parameters.push_back(
        Parameter{std::string(1, name), ParameterKind::positional_or_keyword, std::nullopt, std::nullopt});
  return SignatureState::ok(signature);
}

SignatureState broken() {
  return SignatureState::failed(Status::build_failed, "setup.py exited with status 1");
}

// N commits of one or more functions, each commit's truth given by a function of its index.
class History {
 public:
  History(std::size_t size, std::function<CommitStates(std::size_t)> truth) {
    for (std::size_t i = 0; i < size; ++i) {
      m_commits.push_back(ObjectId{std::string(40 - std::to_string(i).size(), 'a') + std::to_string(i)});
      m_truth.push_back(truth(i));
    }
  }

  const std::vector<ObjectId>& commits() const { return m_commits; }
  const CommitStates& truth(std::size_t i) const { return m_truth[i]; }

  ExtractCommit extractor() {
    return [this](const ObjectId& commit) -> Result<CommitStates> {
      for (std::size_t i = 0; i < m_commits.size(); ++i) {
        if (m_commits[i] == commit) {
          m_built.insert(i);
          return m_truth[i];
        }
      }
      return Error(ErrorCode::not_found, "unknown commit " + commit.hex);
    };
  }
  const std::set<std::size_t>& built() const { return m_built; }

 private:
  std::vector<ObjectId> m_commits;
  std::vector<CommitStates> m_truth;
  std::set<std::size_t> m_built;
};

// The last good state of each function after each commit: what diffs are computed against.
std::vector<std::vector<std::optional<SignatureState>>> good_states(
    const std::vector<CommitStates>& states, std::vector<std::optional<SignatureState>> known) {
  std::vector<std::vector<std::optional<SignatureState>>> out;
  for (const CommitStates& commit : states) {
    for (std::size_t f = 0; f < commit.size(); ++f)
      if (!is_machinery_failure(commit[f].status)) known[f] = commit[f];
    out.push_back(known);
  }
  return out;
}

TEST(BisectTest, AttributesOneChangeInSixtyFourCommitsWithAtMostEightBuilds) {
  History history(64, [](std::size_t i) { return CommitStates{with_parameters(i + 1 < 37 ? "ab" : "abc")}; });
  auto result = bisect_range(history.commits(), {with_parameters("ab")}, history.extractor());
  ASSERT_TRUE(result) << result.error().message();

  EXPECT_LE(result->builds, 8u);
  EXPECT_EQ(result->builds, history.built().size()) << "no commit is built twice";
  ASSERT_TRUE(result->extracted[36]) << "commit 37 shows the change, so it was built";
  EXPECT_EQ(result->states[35], CommitStates{with_parameters("ab")});
  EXPECT_EQ(result->states[36], CommitStates{with_parameters("abc")});
  for (std::size_t i = 0; i < 64; ++i) EXPECT_EQ(result->states[i], history.truth(i)) << "commit " << i + 1;
}

TEST(BisectTest, ProvesAQuietRangeWithOneBuildOfItsNewestCommit) {
  History history(40, [](std::size_t) { return CommitStates{with_parameters("ab"), with_parameters("x")}; });
  auto result =
      bisect_range(history.commits(), {with_parameters("ab"), with_parameters("x")}, history.extractor());
  ASSERT_TRUE(result) << result.error().message();

  EXPECT_EQ(result->builds, 1u);
  EXPECT_EQ(history.built(), std::set<std::size_t>{39});
  for (std::size_t i = 0; i < 39; ++i)
    EXPECT_FALSE(result->extracted[i]) << "commit " << i + 1 << " not built";
}

TEST(BisectTest, BuildsEveryCommitOfARangeThatNeverBuildsWell) {
  History history(5, [](std::size_t) { return CommitStates{broken()}; });
  auto result = bisect_range(history.commits(), {with_parameters("ab")}, history.extractor());
  ASSERT_TRUE(result) << result.error().message();

  EXPECT_EQ(result->builds, 5u) << "a broken build vouches for nothing";
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(result->states[i], CommitStates{broken()});
}

TEST(BisectTest, BuildsEveryCommitForAFunctionNeverSeenGood) {
  History history(4, [](std::size_t) { return CommitStates{with_parameters("a")}; });
  auto result = bisect_range(history.commits(), {std::nullopt}, history.extractor());
  ASSERT_TRUE(result) << result.error().message();

  EXPECT_TRUE(result->extracted[0]) << "the first commit gives the initial state";
  EXPECT_EQ(result->states[3], CommitStates{with_parameters("a")});
}

TEST(BisectTest, UnreadableCommitKeepsItsErrorAndVouchesForNothing) {
  History history(8, [](std::size_t i) { return CommitStates{with_parameters(i < 5 ? "a" : "ab")}; });
  auto extract = history.extractor();
  auto unreadable = history.commits()[7];
  auto failing = [&](const ObjectId& commit) -> Result<CommitStates> {
    if (commit == unreadable) return Error(ErrorCode::not_found, "object " + commit.hex + " is missing");
    return extract(commit);
  };
  auto result = bisect_range(history.commits(), {with_parameters("a")}, failing);
  ASSERT_TRUE(result) << result.error().message();

  ASSERT_TRUE(result->extracted[7]);
  ASSERT_FALSE(*result->extracted[7]);
  EXPECT_EQ(result->extracted[7]->error().code(), ErrorCode::not_found);
  ASSERT_TRUE(result->extracted[5]) << "the change is still attributed";
  EXPECT_EQ(result->states[4], CommitStates{with_parameters("a")});
  EXPECT_EQ(result->states[5], CommitStates{with_parameters("ab")});
}

TEST(BisectTest, CancelledExtractionEndsTheBisection) {
  History history(8, [](std::size_t) { return CommitStates{with_parameters("a")}; });
  int calls = 0;
  auto cancelled = [&](const ObjectId&) -> Result<CommitStates> {
    ++calls;
    return Error(ErrorCode::cancelled, "stop requested");
  };
  auto result = bisect_range(history.commits(), {with_parameters("a")}, cancelled);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), ErrorCode::cancelled);
  EXPECT_EQ(calls, 1);
}

TEST(BisectTest, EmptyRangeBuildsNothing) {
  History history(0, [](std::size_t) { return CommitStates{}; });
  auto result = bisect_range({}, {}, history.extractor());
  ASSERT_TRUE(result);
  EXPECT_EQ(result->builds, 0u);
}

// Random histories of three functions with changes (each to a state never seen before, so no
// A -> B -> A flips) and broken builds: the good states after every commit are the true ones, so
// every diff the watcher computes from them is the true diff at the true commit.
TEST(BisectTest, RecordsTheTrueStoryOfRandomHistories) {
  std::mt19937 random(20261121);
  for (int trial = 0; trial < 200; ++trial) {
    std::size_t size = 3 + random() % 100;
    std::vector<CommitStates> truth;
    CommitStates current{with_parameters("a"), with_parameters("b"), with_parameters("c")};
    int serial = 0;
    for (std::size_t i = 0; i < size; ++i) {
      CommitStates commit = current;
      for (std::size_t f = 0; f < 3; ++f) {
        if (random() % 30 == 0) current[f] = commit[f] = with_parameters("f" + std::to_string(serial++));
        if (random() % 25 == 0) commit[f] = broken();
      }
      truth.push_back(commit);
    }
    History history(size, [&](std::size_t i) { return truth[i]; });
    std::vector<std::optional<SignatureState>> before{with_parameters("a"), with_parameters("b"),
                                                      with_parameters("c")};
    auto result = bisect_range(history.commits(), before, history.extractor());
    ASSERT_TRUE(result) << result.error().message();

    EXPECT_EQ(good_states(result->states, before), good_states(truth, before)) << "trial " << trial;
    for (std::size_t i = 0; i < size; ++i) {
      if (result->extracted[i]) {
        ASSERT_TRUE(*result->extracted[i]);
        EXPECT_EQ(**result->extracted[i], truth[i]);
      }
    }
  }
}

}  // namespace
}  // namespace aaw
