// The incremental static source on a real mirror: unchanged consulted paths mean no Python.
#include "aaw/signature_source.hpp"

#include <gtest/gtest.h>

#include "support/shared_python.hpp"
#include "support/temp_dir.hpp"
#include "support/git_fixture.hpp"

namespace aaw {
namespace {

class SignatureSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_repo.write_file("pkg/__init__.py", "from .a import *\nfrom .b import *\n");
    m_repo.write_file("pkg/a.py", "def f(x, y=1):\n    pass\n");
    m_repo.write_file("pkg/b.py", "def g(z):\n    pass\n");
    m_repo.write_file("README.md", "one\n");
    m_first = m_repo.commit("first");
  }
  void open() {
    auto mirror = open_mirror(m_repo.path().string(), m_dir.path() / "mirrors", {});
    ASSERT_TRUE(mirror) << mirror.error().message();
    m_mirror = std::move(*mirror);
    m_source = std::make_unique<IncrementalStaticSource>(*m_mirror, m_extractor);
  }
  std::vector<SignatureState> extract(const std::string& commit) {
    auto states = m_source->extract(ObjectId{commit}, m_functions);
    EXPECT_TRUE(states) << states.error().message();
    return states ? *states : std::vector<SignatureState>{};
  }

  test::TempDir m_dir{"aaw-source"};
  test::GitFixture m_repo{m_dir.path() / "upstream"};
  StaticExtractor m_extractor{test::shared_python()};
  std::vector<MonitoredFunction> m_functions = {{"import pkg", "pkg.f"}, {"from pkg.b import g", "g"}};
  std::unique_ptr<GitMirror> m_mirror;
  std::unique_ptr<IncrementalStaticSource> m_source;
  std::string m_first;
};

TEST_F(SignatureSourceTest, ReusesStatesWhenNoConsultedPathChanged) {
  m_repo.write_file("README.md", "two\n");
  std::string second = m_repo.commit("docs only");
  open();
  auto first = extract(m_first);
  EXPECT_EQ(m_source->resolved_count(), 2u);
  auto again = extract(second);
  EXPECT_EQ(m_source->resolved_count(), 2u);
  EXPECT_EQ(m_source->reused_count(), 2u);
  EXPECT_EQ(again, first);
  EXPECT_EQ(again[0].signature.text(), "(x, y=1)");
}

TEST_F(SignatureSourceTest, ResolvesAgainOnlyFunctionsWhosePathsChanged) {
  m_repo.write_file("pkg/b.py", "def g(z, w=None):\n    pass\n");
  std::string second = m_repo.commit("g grows");
  open();
  extract(m_first);
  auto states = extract(second);
  // pkg.f consults pkg/b.py too (the star import searched last-first), so both are resolved again.
  EXPECT_EQ(m_source->resolved_count(), 4u);
  EXPECT_EQ(states[1].signature.text(), "(z, w=None)");
}

TEST_F(SignatureSourceTest, NoticesAModuleAppearingWhereOnlyAProbeWas) {
  m_repo.write_file("pkg/c.py", "def f(changed):\n    pass\n");
  m_repo.write_file("pkg/__init__.py", "from .a import *\nfrom .b import *\n");
  std::string same_init = m_repo.commit("unrelated module");
  m_repo.write_file("pkg/__init__.py", "from .a import *\nfrom .b import *\nfrom .c import *\n");
  std::string shadowing = m_repo.commit("c shadows f");
  open();
  extract(m_first);
  EXPECT_EQ(extract(same_init)[0].signature.text(), "(x, y=1)");
  EXPECT_EQ(extract(shadowing)[0].signature.text(), "(changed)");
}

TEST_F(SignatureSourceTest, DoesNotReuseAMachineryFailure) {
  open();
  extract(m_first);
  std::size_t resolved = m_source->resolved_count();
  auto missing = m_source->extract(ObjectId{std::string(40, '0')}, m_functions);
  EXPECT_FALSE(missing) << "an unreadable commit is an error, not a state";
  extract(m_first);
  EXPECT_EQ(m_source->resolved_count(), resolved);
}

}  // namespace
}  // namespace aaw
