// The consumer check on real parts: a consumer tree on disk scanned by the embedded interpreter,
// a provider's git history read by the static extractor, every call bound by inspect.
#include "extract/consumer/consumer_scanner.hpp"

#include <gtest/gtest.h>

#include <map>

#include "core/consumer/consumer_check.hpp"
#include "extract/consumer/python_call_binder.hpp"
#include "extract/static/incremental_static_source.hpp"
#include "io/git/libgit2_mirror.hpp"
#include "support/memory_result_cache.hpp"
#include "support/shared_python.hpp"
#include "support/synthetic_consumer.hpp"
#include "support/temp_dir.hpp"

namespace aaw {
namespace {

class ConsumerCheckTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = std::make_unique<test::TempDir>("aaw-consumer");
    test::GitFixture repo(s_dir->path() / "provider");
    s_commits = test::SyntheticConsumer::build_provider(repo);
    test::SyntheticConsumer::write_consumer(s_dir->path() / "tree");
  }
  static void TearDownTestSuite() { s_dir.reset(); }

  void SetUp() override {
    auto mirror = open_mirror((s_dir->path() / "provider").string(), m_work.path() / "mirrors", {});
    ASSERT_TRUE(mirror) << mirror.error().message();
    m_mirror = std::move(*mirror);
    m_source = std::make_unique<IncrementalStaticSource>(*m_mirror, m_extractor);
    auto scan = scan_consumer(test::shared_python(), s_dir->path() / "tree", "aiter");
    ASSERT_TRUE(scan) << scan.error().message();
    m_scan = std::move(*scan);
  }

  ConsumerCheck check_at(const std::string& commit) {
    auto check = check_consumer(m_scan, *m_source, m_binder, ObjectId{commit});
    EXPECT_TRUE(check) << check.error().message();
    return check ? std::move(*check) : ConsumerCheck{};
  }

  // caller -> the verdicts of its call sites, in line order.
  static std::map<std::string, std::vector<const SiteVerdict*>> by_caller(const ConsumerCheck& check) {
    std::map<std::string, std::vector<const SiteVerdict*>> out;
    for (const SiteVerdict& s : check.sites) out[s.site->caller].push_back(&s);
    for (auto& [caller, sites] : out)
      std::sort(sites.begin(), sites.end(), [](auto* a, auto* b) { return a->site->line < b->site->line; });
    return out;
  }

  test::TempDir m_work{"aaw-consumer-run"};
  StaticExtractor m_extractor{test::shared_python()};
  PythonCallBinder m_binder{test::shared_python()};
  std::unique_ptr<GitMirror> m_mirror;
  std::unique_ptr<IncrementalStaticSource> m_source;
  ConsumerScan m_scan;
  static std::unique_ptr<test::TempDir> s_dir;
  static test::SyntheticProviderCommits s_commits;
};

std::unique_ptr<test::TempDir> ConsumerCheckTest::s_dir;
test::SyntheticProviderCommits ConsumerCheckTest::s_commits;

TEST_F(ConsumerCheckTest, ScanFindsEveryFunctionWithItsImportAsWritten) {
  std::map<std::string, MonitoredFunction> found;
  for (const ConsumerFunction& f : m_scan.functions) found[f.target] = f.function;
  EXPECT_EQ(found.size(), 7u);
  EXPECT_EQ(found["aiter.topk"].import_statement, "import aiter as rocm_aiter");
  EXPECT_EQ(found["aiter.topk"].function_path, "rocm_aiter.topk");
  EXPECT_EQ(found["aiter.legacy.gemm.gemm"].import_statement, "from aiter.legacy.gemm import gemm");
  EXPECT_EQ(found["aiter.ops.new_name"].function_path, "norm");
  EXPECT_EQ(m_scan.document.at("errors").size(), 1u);
  EXPECT_EQ(m_scan.document.at("files_importing"), 2);
}

TEST_F(ConsumerCheckTest, EveryCallGetsItsVerdictAtTheHeadWithPythonsReason) {
  auto check = check_at(s_commits.head);
  auto callers = by_caller(check);
  auto verdict = [&](const std::string& caller, std::size_t i = 0) {
    return callers.at(caller).at(i)->binding;
  };
  EXPECT_EQ(verdict("binds_lazy_import").verdict, Verdict::binds);
  EXPECT_EQ(verdict("breaks_too_many_positional").reason, "too many positional arguments");
  EXPECT_EQ(verdict("breaks_unexpected_keyword").reason, "got an unexpected keyword argument 'causal'");
  EXPECT_EQ(verdict("breaks_missing_argument").reason, "missing a required argument: 'w'");
  EXPECT_EQ(verdict("breaks_given_twice").reason, "multiple values for argument 'w'");
  EXPECT_NE(verdict("breaks_positional_only_by_keyword").reason.find("positional"), std::string::npos);
  EXPECT_EQ(verdict("breaks_not_importable").reason,
            "no longer importable: module 'aiter.legacy.gemm' not found");
  for (const char* caller :
       {"breaks_too_many_positional", "breaks_unexpected_keyword", "breaks_missing_argument",
        "breaks_given_twice", "breaks_positional_only_by_keyword", "breaks_not_importable"})
    EXPECT_EQ(verdict(caller).verdict, Verdict::breaks) << caller;
  EXPECT_EQ(verdict("guarded_hasattr").verdict, Verdict::guarded);
  EXPECT_EQ(verdict("guarded_signature", 0).verdict, Verdict::guarded);
  EXPECT_EQ(verdict("guarded_signature", 1).verdict, Verdict::binds);
  EXPECT_EQ(verdict("guarded_fallback").verdict, Verdict::guarded);
  EXPECT_EQ(verdict("unknown_forwarding").verdict, Verdict::unknown);
  EXPECT_EQ(verdict("Layer.breaks_through_self").verdict, Verdict::breaks);
  EXPECT_EQ(verdict("Layer.breaks_through_self").reason,
            "too many positional arguments; reached through 'self.fn'");
  EXPECT_EQ(verdict("Layer.unknown_ambiguous").verdict, Verdict::unknown);
  EXPECT_EQ(verdict("Layer.unknown_ambiguous").reason,
            "'self.attention' is also assigned functools.partial(aiter.attn, scale=2) at line 14");
  EXPECT_EQ(verdict("Layer.unknown_ambiguous").cause, "ambiguous");
  // The scan alone lists the calls through torch.ops (check binds those it finds registered), and
  // the file that names the package but does not parse.
  ASSERT_EQ(check.unchecked.size(), 3u);
  EXPECT_EQ(
      describe(check.unchecked[0]),
      "not checked consumer/layer.py:23 (Layer.not_checked_torch_ops): call of torch.ops.aiter.rms_norm "
      "(through self.ops.rms_norm)");
  EXPECT_EQ(
      describe(check.unchecked[2])
          .rfind("not checked consumer/broken.py:2: no call in this file is checked: not valid Python: ", 0),
      0u)
      << describe(check.unchecked[2]);
  EXPECT_EQ(consumer_exit_code(check), 1);
}

TEST_F(ConsumerCheckTest, FunctionsNoLongerImportableComeFirst) {
  auto check = check_at(s_commits.head);
  ASSERT_FALSE(check.sites.empty());
  EXPECT_EQ(check.sites.front().site->caller, "breaks_not_importable");
  EXPECT_TRUE(check.sites.front().not_importable);
}

TEST_F(ConsumerCheckTest, CallsThatBoundBeforeTheBreakingCommitStillBindAfterACompatibleChange) {
  auto check = check_at(s_commits.compatible);
  auto callers = by_caller(check);
  for (const char* caller : {"binds_lazy_import", "breaks_too_many_positional", "breaks_unexpected_keyword",
                             "breaks_not_importable", "guarded_hasattr"})
    EXPECT_EQ(callers.at(caller).at(0)->binding.verdict, Verdict::binds) << caller;
  EXPECT_EQ(callers.at("breaks_missing_argument").at(0)->binding.verdict, Verdict::breaks);
}

TEST_F(ConsumerCheckTest, BlameNamesTheCommitEachCallStoppedBindingAt) {
  auto check = check_at(s_commits.head);
  std::vector<ObjectId> history;
  std::string at = s_commits.head;
  for (;;) {
    history.insert(history.begin(), ObjectId{at});
    auto info = m_mirror->commit_info(ObjectId{at});
    ASSERT_TRUE(info);
    if (info->parents.empty()) break;
    at = info->parents.front().hex;
  }
  auto followed = blame_consumer(check, *m_source, m_binder, history);
  ASSERT_TRUE(followed) << followed.error().message();
  EXPECT_EQ(*followed, history.size());
  auto callers = by_caller(check);
  for (const char* caller : {"breaks_too_many_positional", "breaks_unexpected_keyword",
                             "breaks_not_importable", "guarded_hasattr"}) {
    ASSERT_TRUE(callers.at(caller).at(0)->broken_since) << caller;
    EXPECT_EQ(callers.at(caller).at(0)->broken_since->hex, s_commits.breaking) << caller;
  }
  // Never bound anywhere in the history: no commit to blame.
  EXPECT_FALSE(callers.at("breaks_missing_argument").at(0)->broken_since);
  EXPECT_FALSE(callers.at("guarded_fallback").at(0)->broken_since);
  EXPECT_FALSE(callers.at("binds_lazy_import").at(0)->broken_since);
}

TEST_F(ConsumerCheckTest, AMissingConsumerDirectoryIsAnErrorNamingIt) {
  auto scan = scan_consumer(test::shared_python(), m_work.path() / "nowhere", "aiter");
  ASSERT_FALSE(scan);
  EXPECT_EQ(scan.error().code(), ErrorCode::invalid_input);
  EXPECT_NE(scan.error().message().find("nowhere': no such directory"), std::string::npos)
      << scan.error().message();
}

// Through the real interpreter: the files naming the package are scanned once into the cache, then
// read from it, and the scan is the same document.
TEST_F(ConsumerCheckTest, AScanWithACacheStoresEachFileNamingThePackageAndThenReadsIt) {
  test::MemoryResultCache cache;
  auto first = scan_consumer(test::shared_python(), s_dir->path() / "tree", "aiter", {}, &cache);
  ASSERT_TRUE(first) << first.error().message();
  EXPECT_EQ(cache.puts, 3);  // ops.py, layer.py and broken.py name aiter; plain.py does not
  EXPECT_EQ(cache.hits, 0);
  auto second = scan_consumer(test::shared_python(), s_dir->path() / "tree", "aiter", {}, &cache);
  ASSERT_TRUE(second) << second.error().message();
  EXPECT_EQ(cache.hits, 3);
  EXPECT_EQ(cache.puts, 3);
  EXPECT_EQ(second->document, first->document);
  EXPECT_EQ(first->document, m_scan.document);
}

}  // namespace
}  // namespace aaw
