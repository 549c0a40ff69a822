// RuntimeSource with real parts: the fixpkg history in a real mirror and work tree, real builds of
// its C extension through the real sandbox, and the built binary as the extraction child.
#include "extract/runtime/runtime_source.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "core/model/cross_check.hpp"
#include "extract/static/static_extractor.hpp"
#include "io/git/libgit2_mirror.hpp"
#include "io/git/libgit2_work_tree.hpp"
#include "io/python/embedded_python.hpp"
#include "io/sandbox/sandbox_posix.hpp"
#include "support/git_fixture.hpp"
#include "support/runtime_fixture.hpp"
#include "support/sample_values.hpp"
#include "support/scoped_env.hpp"
#include "support/shared_python.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"

namespace aaw {
namespace {

using test::ScopedEnv;

using test::value_of;

namespace fs = std::filesystem;
using test::RuntimeFixture;

using test::contains;

class RuntimeExtractorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_commits = RuntimeFixture::build(m_repo);
    m_mirror = value_of(open_mirror(m_repo.path().string(), state_dir() / "mirrors", {}));
    SandboxConfig sandbox;
    sandbox.kind = sandbox_kind();
    // As the daemon does: the state directory hidden from builds, the token file too.
    std::ofstream(token_file()) << "ghp_planted_token_file\n";
    auto made = make_sandbox(sandbox, state_dir() / "sandbox", *m_log, {{token_file()}, {state_dir()}});
    if (!made) GTEST_SKIP() << made.error().message();
    m_sandbox = std::move(*made);
    // As the daemon does: every checkout confined in the builds' sandbox.
    WorkTreeOptions confined;
    confined.sandbox = m_sandbox.get();
    confined.program = AAW_BINARY;
    m_work_tree = value_of(
        open_work_tree(state_dir() / "work", m_mirror->path(), m_mirror->display_url(), *m_log, confined));
  }

  virtual std::string sandbox_kind() const { return "auto"; }
  fs::path state_dir() const { return m_tmp / "state"; }
  fs::path token_file() const { return m_tmp / "token"; }

  RuntimeSourceOptions options() const {
    RuntimeSourceOptions options;
    options.state_dir = state_dir();
    options.build.paths = {"setup.py", "csrc"};
    options.build.env = {};
    options.runtime.extract_timeout_seconds = 2;
    options.extract_program = AAW_BINARY;
    options.python = embedded_python_executable();
    options.python_version = embedded_python_version();
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

TEST_F(RuntimeExtractorTest, BuildRecordHoldsNoSecretOfBuildEnv) {
  RuntimeSourceOptions leaky = options();
  leaky.build.env = {{"MY_TOKEN", "ghp_planted_in_build_env"}, {"PREBUILD_KERNELS", "0"}};
  source(leaky);
  extract(m_commits.base);
  ASSERT_TRUE(source().last_timings().built);
  std::ifstream in(state_dir() / "last_build.json");
  std::stringstream record;
  record << in.rdbuf();
  EXPECT_FALSE(contains(record.str(), "ghp_planted_in_build_env")) << record.str();
  EXPECT_FALSE(contains(record.str(), "MY_TOKEN")) << record.str();
  EXPECT_TRUE(contains(record.str(), "PREBUILD_KERNELS")) << record.str();
  source(leaky);  // as after a restart: the record still matches, so nothing is rebuilt
  extract(m_commits.param_added);
  EXPECT_FALSE(source().last_timings().built);
}

TEST_F(RuntimeExtractorTest, BuildCannotMakeTheNextCheckoutWriteOutsideTheWorkTree) {
  if (m_sandbox->kind() == "process")
    GTEST_SKIP() << "neither bubblewrap nor Landlock: builds are not confined";
  const fs::path victim = m_tmp / "victim.txt";
  std::ofstream(victim) << "precious\n";
  RuntimeSourceOptions planting = options();
  planting.build.paths.clear();  // every commit builds
  // A tracked file replaced by a link to a file outside: the next checkout rewrites README.md.
  planting.build.command = {"sh", "-c", "rm -f README.md && ln -s " + victim.string() + " README.md"};
  source(planting);
  extract(m_commits.native_changed);
  ASSERT_TRUE(fs::is_symlink(state_dir() / "work" / "README.md"));
  extract(m_commits.docs_changed);
  std::ifstream in(victim);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "precious\n");
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

// ---- a broken build is not a removed function ----------------------------------------------------

TEST_F(RuntimeExtractorTest, ExtensionABuildNeverProducedIsImportErrorNotMissing) {
  RuntimeSourceOptions unbuilt = options();
  unbuilt.build.command.clear();  // fixpkg._native is never compiled, as after a failed build
  source(unbuilt);
  for (const SignatureState& state : extract(m_commits.base)) {
    EXPECT_EQ(state.status, Status::import_error) << state.summary();
    EXPECT_TRUE(contains(state.detail, "fixpkg._native")) << state.detail;
  }
}

TEST_F(RuntimeExtractorTest, ModuleOrNameTheStatementImportsIsStillMissing) {
  const std::vector<MonitoredFunction> functions = {{"import fixpkg.gone as g", "g.f"},
                                                    {"from fixpkg.gone import f", "f"},
                                                    {"from fixpkg.api import gone", "gone"},
                                                    {"import fixpkg", "fixpkg.gone"}};
  auto states = value_of(source().extract(ObjectId{m_commits.base}, functions));
  for (const SignatureState& state : states) EXPECT_EQ(state.status, Status::missing) << state.summary();
}

// ---- a stop request (SIGTERM to the daemon) ends the wait ------------------------------------------

// True once `after` has passed since the first call.
std::function<bool()> stop_after(std::chrono::milliseconds after) {
  auto start = std::make_shared<std::optional<std::chrono::steady_clock::time_point>>();
  return [start, after] {
    const auto now = std::chrono::steady_clock::now();
    if (!*start) *start = now;
    return now - **start >= after;
  };
}

// Whether some process (a zombie included) has `word` as one argument.
bool process_with_argument(const std::string& word) {
  const std::string needle = std::string(1, '\0') + word + std::string(1, '\0');
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (text.str().find(needle) != std::string::npos) return true;
  }
  return false;
}

// True 500 ms after `file` appears.
std::function<bool()> stop_once_there(const fs::path& file) {
  auto seen = std::make_shared<std::optional<std::chrono::steady_clock::time_point>>();
  return [seen, file] {
    const auto now = std::chrono::steady_clock::now();
    if (!*seen && fs::exists(file)) *seen = now;
    return *seen && now - **seen >= std::chrono::milliseconds(500);
  };
}

TEST_F(RuntimeExtractorTest, StopDuringABuildIsCancelledAndLeavesNoProcess) {
  RuntimeSourceOptions slow = options();
  // 30.25: an argument no other process has; under bwrap its pid is not ours to look up.
  slow.build.command = {"sh", "-c", "touch build.started; exec sleep 30.25"};
  slow.stop_requested = stop_once_there(m_work_tree->path() / "build.started");
  source(slow);
  const auto start = std::chrono::steady_clock::now();
  auto result = source().extract(ObjectId{m_commits.base}, RuntimeFixture::functions());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));  // venv + 0.5 s + grace
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), ErrorCode::cancelled) << result.error().message();
  EXPECT_FALSE(process_with_argument("30.25")) << "the build is still there";
  EXPECT_FALSE(fs::exists(state_dir() / "last_build.json"));  // not a successful build
}

TEST_F(RuntimeExtractorTest, StopDuringTheExtractionChildIsCancelled) {
  extract(m_commits.base);  // built
  RuntimeSourceOptions slow = options();
  slow.runtime.extract_timeout_seconds = 60;
  slow.extract_program = script("exec sleep 30");
  slow.stop_requested = stop_after(std::chrono::milliseconds(300));
  source(slow);
  const auto start = std::chrono::steady_clock::now();
  auto result = source().extract(ObjectId{m_commits.param_added}, RuntimeFixture::functions());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), ErrorCode::cancelled) << result.error().message();
}

TEST_F(RuntimeExtractorTest, StopWhileWaitingForTheStateDirectoryIsCancelled) {
  fs::create_directories(state_dir());
  const int fd = ::open((state_dir() / "runtime.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  RuntimeSourceOptions stopping = options();
  stopping.stop_requested = stop_after(std::chrono::milliseconds(300));
  source(stopping);
  const auto start = std::chrono::steady_clock::now();
  auto result = source().extract(ObjectId{m_commits.base}, RuntimeFixture::functions());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  ::close(fd);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), ErrorCode::cancelled) << result.error().message();
  EXPECT_FALSE(fs::exists(m_work_tree->path() / "setup.py"));  // not even checked out
}

// ---- a crash at interpreter exit ------------------------------------------------------------------

TEST_F(RuntimeExtractorTest, CrashInAnAtexitHandlerDoesNotCostTheResult) {
  const std::string crashing = RuntimeFixture::add_exit_crash(m_repo);
  ASSERT_TRUE(m_mirror->fetch());
  auto states = extract(crashing);
  EXPECT_EQ(states[scale].status, Status::ok) << states[scale].summary();
  EXPECT_EQ(states[product].summary(), "(a, b)");
  // The child left without finalizing the interpreter: the handler never ran.
  std::ifstream log(state_dir() / "logs" / (crashing + "-extract.log"));
  std::ostringstream text;
  text << log.rdbuf();
  EXPECT_FALSE(contains(text.str(), "Fatal Python error")) << text.str();
}

TEST_F(RuntimeExtractorTest, ChildCrashingAfterWritingAWholeResultKeepsTheResult) {
  RuntimeSourceOptions crashing = options();
  std::string states = "{\"states\": [";
  for (std::size_t i = 0; i < RuntimeFixture::functions().size(); ++i)
    states += std::string(i ? ", " : "") + "{\"status\": \"missing\", \"detail\": \"planted\"}";
  states += "]}";
  crashing.extract_program = script("printf '%s' '" + states + "' > \"$3\"; kill -SEGV $$");
  source(crashing);
  for (const SignatureState& state : extract(m_commits.base)) {
    EXPECT_EQ(state.status, Status::missing) << state.summary();
    EXPECT_EQ(state.detail, "planted");
  }
}

// ---- the venv's Python ----------------------------------------------------------------------------

TEST_F(RuntimeExtractorTest, VenvOfAnotherPythonIsExtractFailedSayingSo) {
  extract(m_commits.base);
  const fs::path config = source().venv() / "pyvenv.cfg";
  std::ifstream in(config);
  std::ostringstream text;
  for (std::string line; std::getline(in, line);)
    text << (line.rfind("version", 0) == 0 ? "version = 2.7.18" : line) << "\n";
  in.close();
  std::ofstream(config, std::ios::trunc) << text.str();
  for (const SignatureState& state : extract(m_commits.param_added)) {
    EXPECT_EQ(state.status, Status::extract_failed);
    EXPECT_TRUE(contains(state.detail, "is for Python 2.7")) << state.detail;
  }
}

TEST_F(RuntimeExtractorTest, VenvMadeForAnotherPythonVersionIsRecreatedAndRebuilt) {
  extract(m_commits.base);
  const fs::path marker = source().venv() / ".aaw-python";
  std::ofstream(marker, std::ios::trunc) << embedded_python_executable().string() << "\n3.0\n";
  source(options());  // a new binary, as after an upgrade of the embedded Python
  EXPECT_EQ(extract(m_commits.param_added)[scale].status, Status::ok);
  EXPECT_TRUE(source().last_timings().built);
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

// The same extractor with builds, imports and checkouts confined by Landlock instead of namespaces,
// as inside a container started with `docker run` defaults.
class RuntimeExtractorLandlockTest : public RuntimeExtractorTest {
 protected:
  std::string sandbox_kind() const override { return "landlock"; }
};

TEST_F(RuntimeExtractorLandlockTest, StatesFollowThePlantedChanges) {
  EXPECT_EQ(extract(m_commits.base)[scale].summary(), "(x: float, factor: float = 2.0) -> float");
  EXPECT_EQ(extract(m_commits.param_removed)[combine].summary(), "(a, *, mode='sum')");
  EXPECT_EQ(extract(m_commits.native_changed)[product].summary(), "(a, b)");
}

TEST_F(RuntimeExtractorLandlockTest, BuildReadsNeitherTheTokenNorTheStoreAndWritesOnlyItsTree) {
  std::ofstream(state_dir() / "state.db") << "the store\n";
  const fs::path victim = m_tmp / "victim.txt";
  std::ofstream(victim) << "precious\n";
  RuntimeSourceOptions hostile = options();
  hostile.build.paths.clear();
  hostile.build.command = {"sh", "-c",
                           "cat " + token_file().string() + " " + (state_dir() / "state.db").string() +
                               " > stolen.txt 2>&1; "
                               "echo x > " +
                               victim.string() + "; echo x > " + (state_dir() / "state.db").string() +
                               "; "
                               "rm -f README.md && ln -s " +
                               victim.string() + " README.md; {python} setup.py develop"};
  source(hostile);
  auto states = extract(m_commits.native_changed);
  EXPECT_EQ(states[scale].status, Status::ok) << states[scale].summary();
  const std::string stolen = test::read_text(state_dir() / "work" / "stolen.txt");
  EXPECT_FALSE(contains(stolen, "ghp_planted")) << stolen;
  EXPECT_FALSE(contains(stolen, "the store")) << stolen;
  extract(m_commits.docs_changed);  // the checkout rewrites README.md, the planted link
  EXPECT_EQ(test::read_text(victim), "precious\n");
  EXPECT_EQ(test::read_text(state_dir() / "state.db"), "the store\n");
}

TEST_F(RuntimeExtractorLandlockTest, SegfaultingImportIsExtractFailedAndTheNextCommitIsNormal) {
  auto crashed = extract(m_commits.import_segfaults);
  EXPECT_EQ(crashed[scale].status, Status::extract_failed);
  EXPECT_EQ(extract(m_commits.base)[scale].status, Status::ok);
}

}  // namespace
}  // namespace aaw
