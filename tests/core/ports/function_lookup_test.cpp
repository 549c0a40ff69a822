// unfound_functions: a function is reported only when found at none of the commits looked at, with
// the commits named and the closest names suggested.
#include "core/ports/function_lookup.hpp"

#include <gtest/gtest.h>

#include <map>

namespace aaw {
namespace {

using LookupVerdict = FunctionLookup::Verdict;

// Answers from a table: (commit, function_path) -> lookup; found when not in it. Counts calls.
class TableFinder final : public FunctionFinder {
 public:
  std::map<std::pair<std::string, std::string>, FunctionLookup> answers;
  std::vector<std::vector<std::string>> asked;  // the function paths of each call
  bool fail = false;

  Result<std::vector<FunctionLookup>> lookup(const ObjectId& commit,
                                             const std::vector<MonitoredFunction>& functions) override {
    if (fail) return Error(ErrorCode::not_found, "object " + commit.hex + " is missing");
    std::vector<std::string> paths;
    std::vector<FunctionLookup> out;
    for (const MonitoredFunction& f : functions) {
      paths.push_back(f.function_path);
      auto it = answers.find({commit.hex, f.function_path});
      out.push_back(it == answers.end() ? FunctionLookup{} : it->second);
    }
    asked.push_back(paths);
    return out;
  }
};

const MonitoredFunction k_typo_fmoe{"import aiter", "aiter.fmoee"};
const MonitoredFunction k_lookup_gemm{"import aiter", "aiter.gemm"};
const FunctionLookup k_missing{LookupVerdict::not_found,
                               "'fmoee' not found in module 'aiter'",
                               "fmoee",
                               {"asm_moe", "fmoe", "fmoe_int8", "gemm"}};

TEST(FunctionLookupTest, AFunctionFoundAtNoCommitIsReportedWithTheClosestNames) {
  TableFinder finder;
  finder.answers[{"head", "aiter.fmoee"}] = k_missing;
  finder.answers[{"start", "aiter.fmoee"}] = k_missing;
  auto unfound = unfound_functions(finder, {{"main", ObjectId{"head"}}, {"start_commit", ObjectId{"start"}}},
                                   {k_typo_fmoe, k_lookup_gemm});
  ASSERT_TRUE(unfound) << unfound.error().message();
  ASSERT_EQ(unfound->size(), 1u);
  EXPECT_EQ((*unfound)[0].function, k_typo_fmoe);
  EXPECT_EQ((*unfound)[0].describe(),
            "function 'aiter.fmoee' ('import aiter'): not found at main (head) nor at start_commit (start): "
            "'fmoee' not found in module 'aiter'; did you mean 'fmoe'?");
  EXPECT_EQ(finder.asked,
            (std::vector<std::vector<std::string>>{{"aiter.fmoee", "aiter.gemm"}, {"aiter.fmoee"}}))
      << "a function found once is not looked up again";
}

TEST(FunctionLookupTest, AFunctionFoundAtOneCommitIsNotReported) {
  TableFinder finder;
  finder.answers[{"head", "aiter.fmoee"}] = k_missing;
  auto unfound = unfound_functions(finder, {{"main", ObjectId{"head"}}, {"old", ObjectId{"old"}}}, {k_typo_fmoe});
  ASSERT_TRUE(unfound);
  EXPECT_TRUE(unfound->empty());
}

TEST(FunctionLookupTest, WhatTheStaticViewCannotTellIsNotReported) {
  TableFinder finder;
  finder.answers[{"head", "aiter.fmoee"}] = {LookupVerdict::unknown, "defined by globals()", "", {}};
  auto unfound = unfound_functions(finder, {{"main", ObjectId{"head"}}}, {k_typo_fmoe});
  ASSERT_TRUE(unfound);
  EXPECT_TRUE(unfound->empty());
}

TEST(FunctionLookupTest, NoCommitsNoReportAndAnUnreadableCommitIsAnError) {
  TableFinder finder;
  auto none = unfound_functions(finder, {}, {k_typo_fmoe});
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  finder.fail = true;
  auto failed = unfound_functions(finder, {{"main", ObjectId{"head"}}}, {k_typo_fmoe});
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message(), "looking up the functions at main: object head is missing");
}

TEST(FunctionLookupTest, DidYouMeanListsUpToThreeNames) {
  EXPECT_EQ(did_you_mean({}), "");
  EXPECT_EQ(did_you_mean({"a"}), "did you mean 'a'?");
  EXPECT_EQ(did_you_mean({"a", "b", "c"}), "did you mean 'a', 'b' or 'c'?");
  FunctionLookup unnamed{LookupVerdict::not_found, "cannot parse", "", {"x"}};
  EXPECT_TRUE(unnamed.suggestions().empty()) << "nothing to compare with";
}

}  // namespace
}  // namespace aaw
