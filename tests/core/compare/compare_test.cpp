// compare_commits on fakes alone: revisions resolved in a history made in memory, states from a
// table. tests/system/compare_test.cpp compares the synthetic aiter history on real parts.
#include "core/compare/compare.hpp"

#include <gtest/gtest.h>

#include "support/fake_signature_source.hpp"
#include "support/memory_git_mirror.hpp"

namespace aaw {
namespace {

SignatureState params(std::vector<std::string> names) {
  Signature signature;
  for (std::string& name : names)
    signature.parameters.push_back(Parameter{std::move(name), ParameterKind::positional_or_keyword, {}, {}});
  return SignatureState::ok(signature);
}

class CompareTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_old = m_git.commit({{"a.py", "1"}}, "old");
    m_source.set(m_old.hex, {params({"a", "b"}), params({"x"})});
    m_new = m_git.commit({{"a.py", "2"}}, "new");
    m_source.set(m_new.hex, {params({"a"}), params({"x"})});
    ASSERT_TRUE(m_git.fetch());
  }

  test::InMemoryGitMirror m_git;
  test::FakeSignatureSource m_source;
  std::vector<MonitoredFunction> m_functions = {{"import pkg", "pkg.f"}, {"import pkg", "pkg.g"}};
  ObjectId m_old;
  ObjectId m_new;
};

TEST_F(CompareTest, EveryFunctionIsComparedAndTheChangedOnesClassified) {
  auto comparison = compare_commits(m_git, m_source, m_functions, m_old.hex.substr(0, 8), "main");
  ASSERT_TRUE(comparison) << comparison.error().message();
  EXPECT_EQ(comparison->old_commit, m_old);
  EXPECT_EQ(comparison->new_commit, m_new);
  ASSERT_EQ(comparison->functions.size(), 2u);
  ASSERT_EQ(comparison->functions[0].changes.size(), 1u);
  EXPECT_EQ(comparison->functions[0].changes[0].kind, ChangeKind::parameter_removed);
  EXPECT_EQ(comparison->functions[0].changes[0].severity, Severity::breaking);
  EXPECT_TRUE(comparison->functions[1].changes.empty());
  EXPECT_TRUE(comparison->failures().empty());
}

TEST_F(CompareTest, AFailureOfTheMachineryIsAFailureNotAChange) {
  m_source.set(m_new.hex, {SignatureState::failed(Status::build_failed, "exit 1"), params({"x"})});
  auto comparison = compare_commits(m_git, m_source, m_functions, m_old.hex, m_new.hex);
  ASSERT_TRUE(comparison) << comparison.error().message();
  ASSERT_EQ(comparison->failures().size(), 1u);
  EXPECT_EQ(comparison->failures()[0]->function.function_path, "pkg.f");
}

TEST_F(CompareTest, AnUnknownRevisionIsAnErrorNamingIt) {
  auto comparison = compare_commits(m_git, m_source, m_functions, m_old.hex, "no-such-branch");
  ASSERT_FALSE(comparison);
  EXPECT_NE(comparison.error().message().find("no-such-branch"), std::string::npos);
}

}  // namespace
}  // namespace aaw
