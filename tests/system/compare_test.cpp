// compare_commits on the synthetic aiter history, with the real parts: a libgit2 mirror of a
// fixture repository and the embedded interpreter. Each pair of neighbouring commits must report
// exactly the planted changes, with their severities.
#include "core/compare/compare.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <tuple>

#include "core/compare/gate.hpp"
#include "extract/static/incremental_static_source.hpp"
#include "io/git/libgit2_mirror.hpp"
#include "support/shared_python.hpp"
#include "support/synthetic_aiter.hpp"
#include "support/temp_dir.hpp"

namespace aaw {
namespace {

using test::SyntheticAiter;

// The compare document's exit code with no levels and no waivers, as `compare --fail-on` gives it.
int exit_code(const Comparison& comparison, FailOn fail_on) {
  GateOptions options;
  options.levels.fail_on = fail_on;
  return compare_document(comparison, options)["exit_code"].get<int>();
}

using Planted =
    std::tuple<std::string, ChangeKind, Severity, std::string>;  // function, kind, severity, parameter

class CompareTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = std::make_unique<test::TempDir>("aaw-compare");
    test::GitFixture repo(s_dir->path() / "upstream");
    s_commits = SyntheticAiter::build(repo);
    auto mirror = open_mirror(repo.path().string(), s_dir->path() / "mirrors", {});
    ASSERT_TRUE(mirror) << mirror.error().message();
    s_mirror = std::move(*mirror);
  }
  static void TearDownTestSuite() {
    s_mirror.reset();
    s_dir.reset();
  }

  static Comparison compare(const std::string& old_rev, const std::string& new_rev) {
    StaticExtractor extractor(test::shared_python());
    IncrementalStaticSource source(*s_mirror, extractor);
    auto result = compare_commits(*s_mirror, source, SyntheticAiter::functions(), old_rev, new_rev);
    EXPECT_TRUE(result) << result.error().message();
    return result ? *result : Comparison{};
  }

  static std::set<Planted> planted(const Comparison& c) {
    std::set<Planted> out;
    for (const FunctionComparison& f : c.functions)
      for (const Change& change : f.changes)
        out.emplace(f.function.function_path, change.kind, change.severity, change.parameter.value_or(""));
    return out;
  }

  static const FunctionComparison& function(const Comparison& c, const std::string& path) {
    for (const FunctionComparison& f : c.functions)
      if (f.function.function_path == path) return f;
    throw std::runtime_error("no function " + path);
  }

  static std::unique_ptr<test::TempDir> s_dir;
  static std::unique_ptr<GitMirror> s_mirror;
  static test::SyntheticAiterCommits s_commits;
};

std::unique_ptr<test::TempDir> CompareTest::s_dir;
std::unique_ptr<GitMirror> CompareTest::s_mirror;
test::SyntheticAiterCommits CompareTest::s_commits;

TEST_F(CompareTest, ResolvesEveryFunctionAtBase) {
  Comparison c = compare(s_commits.base, s_commits.base);
  ASSERT_EQ(c.functions.size(), 10u);
  for (const FunctionComparison& f : c.functions)
    EXPECT_EQ(f.before.status, Status::ok) << f.function.function_path << ": " << f.before.summary();
  EXPECT_EQ(
      function(c, "rocm_aiter_asm_fmoe.moe_sorting_ck").before.signature.text(),
      "(topk_ids, topk_weights, num_experts, model_dim, moebuf_dtype, block_size=32, expert_mask=None)");
  EXPECT_EQ(function(c, "ck_moe_2stages").before.signature.text(),
            "(a1, w1, w2, topk_weight, topk_ids, fc1_scale=None, block_size=None)");
  EXPECT_EQ(
      function(c, "aiter.fmoe_fp8_blockscale_g1u1").before.signature.text(),
      "(out: Tensor, input: Tensor, topk: int, fc_scale_blkn: int = 128, "
      "fc2_smooth_scale: Optional[Tensor] = None, activation: ActivationType = ActivationType.Silu) -> None");
  EXPECT_EQ(function(c, "gemm_a8w8_CK").before.signature.text(),
            "(XQ, WQ, x_scale, w_scale, Y, bias=None, splitK: Optional[int] = None)");
  EXPECT_EQ(function(c, "MoeRunner.run").before.signature.text(),
            "(self, x, /, topk: int, *, renormalize: bool = False)");
  EXPECT_EQ(function(c, "aiter.rms_norm").before.signature.text(), "(x, weight, eps: float = 1e-05, *args)");
  EXPECT_EQ(function(c, "gemm_a8w8").before.signature.text(), "(XQ, WQ, /, x_scale, dtype='bf16', **kwargs)");
  EXPECT_EQ(exit_code(c, FailOn::any), 0);
}

TEST_F(CompareTest, ReformattingIsNoChange) {
  Comparison c = compare(s_commits.base, s_commits.reformatted);
  EXPECT_TRUE(planted(c).empty());
  EXPECT_EQ(exit_code(c, FailOn::any), 0);
}

TEST_F(CompareTest, RenamedParameterIsRemovalAndAddition) {
  std::set<Planted> expected = {
      {"rocm_aiter_asm_fmoe.moe_sorting_ck", ChangeKind::parameter_removed, Severity::breaking,
       "expert_mask"},
      {"rocm_aiter_asm_fmoe.moe_sorting_ck", ChangeKind::parameter_added, Severity::compatible, "mask"}};
  EXPECT_EQ(planted(compare(s_commits.reformatted, s_commits.renamed)), expected);
}

TEST_F(CompareTest, InsertedParameterMovesTheOnesAfterIt) {
  std::string f = "rocm_aiter_asm_fmoe.asm_moe";
  std::set<Planted> expected = {{f, ChangeKind::parameter_added, Severity::breaking, "w3"},
                                {f, ChangeKind::parameter_moved, Severity::breaking, "topk_weight"},
                                {f, ChangeKind::parameter_moved, Severity::breaking, "topk_ids"},
                                {f, ChangeKind::parameter_moved, Severity::breaking, "fc1_scale"}};
  EXPECT_EQ(planted(compare(s_commits.renamed, s_commits.inserted)), expected);
}

TEST_F(CompareTest, DefaultAndReturnAnnotationChangesAreClassified) {
  std::set<Planted> expected = {
      {"aiter.fmoe_fp8_blockscale_g1u1", ChangeKind::default_changed, Severity::behavioural, "fc_scale_blkn"},
      {"shuffle_weight", ChangeKind::return_annotation_changed, Severity::annotation, ""}};
  Comparison c = compare(s_commits.inserted, s_commits.defaults);
  EXPECT_EQ(planted(c), expected);
  EXPECT_EQ(exit_code(c, FailOn::breaking), 0);
  EXPECT_EQ(exit_code(c, FailOn::any), 1);
}

TEST_F(CompareTest, SyntaxErrorIsUnknownNotRemoval) {
  Comparison c = compare(s_commits.defaults, s_commits.broken);
  std::set<Planted> expected = {{"shuffle_weight", ChangeKind::state_changed, Severity::unknown, ""}};
  EXPECT_EQ(planted(c), expected);
  const FunctionComparison& f = function(c, "shuffle_weight");
  EXPECT_EQ(f.after.status, Status::syntax_error);
  EXPECT_NE(f.after.detail.find("aiter/ops/shuffle.py:4"), std::string::npos) << f.after.detail;
}

TEST_F(CompareTest, DeletedModuleAndKeywordOnlyNarrowingAreBreaking) {
  std::set<Planted> expected = {{"shuffle_weight", ChangeKind::state_changed, Severity::unknown, ""},
                                {"legacy.old_fn", ChangeKind::function_removed, Severity::breaking, ""},
                                {"gemm_a8w8", ChangeKind::kind_changed, Severity::breaking, "x_scale"},
                                {"gemm_a8w8", ChangeKind::kind_changed, Severity::breaking, "dtype"}};
  Comparison c = compare(s_commits.broken, s_commits.deleted);
  EXPECT_EQ(planted(c), expected);
  EXPECT_EQ(function(c, "legacy.old_fn").after.status, Status::missing);
}

TEST_F(CompareTest, CompatibleAdditionsAndRemovedDefault) {
  std::set<Planted> expected = {
      {"ck_moe_2stages", ChangeKind::parameter_added, Severity::compatible, "expert_mask"},
      {"MoeRunner.run", ChangeKind::parameter_added, Severity::compatible, "kwargs"},
      {"aiter.rms_norm", ChangeKind::default_removed, Severity::breaking, "eps"}};
  EXPECT_EQ(planted(compare(s_commits.deleted, s_commits.compatible)), expected);
}

TEST_F(CompareTest, ComparesAcrossBranchesTagsAndShortShas) {
  std::set<Planted> expected = {{"gemm_a8w8_CK", ChangeKind::default_removed, Severity::breaking, "bias"}};
  EXPECT_EQ(planted(compare(s_commits.compatible.substr(0, 7), "feature")), expected);
  Comparison whole = compare("v0.1", "main");
  EXPECT_EQ(whole.old_commit.hex, s_commits.base);
  EXPECT_EQ(whole.new_commit.hex, s_commits.compatible);
  EXPECT_EQ(exit_code(whole, FailOn::breaking), 1);
}

TEST_F(CompareTest, UnknownRevisionIsAnErrorNamingIt) {
  StaticExtractor extractor(test::shared_python());
  IncrementalStaticSource source(*s_mirror, extractor);
  auto result = compare_commits(*s_mirror, source, SyntheticAiter::functions(), "main", "deadbeef");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), ErrorCode::not_found);
  EXPECT_NE(result.error().message().find("new commit 'deadbeef'"), std::string::npos)
      << result.error().message();
}

TEST(CompareExitCodeTest, MachineryFailureWithoutChangesIsAnError) {
  Comparison c;
  c.functions.push_back(
      {{"import a", "a.f"}, SignatureState::ok({}), SignatureState::failed(Status::extract_failed, "x"), {}});
  EXPECT_EQ(exit_code(c, FailOn::any), 2);
  EXPECT_EQ(c.failures().size(), 1u);
}

}  // namespace
}  // namespace aaw
