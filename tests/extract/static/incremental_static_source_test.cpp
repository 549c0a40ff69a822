// The incremental static source on a real mirror: unchanged consulted paths mean no Python.
#include "extract/static/incremental_static_source.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>
#include <tuple>

#include "io/git/libgit2_mirror.hpp"
#include "io/posix/parse_ahead_posix.hpp"
#include "support/git_fixture.hpp"
#include "support/process.hpp"
#include "support/shared_python.hpp"
#include "support/temp_dir.hpp"

namespace aaw {
namespace {

// The real interpreter, but one of the functions the extractor calls fails as a bug there would.
class FailingFunctionHost final : public PythonHost {
 public:
  FailingFunctionHost(PythonHost& inner, std::string function)
      : m_inner(inner), m_function(std::move(function)) {}
  Result<Json> call(std::string_view module, std::string_view function, const Json& args,
                    const HostCallbacks& callbacks) override {
    if (function == m_function) return Error(ErrorCode::python, "RuntimeError: " + m_function + " broke");
    return m_inner.call(module, function, args, callbacks);
  }

 private:
  PythonHost& m_inner;
  std::string m_function;
};

class SignatureSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_repo.write_file("pkg/__init__.py", "from .a import *\nfrom .b import *\n");
    m_repo.write_file("pkg/a.py", "def f(x, y=1):\n    pass\n");
    m_repo.write_file("pkg/b.py", "def g(z):\n    pass\n");
    m_repo.write_file("README.md", "one\n");
    m_first = m_repo.commit("first");
  }
  void open(StaticExtractor* extractor = nullptr) {
    auto mirror = open_mirror(m_repo.path().string(), m_dir.path() / "mirrors", {});
    ASSERT_TRUE(mirror) << mirror.error().message();
    m_mirror = std::move(*mirror);
    m_source = std::make_unique<IncrementalStaticSource>(*m_mirror, extractor ? *extractor : m_extractor);
  }
  std::vector<SignatureState> extract(const std::string& commit) {
    auto states = m_source->extract(ObjectId{commit}, m_functions);
    EXPECT_TRUE(states) << states.error().message();
    return states ? *states : std::vector<SignatureState>{};
  }

  // advance() from `from` to `to`, its updates applied to `states`.
  std::vector<StateUpdate> advance(const std::string& from, const std::string& to,
                                   std::vector<SignatureState>& states) {
    auto updates = m_source->advance(ObjectId{from}, ObjectId{to}, m_functions, states);
    EXPECT_TRUE(updates) << updates.error().message();
    if (!updates) return {};
    for (const StateUpdate& update : *updates) states[update.position] = update.state;
    return *updates;
  }

  // From `start` to `kept`, the one function read through a star import `kept` adds is kept by the
  // star-import check, with no function resolved again; from `kept` to `found`, the first
  // function's signature becomes `text`.
  void expect_kept_then_found(const std::string& start, const std::string& kept, const std::string& found,
                              const std::string& text) {
    auto states = extract(start);
    std::size_t resolved = m_source->work().resolved;
    EXPECT_TRUE(advance(start, kept, states).empty());
    EXPECT_EQ(m_source->work().resolved, resolved) << "no function resolved again";
    EXPECT_EQ(m_source->work().kept_by_stars, 1u);
    auto updates = advance(kept, found, states);
    ASSERT_EQ(updates.size(), 1u);
    EXPECT_EQ(updates[0].position, 0u);
    EXPECT_EQ(updates[0].state.signature.text(), text);
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
  EXPECT_EQ(m_source->work().resolved, 2u);
  auto again = extract(second);
  EXPECT_EQ(m_source->work().resolved, 2u);
  EXPECT_EQ(m_source->work().reused, 2u);
  EXPECT_EQ(again, first);
  EXPECT_EQ(again[0].signature.text(), "(x, y=1)");
}

TEST_F(SignatureSourceTest, ResolvesAgainOnlyFunctionsWhoseLookupsChanged) {
  m_repo.write_file("pkg/b.py", "def g(z, w=None):\n    pass\n");
  std::string second = m_repo.commit("g grows");
  open();
  extract(m_first);
  auto states = extract(second);
  // pkg.f consults pkg/b.py too (the star import is searched last-first), but only asks it about
  // 'f', which it still does not bind: only g is resolved again.
  EXPECT_EQ(m_source->work().resolved, 3u);
  EXPECT_EQ(states[0].signature.text(), "(x, y=1)");
  EXPECT_EQ(states[1].signature.text(), "(z, w=None)");
}

TEST_F(SignatureSourceTest, BodyAndCommentEditsAreNotResolvedAgain) {
  m_repo.write_file("pkg/a.py",
                    "# a comment\n\n\ndef f(x, y=1):\n    return x + y\n\n\ndef h(q):\n    pass\n");
  std::string second = m_repo.commit("f's body, a new function, a comment");
  open();
  extract(m_first);
  auto states = extract(second);
  EXPECT_EQ(m_source->work().resolved, 2u);
  EXPECT_EQ(states[0].signature.text(), "(x, y=1)");
}

TEST_F(SignatureSourceTest, SignatureEditIsResolvedAgain) {
  m_repo.write_file("pkg/a.py", "def f(x, y=2):\n    pass\n");
  std::string second = m_repo.commit("f's default");
  open();
  extract(m_first);
  auto states = extract(second);
  EXPECT_EQ(states[0].signature.text(), "(x, y=2)");
}

// Directories are compared with the previous extraction's once for all memos; a memo that was not
// checked at that extraction (its function was not asked for) is checked in full, and going back
// to an older commit is a change like any other.
TEST_F(SignatureSourceTest, MemosFollowExtractionsInAnyOrderAndOfAnySubset) {
  m_repo.write_file("pkg/a.py", "def f(x):\n    pass\n");
  std::string second = m_repo.commit("f loses y");
  m_repo.write_file("pkg/b.py", "def g(z, w=None):\n    pass\n");
  std::string third = m_repo.commit("g grows");
  open();
  auto summaries = [](const std::vector<SignatureState>& states) {
    std::vector<std::string> out;
    for (const SignatureState& state : states) out.push_back(state.summary());
    return out;
  };
  using Texts = std::vector<std::string>;
  EXPECT_EQ(summaries(extract(m_first)), (Texts{"(x, y=1)", "(z)"}));
  EXPECT_EQ(summaries(extract(second)), (Texts{"(x)", "(z)"}));
  EXPECT_EQ(summaries(extract(m_first)), (Texts{"(x, y=1)", "(z)"}));
  auto only_f = m_source->extract(ObjectId{third}, {m_functions[0]});
  ASSERT_TRUE(only_f) << only_f.error().message();
  EXPECT_EQ(summaries(*only_f), (Texts{"(x)"}));
  EXPECT_EQ(summaries(extract(third)), (Texts{"(x)", "(z, w=None)"}));  // g last checked at the first
  EXPECT_EQ(summaries(extract(m_first)), (Texts{"(x, y=1)", "(z)"}));
  EXPECT_EQ(summaries(extract(m_first)), (Texts{"(x, y=1)", "(z)"}));
}

TEST_F(SignatureSourceTest, StateThatIsNotOkIsResolvedAgainToKeepItsDetailTrue) {
  m_repo.write_file("pkg/d.py", "f = make()\n");
  std::string before = m_repo.commit("f from a call");
  m_repo.write_file("pkg/d.py", "# one\n# two\n# three\nf = make()\n");
  std::string after = m_repo.commit("comments above");
  open();
  std::vector<MonitoredFunction> dynamic = {{"from pkg.d import f", "f"}};
  auto first = m_source->extract(ObjectId{before}, dynamic);
  auto second = m_source->extract(ObjectId{after}, dynamic);
  ASSERT_TRUE(first && second);
  EXPECT_EQ((*second)[0].status, Status::unresolved);
  EXPECT_NE((*second)[0].detail.find("pkg/d.py:4"), std::string::npos) << (*second)[0].detail;
}

TEST_F(SignatureSourceTest, BindingOrderChangeIsResolvedAgain) {
  m_repo.write_file("pkg/a.py", "def f(x, y=1):\n    pass\ng = f\ndef f(x):\n    pass\n");
  std::string before = m_repo.commit("alias before the redefinition");
  m_repo.write_file("pkg/a.py", "def f(x, y=1):\n    pass\ndef f(x):\n    pass\ng = f\n");
  std::string after = m_repo.commit("alias after the redefinition");
  open();
  std::vector<MonitoredFunction> alias = {{"from pkg.a import g", "g"}};
  auto first = m_source->extract(ObjectId{before}, alias);
  auto second = m_source->extract(ObjectId{after}, alias);
  ASSERT_TRUE(first && second);
  EXPECT_EQ((*first)[0].signature.text(), "(x, y=1)");
  EXPECT_EQ((*second)[0].signature.text(), "(x)");
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
  std::size_t resolved = m_source->work().resolved;
  auto missing = m_source->extract(ObjectId{std::string(40, '0')}, m_functions);
  EXPECT_FALSE(missing) << "an unreadable commit is an error, not a state";
  extract(m_first);
  EXPECT_EQ(m_source->work().resolved, resolved);
}

// advance() from the commit extracted last looks only at the functions whose memo read an entry
// that changed: a README edit costs no function anything, an edit of pkg/b.py reaches g (f asks
// b.py only whether it binds 'f', and its digest says it still does not).
TEST_F(SignatureSourceTest, AdvanceLooksOnlyAtFunctionsThatReadWhatChanged) {
  m_repo.write_file("README.md", "two\n");
  std::string docs = m_repo.commit("docs only");
  m_repo.write_file("pkg/b.py", "def g(z, w=None):\n    pass\n");
  std::string grows = m_repo.commit("g grows");
  open();
  auto states = extract(m_first);
  auto none = m_source->advance(ObjectId{m_first}, ObjectId{docs}, m_functions, states);
  ASSERT_TRUE(none) << none.error().message();
  EXPECT_TRUE(none->empty());
  EXPECT_EQ(m_source->work().untouched, 2u);
  auto one = m_source->advance(ObjectId{docs}, ObjectId{grows}, m_functions, states);
  ASSERT_TRUE(one) << one.error().message();
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].position, 1u);
  EXPECT_EQ((*one)[0].state.signature.text(), "(z, w=None)");
  EXPECT_EQ(m_source->work().resolved, 3u);
  // From a commit that is not the last extracted, every function is extracted and compared.
  auto back = m_source->advance(ObjectId{m_first}, ObjectId{grows}, m_functions, states);
  ASSERT_TRUE(back) << back.error().message();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].position, 1u);
}

// A module that is a symbolic link is read by Python through it; the static reader does not follow
// it, so what depends on it is unresolved (never missing), and a link replaced by a file, or a file
// by a link, is seen by advance() like any change.
TEST_F(SignatureSourceTest, ASymbolicLinkIsUnresolvedUntilAFileTakesItsPlace) {
  const auto link_b = [&](const char* target) {
    std::filesystem::remove(m_repo.path() / "pkg" / "b.py");
    std::filesystem::create_symlink(target, m_repo.path() / "pkg" / "b.py");
  };
  m_repo.write_file("pkg/b_impl.py", "def g(z):\n    pass\n");
  link_b("b_impl.py");
  const std::string linked = m_repo.commit("b is a link");
  m_repo.write_file("pkg/c.py", "def g(z, w=2):\n    pass\n");
  link_b("c.py");
  const std::string retargeted = m_repo.commit("b links elsewhere");
  std::filesystem::remove(m_repo.path() / "pkg" / "b.py");
  m_repo.write_file("pkg/b.py", "def g(z):\n    pass\n");
  const std::string file = m_repo.commit("b is a file again");
  link_b("b_impl.py");
  const std::string again = m_repo.commit("b is a link again");
  open();
  auto states = extract(linked);
  for (const SignatureState& state : states) {
    EXPECT_EQ(state.status, Status::unresolved) << state.detail;
    EXPECT_NE(state.detail.find("'pkg/b.py' is a symbolic link, which static extraction does not follow"),
              std::string::npos)
        << state.detail;
  }
  EXPECT_TRUE(advance(linked, retargeted, states).empty());
  EXPECT_EQ(advance(retargeted, file, states).size(), 2u);
  EXPECT_EQ(states[0].signature.text(), "(x, y=1)");
  EXPECT_EQ(states[1].signature.text(), "(z)");
  EXPECT_EQ(advance(file, again, states).size(), 2u);
  EXPECT_EQ(states[1].status, Status::unresolved);
  EXPECT_EQ(extract(again), states);
}

// What import confirmation asks: the functions a changed file concerned, whether or not their
// state changed (a body edit keeps f's state, and f read that file).
TEST_F(SignatureSourceTest, AdvanceSaysWhichFunctionsAChangedFileConcerned) {
  m_repo.write_file("README.md", "two\n");
  std::string docs = m_repo.commit("docs only");
  m_repo.write_file("pkg/a.py", "def f(x, y=1):\n    return x + y\n");
  std::string body = m_repo.commit("f's body");
  open();
  auto states = extract(m_first);
  EXPECT_FALSE(m_source->inputs_changed()) << "an extraction says nothing of what changed";
  advance(m_first, docs, states);
  EXPECT_EQ(m_source->inputs_changed(), std::vector<std::size_t>{});
  EXPECT_TRUE(advance(docs, body, states).empty());
  EXPECT_EQ(m_source->inputs_changed(), std::vector<std::size_t>{0});
  // From a commit that is not the last extracted: it cannot tell.
  advance(m_first, body, states);
  EXPECT_FALSE(m_source->inputs_changed());
}

// Directories whose id did not change are not looked into: a change deep under directories that
// the commits before left alone is still found, and one beside them costs no look.
TEST_F(SignatureSourceTest, AdvanceFindsAChangeDeepUnderDirectoriesLeftAloneBefore) {
  m_repo.write_file("pkg/deep/inner/m.py", "def d(x):\n    pass\n");
  m_repo.write_file("docs/guide/index.md", "one\n");
  std::string start = m_repo.commit("deep module");
  m_repo.write_file("docs/guide/index.md", "two\n");
  std::string beside = m_repo.commit("docs only, in a directory of its own");
  m_repo.write_file("pkg/deep/inner/m.py", "def d(x, y=2):\n    pass\n");
  std::string deep = m_repo.commit("d grows");
  m_repo.write_file("pkg/deep/inner/m.py", "def d(x, y=3):\n    pass\n");
  m_repo.write_file("pkg/deep/other.py", "z = 1\n");
  std::string again = m_repo.commit("d changes again beside a new module");
  m_functions.push_back({"from pkg.deep.inner.m import d", "d"});
  open();
  auto states = extract(start);
  ASSERT_EQ(states.size(), 3u);
  EXPECT_TRUE(advance(start, beside, states).empty());
  EXPECT_EQ(m_source->work().untouched, 3u);
  for (const auto& [from, to, text] :
       {std::tuple{beside, deep, "(x, y=2)"}, std::tuple{deep, again, "(x, y=3)"}}) {
    auto updates = advance(from, to, states);
    ASSERT_EQ(updates.size(), 1u) << "at " << to;
    EXPECT_EQ(updates[0].position, 2u);
    EXPECT_EQ(updates[0].state.signature.text(), text);
  }
}

// A star import added to a package, binding none of the names asked through it, costs one check
// and no resolution; the functions' memos then watch the new module, so that a later edit making
// it bind one of them is found.
TEST_F(SignatureSourceTest, AdvanceKeepsWhatAnAddedStarImportBindsNothingOf) {
  m_repo.write_file("pkg/c.py", "def h(q):\n    pass\n");
  m_repo.write_file("pkg/__init__.py", "from .c import *\nfrom .a import *\nfrom .b import *\n");
  std::string adds_c = m_repo.commit("pkg star-imports c");
  m_repo.write_file("pkg/__init__.py", "from .a import *\nfrom .b import *\nfrom .c import *\n");
  std::string moves_c = m_repo.commit("c's star import moves last");
  m_repo.write_file("pkg/c.py", "def h(q):\n    pass\n\n\ndef f(shadow):\n    pass\n");
  std::string shadows_f = m_repo.commit("c's f shadows a's");
  open();
  auto states = extract(m_first);
  EXPECT_TRUE(advance(m_first, adds_c, states).empty());
  EXPECT_EQ(m_source->work().resolved, 2u) << "no function resolved again";
  EXPECT_EQ(m_source->work().kept_by_stars, 1u) << "pkg.f is read through pkg's star imports";
  // A reordering is no addition: resolved again, and still the same.
  EXPECT_TRUE(advance(adds_c, moves_c, states).empty());
  EXPECT_EQ(m_source->work().resolved, 3u);
  auto shadowed = advance(moves_c, shadows_f, states);
  ASSERT_EQ(shadowed.size(), 1u);
  EXPECT_EQ(shadowed[0].position, 0u);
  EXPECT_EQ(shadowed[0].state.signature.text(), "(shadow)");
}

// With a real helper parsing ahead, a replay gives the states it gives without one, and takes the
// summaries the helper made instead of parsing them.
TEST_F(SignatureSourceTest, ParsingAheadGivesTheSameStatesAndIsUsed) {
  std::vector<ObjectId> commits{ObjectId{m_first}};
  for (int i = 1; i <= 40; ++i) {
    const std::string file = i % 2 == 0 ? "pkg/a.py" : "pkg/b.py";
    m_repo.write_file(file, i % 2 == 0 ? "def f(x, y=" + std::to_string(i) + "):\n    pass\n"
                                       : "def g(z, w=" + std::to_string(i) + "):\n    pass\n");
    commits.push_back(ObjectId{m_repo.commit("edit " + std::to_string(i))});
  }
  open();
  // The replay without a helper first, then with one from a cold parsed-module cache.
  std::vector<std::vector<SignatureState>> expected{extract(commits[0].hex)};
  for (std::size_t i = 1; i < commits.size(); ++i) {
    expected.push_back(expected.back());
    advance(commits[i - 1].hex, commits[i].hex, expected.back());
  }
  ASSERT_TRUE(test::clear_python_cache());
  open();
  auto prefetch = make_parse_ahead(AAW_BINARY, m_mirror->path());
  SummaryPrefetch& helper = *prefetch;
  m_source->parse_ahead(std::move(prefetch));
  m_source->expect(std::nullopt, commits);
  auto states = extract(commits[0].hex);
  EXPECT_EQ(states, expected[0]);
  // Each commit after the first changes one file every function reads: one summary each.
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
       helper.made() < 40 && std::chrono::steady_clock::now() < deadline;)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(helper.made(), 40) << helper.failure();
  for (std::size_t i = 1; i < commits.size(); ++i) {
    advance(commits[i - 1].hex, commits[i].hex, states);
    EXPECT_EQ(states, expected[i]) << "at commit " << i;
  }
  EXPECT_EQ(states[0].signature.text(), "(x, y=40)");
  EXPECT_EQ(helper.taken(), 40);
  EXPECT_THAT(m_source->work_summary(),
              ::testing::HasSubstr(
                  "40 of the parses made ahead by a second process, 40 of them used, its peak RSS "));
}

// The closing cost line lists the functions, with how often each was resolved (again at each
// change of its module), how often a commit changed a file it read, and the time both took.
TEST_F(SignatureSourceTest, TheCostSummaryNamesEachFunctionWithItsResolutionsAndTime) {
  std::vector<std::string> commits{m_first};
  for (int i = 2; i <= 4; ++i) {
    m_repo.write_file("pkg/a.py", "def f(x, y=" + std::to_string(i) + "):\n    pass\n");
    commits.push_back(m_repo.commit("f's default " + std::to_string(i)));
  }
  open();
  EXPECT_EQ(m_source->cost_summary(), "") << "nothing resolved yet";
  auto states = extract(m_first);
  for (std::size_t i = 1; i < commits.size(); ++i) advance(commits[i - 1], commits[i], states);
  EXPECT_EQ(states[0].signature.text(), "(x, y=4)");
  // Ordered by time, which a noisy machine may swap for two functions this cheap.
  std::string costs = m_source->cost_summary();
  EXPECT_THAT(costs,
              ::testing::StartsWith("Costliest functions (resolving them, and checking the changed files "
                                    "they read, that time split among the functions reading each): "));
  // pkg.f reads pkg/a.py (through pkg's star import), which each commit changed; g does not.
  EXPECT_THAT(costs, ::testing::ContainsRegex(" pkg\\.f [0-9]+\\.[0-9]{2} s \\(4 resolutions, 3 checks\\)"));
  EXPECT_THAT(costs, ::testing::ContainsRegex(" g [0-9]+\\.[0-9]{2} s \\(1 resolution, 0 checks\\)"));
}

// A handful of commits (a daemon's poll) is not worth the helper: none is started.
TEST_F(SignatureSourceTest, AFewCommitsAreNotParsedAhead) {
  m_repo.write_file("pkg/a.py", "def f(x, y=2):\n    pass\n");
  const std::string second = m_repo.commit("f's default");
  open();
  auto prefetch = make_parse_ahead(AAW_BINARY, m_mirror->path());
  SummaryPrefetch& helper = *prefetch;
  m_source->parse_ahead(std::move(prefetch));
  m_source->expect(std::nullopt, {ObjectId{m_first}, ObjectId{second}});
  auto states = extract(m_first);
  advance(m_first, second, states);
  EXPECT_EQ(states[0].signature.text(), "(x, y=2)");
  EXPECT_EQ(helper.made(), 0);
  EXPECT_EQ(m_source->work_summary().find("made ahead"), std::string::npos);
}

// A star-import check that fails in Python keeps nothing: its functions are resolved as before,
// and the work summary says how many checks failed and why.
TEST_F(SignatureSourceTest, AStarCheckThatFailsInPythonResolvesItsFunctionsAndSaysSo) {
  m_repo.write_file("pkg/c.py", "def h(q):\n    pass\n");
  m_repo.write_file("pkg/__init__.py", "from .c import *\nfrom .a import *\nfrom .b import *\n");
  std::string adds_c = m_repo.commit("pkg star-imports c");
  FailingFunctionHost host(test::shared_python(), "star_additions");
  StaticExtractor extractor(host);
  open(&extractor);
  auto states = extract(m_first);
  EXPECT_TRUE(advance(m_first, adds_c, states).empty());
  EXPECT_EQ(m_source->work().resolved, 3u) << "pkg.f resolved again";
  EXPECT_EQ(m_source->work().kept_by_stars, 0u);
  EXPECT_EQ(m_source->work().failed_star_checks, 1u);
  EXPECT_EQ(states[0].signature.text(), "(x, y=1)");
  EXPECT_THAT(
      m_source->work_summary(),
      ::testing::HasSubstr("1 star-import checks failed in Python, their functions resolved instead "
                           "(first: checking added star imports: RuntimeError: star_additions broke)"));
}

// A name the package binds itself (an explicit import) asks a digest, not the outline; a star
// import added after it is checked the same way, and one that binds the name is found.
TEST_F(SignatureSourceTest, AdvanceKeepsANameThePackageBindsWhenItOnlyAddsStarImports) {
  m_repo.write_file("pkg/__init__.py", "from .a import f\nfrom .b import *\n");
  m_repo.write_file("pkg/c.py", "def h(q):\n    pass\n");
  std::string binds_f = m_repo.commit("pkg imports f by name");
  m_repo.write_file("pkg/__init__.py", "from .a import f\nfrom .b import *\nfrom .c import *\n");
  std::string adds_c = m_repo.commit("pkg star-imports c after f");
  m_repo.write_file("pkg/c.py", "def h(q):\n    pass\n\n\ndef f(shadow):\n    pass\n");
  std::string shadows_f = m_repo.commit("c's f shadows the imported one");
  open();
  expect_kept_then_found(binds_f, adds_c, shadows_f, "(shadow)");
}

// A function not there yet is looked for through the package's import hooks too: a star import
// added that binds it not keeps it unresolved without a resolution, and the one that comes to
// bind it is found.
TEST_F(SignatureSourceTest, AdvanceKeepsAFunctionNotThereYetThroughAStarImportAdded) {
  m_repo.write_file("pkg/__init__.py", "from .a import *\nfrom .b import *\nfrom torch import *\n");
  m_repo.write_file("pkg/c.py", "def h(q):\n    pass\n");
  std::string outside = m_repo.commit("pkg star-imports torch");
  m_repo.write_file("pkg/__init__.py",
                    "from .a import *\nfrom .b import *\nfrom torch import *\nfrom .c import *\n");
  std::string adds_c = m_repo.commit("pkg star-imports c");
  m_repo.write_file("pkg/c.py", "def h(q):\n    pass\n\n\ndef later(p):\n    pass\n");
  std::string defines_later = m_repo.commit("c defines later");
  m_functions = {{"import pkg", "pkg.later"}};
  open();
  auto before = extract(outside);
  ASSERT_EQ(before[0].status, Status::unresolved) << before[0].detail;
  expect_kept_then_found(outside, adds_c, defines_later, "(p)");
}

// The same when the module that binds the name is the one added last, after a check kept it.
TEST_F(SignatureSourceTest, AdvanceFindsANameAModuleKeptByAStarCheckComesToBind) {
  m_repo.write_file("pkg/c.py", "def h(q):\n    pass\n");
  m_repo.write_file("pkg/__init__.py", "from .a import *\nfrom .b import *\nfrom .c import *\n");
  std::string adds_c = m_repo.commit("pkg star-imports c last");
  m_repo.write_file("pkg/c.py", "def h(q):\n    pass\n\n\ndef f(shadow):\n    pass\n");
  std::string shadows_f = m_repo.commit("c's f shadows a's");
  open();
  expect_kept_then_found(m_first, adds_c, shadows_f, "(shadow)");
}

// An edit of a module that only adds names no function asks about is answered by the module's
// outline: no function is looked at. One that makes a star import bind a monitored name reaches
// that function.
TEST_F(SignatureSourceTest, AdvanceAnswersFromTheOutlineOfAChangedModule) {
  m_repo.write_file("pkg/b.py", "def g(z):\n    pass\n\n\ndef h(q):\n    pass\n");
  std::string adds_h = m_repo.commit("b gains h");
  m_repo.write_file("pkg/b.py", "def g(z):\n    pass\n\n\ndef f(shadow):\n    pass\n");
  std::string shadows_f = m_repo.commit("b's f shadows a's");
  open();
  auto states = extract(m_first);
  auto none = m_source->advance(ObjectId{m_first}, ObjectId{adds_h}, m_functions, states);
  ASSERT_TRUE(none) << none.error().message();
  EXPECT_TRUE(none->empty());
  EXPECT_EQ(m_source->work().untouched, 2u);
  EXPECT_EQ(m_source->work().resolved, 2u);
  auto shadowed = m_source->advance(ObjectId{adds_h}, ObjectId{shadows_f}, m_functions, states);
  ASSERT_TRUE(shadowed) << shadowed.error().message();
  ASSERT_EQ(shadowed->size(), 1u);
  EXPECT_EQ((*shadowed)[0].position, 0u);
  EXPECT_EQ((*shadowed)[0].state.signature.text(), "(shadow)");
}

// More stale functions than one call to Python resolves (they go in batches): each gets its own
// state, in its own position.
TEST_F(SignatureSourceTest, ManyFunctionsResolvedAtOnceKeepTheirPositions) {
  std::string text;
  std::vector<MonitoredFunction> many;
  for (int i = 0; i < 150; ++i) {
    text += "def f" + std::to_string(i) + "(a" + std::to_string(i) + "):\n    pass\n";
    many.push_back({"from pkg.many import f" + std::to_string(i), "f" + std::to_string(i)});
  }
  m_repo.write_file("pkg/many.py", text);
  std::string commit = m_repo.commit("many functions");
  open();
  auto states = m_source->extract(ObjectId{commit}, many);
  ASSERT_TRUE(states) << states.error().message();
  ASSERT_EQ(states->size(), many.size());
  for (std::size_t i = 0; i < many.size(); ++i)
    EXPECT_EQ((*states)[i].signature.text(), "(a" + std::to_string(i) + ")") << i;
  EXPECT_EQ(m_source->work().resolved, many.size());
}

TEST_F(SignatureSourceTest, AdvanceWithAFunctionListedTwiceStaysRight) {
  m_repo.write_file("pkg/a.py", "def f(x):\n    pass\n");
  std::string second = m_repo.commit("f loses y");
  open();
  std::vector<MonitoredFunction> twice = {m_functions[0], m_functions[1], m_functions[0]};
  auto states = m_source->extract(ObjectId{m_first}, twice);
  ASSERT_TRUE(states);
  auto updates = m_source->advance(ObjectId{m_first}, ObjectId{second}, twice, *states);
  ASSERT_TRUE(updates) << updates.error().message();
  ASSERT_EQ(updates->size(), 2u);
  EXPECT_EQ((*updates)[0].position, 0u);
  EXPECT_EQ((*updates)[1].position, 2u);
  EXPECT_EQ((*updates)[1].state.signature.text(), "(x)");
}

// A history bench/generate_history.py writes (bodies, comments, other functions' signatures and
// monitored signatures changing), in a mirror: its functions and first-parent commits, root first.
class GeneratedHistoryTest : public ::testing::Test {
 protected:
  void generate(const std::string& seed) {
    auto generated = test::run_process({"/usr/bin/python3", AAW_SOURCE_DIR "/bench/generate_history.py",
                                        m_dir.path().string(), "--commits", "160", "--modules", "24",
                                        "--functions", "16", "--touch-rate", "0.2", "--seed", seed});
    ASSERT_TRUE(generated.ok()) << generated.err;
    auto config = nlohmann::json::parse(std::ifstream(m_dir.path() / "config.json"));
    for (const auto& f : config["functions_to_monitor"])
      m_functions.push_back({f["import_statement"], f["function_path"]});
    auto mirror = open_mirror(config["repository_url"].get<std::string>(), m_dir.path() / "mirrors", {});
    ASSERT_TRUE(mirror) << mirror.error().message();
    m_mirror = std::move(*mirror);
    auto head = m_mirror->resolve("main");
    auto root = m_mirror->resolve(config["start_commit"].get<std::string>());
    ASSERT_TRUE(head && root);
    auto commits = m_mirror->first_parent_range(*root, *head);
    ASSERT_TRUE(commits);
    m_commits = std::move(*commits);
    m_commits.insert(m_commits.begin(), *root);
  }
  // The states a resolution from scratch gives at `commit`.
  std::vector<SignatureState> from_scratch(const ObjectId& commit) {
    IncrementalStaticSource fresh(*m_mirror, m_extractor);
    auto states = fresh.extract(commit, m_functions);
    EXPECT_TRUE(states) << states.error().message();
    return states ? *states : std::vector<SignatureState>{};
  }

  test::TempDir m_dir{"aaw-equivalence"};
  StaticExtractor m_extractor{test::shared_python()};
  std::vector<MonitoredFunction> m_functions;
  std::unique_ptr<GitMirror> m_mirror;
  std::vector<ObjectId> m_commits;
};

// The reuse must never change an answer: on every commit of a generated history the incremental
// source agrees with a resolution from scratch.
TEST_F(GeneratedHistoryTest, ExtractMatchesFromScratchOnEveryCommit) {
  generate("7");
  IncrementalStaticSource incremental(*m_mirror, m_extractor);
  for (const ObjectId& commit : m_commits) {
    auto reused = incremental.extract(commit, m_functions);
    ASSERT_TRUE(reused);
    ASSERT_EQ(*reused, from_scratch(commit)) << "at " << commit.hex;
  }
  EXPECT_GT(incremental.work().reused, incremental.work().resolved * 5)
      << "the reuse should do most of the work";
}

// The same with advance(), each commit's updates applied to the states of the one before.
TEST_F(GeneratedHistoryTest, AdvanceMatchesFromScratchOnEveryCommit) {
  generate("11");
  IncrementalStaticSource incremental(*m_mirror, m_extractor);
  auto states = incremental.extract(m_commits[0], m_functions);
  ASSERT_TRUE(states);
  std::size_t updated = 0;
  for (std::size_t i = 1; i < m_commits.size(); ++i) {
    auto updates = incremental.advance(m_commits[i - 1], m_commits[i], m_functions, *states);
    ASSERT_TRUE(updates) << updates.error().message();
    for (StateUpdate& update : *updates) (*states)[update.position] = std::move(update.state);
    updated += updates->size();
    ASSERT_EQ(*states, from_scratch(m_commits[i])) << "at " << m_commits[i].hex;
  }
  EXPECT_GT(updated, 0u);
  EXPECT_GT(incremental.work().untouched, incremental.work().resolved) << "most functions never looked at";
}

}  // namespace
}  // namespace aaw
