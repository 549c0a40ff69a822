// RuntimeSource with real parts: the fixpkg history in a real mirror and work tree, real builds of
// its C extension through the real sandbox, and the built binary as the extraction child.
#include "aaw/runtime_extractor.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <stdexcept>

#include "aaw/both_source.hpp"
#include "aaw/static_extractor.hpp"
#include "support/git_fixture.hpp"
#include "support/runtime_fixture.hpp"
#include "support/shared_python.hpp"
#include "support/temp_dir.hpp"

namespace aaw {
namespace {

namespace fs = std::filesystem;
using test::RuntimeFixture;

template <class T>
T value_of(Result<T> result) {
  if (!result) throw std::runtime_error("unexpected error: " + result.error().message());
  return std::move(result).value();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Sets an environment variable for the length of a test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : m_name(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(m_name); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* m_name;
};

class RuntimeExtractorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_commits = RuntimeFixture::build(m_repo);
    m_mirror = value_of(open_mirror(m_repo.path().string(), state_dir() / "mirrors", {}));
    m_work_tree =
        value_of(open_work_tree(state_dir() / "work", m_mirror->path(), m_mirror->display_url(), *m_log));
    SandboxConfig sandbox;
    sandbox.kind = "auto";
    m_sandbox = value_of(make_sandbox(sandbox, state_dir() / "sandbox", *m_log));
  }

  fs::path state_dir() const { return m_tmp / "state"; }

  RuntimeSourceOptions options() const {
    RuntimeSourceOptions options;
    options.state_dir = state_dir();
    options.build.paths = {"setup.py", "csrc"};
    options.build.env = {};
    options.runtime.extract_timeout_seconds = 2;
    options.extract_program = AAW_BINARY;
    return options;
  }
  RuntimeSource& source(RuntimeSourceOptions options) {
    m_source = std::make_unique<RuntimeSource>(*m_work_tree, *m_sandbox, std::move(options), *m_log);
    return *m_source;
  }
  RuntimeSource& source() {
    if (!m_source) source(options());
    return *m_source;
  }
  std::vector<SignatureState> extract(const std::string& commit) {
    return value_of(source().extract(ObjectId{commit}, RuntimeFixture::functions()));
  }
  std::vector<SignatureState> extract_static(const std::string& commit) {
    StaticExtractor extractor(test::shared_python());
    auto tree = value_of(m_mirror->tree(ObjectId{commit}));
    std::vector<SignatureState> states;
    for (Extraction& e : value_of(extractor.extract(*tree, RuntimeFixture::functions())))
      states.push_back(std::move(e.state));
    return states;
  }
  // A stand-in extraction child: a shell script run with the same arguments.
  fs::path script(const std::string& body) {
    const fs::path file = m_tmp / "child.sh";
    std::ofstream(file) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(file, fs::perms::owner_all);
    return file;
  }

  std::shared_ptr<Logger> m_log = null_logger();
  test::TempDir m_tmp{"aaw-runtime"};
  test::GitFixture m_repo{m_tmp / "fixpkg"};
  test::RuntimeFixtureCommits m_commits;
  std::unique_ptr<GitMirror> m_mirror;
  std::unique_ptr<WorkTree> m_work_tree;
  std::unique_ptr<Sandbox> m_sandbox;
  std::unique_ptr<RuntimeSource> m_source;
};

enum Function { scale, combine, clamp, fused, product };

TEST_F(RuntimeExtractorTest, StatesFollowThePlantedChanges) {
  auto base = extract(m_commits.base);
  EXPECT_EQ(base[scale].summary(), "(x: float, factor: float = 2.0) -> float");
  EXPECT_EQ(base[combine].summary(), "(a, b, *, mode='sum')");
  EXPECT_EQ(base[clamp].summary(), "(x, lo=0, hi=1)");
  EXPECT_EQ(base[fused].summary(), "(x, y, *, scale=1.0)");
  EXPECT_EQ(base[product].status, Status::missing) << base[product].summary();

  EXPECT_EQ(extract(m_commits.param_added)[scale].summary(),
            "(x: float, factor: float = 2.0, offset: Optional[float] = None) -> float");
  EXPECT_EQ(extract(m_commits.param_removed)[combine].summary(), "(a, *, mode='sum')");
  EXPECT_EQ(extract(m_commits.default_changed)[clamp].summary(), "(x, lo=0, hi=10)");
  EXPECT_EQ(extract(m_commits.native_changed)[product].summary(), "(a, b)");
  // Any order: bisection asks for the newest commit first.
  EXPECT_EQ(extract(m_commits.base)[combine].summary(), "(a, b, *, mode='sum')");
}

TEST_F(RuntimeExtractorTest, AgreesWithStaticExtractionWhereBothCanSee) {
  for (const std::string& commit : {m_commits.base, m_commits.param_removed, m_commits.native_changed}) {
    auto runtime = extract(commit);
    auto statics = extract_static(commit);
    for (std::size_t i = 0; i < runtime.size(); ++i) {
      if (i == fused) continue;  // only runtime sees it
      ASSERT_EQ(runtime[i].status, statics[i].status)
          << commit << " function " << i << ": " << runtime[i].summary() << " vs " << statics[i].summary();
      if (!runtime[i].is_ok()) continue;
      EXPECT_TRUE(signature_disagreements(statics[i].signature, runtime[i].signature).empty())
          << statics[i].summary() << " vs " << runtime[i].summary();
      EXPECT_EQ(runtime[i].signature, statics[i].signature);  // annotations spelled alike here too
    }
  }
}

TEST_F(RuntimeExtractorTest, SeesTheFactoryFunctionStaticExtractionCannot) {
  EXPECT_EQ(extract_static(m_commits.base)[fused].status, Status::unresolved);
  const SignatureState runtime = extract(m_commits.base)[fused];
  ASSERT_TRUE(runtime.is_ok()) << runtime.summary();
  EXPECT_EQ(runtime.signature.parameters.back().kind, ParameterKind::keyword_only);
  EXPECT_EQ(runtime.signature.parameters.back().default_value, "1.0");
}

TEST_F(RuntimeExtractorTest, FailedBuildIsBuildFailedWithTheLogTail) {
  auto states = extract(m_commits.build_fails);
  for (const SignatureState& state : states) {
    EXPECT_EQ(state.status, Status::build_failed);
    EXPECT_TRUE(contains(state.detail, "exited with status 1")) << state.detail;
    EXPECT_TRUE(contains(state.detail, "planted build failure")) << state.detail;
  }
  EXPECT_TRUE(source().last_timings().built);
  EXPECT_TRUE(fs::exists(state_dir() / "logs" / (m_commits.build_fails + "-build.log")));
  EXPECT_EQ(extract(m_commits.build_fixed)[clamp].summary(), "(x, lo=0, hi=10)");
}

TEST_F(RuntimeExtractorTest, SegfaultingImportIsExtractFailedAndTheNextCommitIsNormal) {
  auto states = extract(m_commits.import_segfaults);
  for (const SignatureState& state : states) {
    EXPECT_EQ(state.status, Status::extract_failed);
    // The plain runner sees the signal; under bwrap its init reports it as status 128 + 11.
    EXPECT_TRUE(contains(state.detail, "signal 11") || contains(state.detail, "status 139")) << state.detail;
  }
  EXPECT_TRUE(contains(states[0].detail, "Fatal Python error")) << states[0].detail;  // faulthandler's trace
  EXPECT_EQ(extract(m_commits.segfault_fixed)[scale].status, Status::ok);
}

TEST_F(RuntimeExtractorTest, HangingImportTimesOutAndTheNextCommitIsNormal) {
  const auto start = std::chrono::steady_clock::now();
  auto states = extract(m_commits.import_hangs);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  for (const SignatureState& state : states) {
    EXPECT_EQ(state.status, Status::extract_failed);
    EXPECT_TRUE(contains(state.detail, "timed out after 2 s")) << state.detail;
  }
  EXPECT_EQ(extract(m_commits.hang_fixed)[scale].status, Status::ok);
}

TEST_F(RuntimeExtractorTest, SkipsTheRebuildWhenNothingUnderBuildPathsChanged) {
  extract(m_commits.base);
  EXPECT_TRUE(source().last_timings().built);
  EXPECT_GT(source().last_timings().build.count(), 0);
  EXPECT_EQ(extract(m_commits.param_added)[scale].signature.parameters.size(), 3u);  // fixpkg/api.py only
  EXPECT_FALSE(source().last_timings().built);
  EXPECT_EQ(extract(m_commits.native_changed)[product].summary(), "(a, b)");  // csrc changed
  EXPECT_TRUE(source().last_timings().built);
  extract(m_commits.docs_changed);
  EXPECT_FALSE(source().last_timings().built);
}

TEST_F(RuntimeExtractorTest, RemembersTheLastBuildAcrossRestarts) {
  extract(m_commits.base);
  source(options());  // a new source, as after a restart
  extract(m_commits.param_added);
  EXPECT_FALSE(source().last_timings().built);
}

TEST_F(RuntimeExtractorTest, RebuildsEverythingWhenBuildPathsIsEmpty) {
  RuntimeSourceOptions all_files = options();
  all_files.build.paths.clear();
  source(all_files);
  extract(m_commits.native_changed);
  extract(m_commits.docs_changed);  // README.md only
  EXPECT_TRUE(source().last_timings().built);
  extract(m_commits.docs_changed);  // the same tree again
  EXPECT_FALSE(source().last_timings().built);
}

TEST_F(RuntimeExtractorTest, FailedBuildIsNeverSkippedOver) {
  extract(m_commits.base);
  extract(m_commits.build_fails);
  extract(m_commits.base);  // same paths as the last good build, but the failed one came between
  EXPECT_TRUE(source().last_timings().built);
}

TEST_F(RuntimeExtractorTest, BuildSeesNoTokenOfTheParent) {
  ScopedEnv token("GITHUB_TOKEN", "ghp_planted_secret_value");
  ScopedEnv key("AWS_SECRET_ACCESS_KEY", "planted");
  RuntimeSourceOptions leaky = options();
  leaky.build.env = {{"MY_TOKEN", "planted"}};  // listed in build.env: still dropped
  source(leaky);
  auto states = extract(m_commits.base);
  ASSERT_EQ(states[scale].status, Status::ok) << states[scale].summary();
  EXPECT_TRUE(source().last_timings().built);
}

TEST_F(RuntimeExtractorTest, ChildWritingGarbageIsExtractFailed) {
  RuntimeSourceOptions garbage = options();
  garbage.extract_program = script("echo 'not json' > \"$3\"");
  source(garbage);
  for (const SignatureState& state : extract(m_commits.base)) {
    EXPECT_EQ(state.status, Status::extract_failed);
    EXPECT_TRUE(contains(state.detail, "unreadable result")) << state.detail;
  }
}

TEST_F(RuntimeExtractorTest, ChildWritingNoResultIsExtractFailed) {
  RuntimeSourceOptions silent = options();
  silent.extract_program = script("echo 'imported fine, honest'");
  source(silent);
  for (const SignatureState& state : extract(m_commits.base)) {
    EXPECT_EQ(state.status, Status::extract_failed);
    EXPECT_TRUE(contains(state.detail, "wrote no result")) << state.detail;
  }
}

TEST_F(RuntimeExtractorTest, KeepsTheLogsOfTheNewestCommitsOnly) {
  RuntimeSourceOptions few = options();
  few.kept_logs = 2;
  source(few);
  for (const std::string& commit : {m_commits.base, m_commits.param_added, m_commits.param_removed})
    extract(commit);
  EXPECT_FALSE(fs::exists(state_dir() / "logs" / (m_commits.base + "-extract.log")));
  EXPECT_TRUE(fs::exists(state_dir() / "logs" / (m_commits.param_removed + "-extract.log")));
  EXPECT_TRUE(fs::exists(state_dir() / "logs" / (m_commits.param_added + "-extract.log")));
}

TEST_F(RuntimeExtractorTest, WaitsWhileAnotherProcessHoldsTheStateDirectory) {
  fs::create_directories(state_dir());
  const int fd = ::open((state_dir() / "runtime.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);  // as another process's extraction would
  auto running = std::async(std::launch::async, [&] { return extract(m_commits.base); });
  EXPECT_EQ(running.wait_for(std::chrono::milliseconds(500)), std::future_status::timeout);
  EXPECT_FALSE(fs::exists(m_work_tree->path() / "setup.py"));  // not even checked out
  ::close(fd);
  EXPECT_EQ(running.get()[scale].status, Status::ok);
}

TEST_F(RuntimeExtractorTest, UnknownCommitIsAnError) {
  auto result = source().extract(ObjectId{std::string(40, 'b')}, RuntimeFixture::functions());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), ErrorCode::not_found);
}

TEST(TopLevelPackageTest, IsThePackageTheImportStatementImports) {
  EXPECT_EQ(top_level_package(
                {"import aiter.fused_moe_bf16_asm as rocm_aiter_asm_fmoe", "rocm_aiter_asm_fmoe.asm_moe"}),
            "aiter");
  EXPECT_EQ(top_level_package({"from aiter import fmoe_fp8_blockscale_g1u1", "fmoe_fp8_blockscale_g1u1"}),
            "aiter");
  EXPECT_EQ(top_level_package({"  import aiter", "aiter.fmoe"}), "aiter");
  EXPECT_EQ(top_level_package({"from . import x", "x.f"}), "x");
}

}  // namespace
}  // namespace aaw
