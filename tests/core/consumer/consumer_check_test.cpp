// check_consumer and blame_consumer on fakes: ordering, exit code, renderings, and how few
// commits blame extracts; the --since-pin document.
#include "core/consumer/consumer_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>

#include "core/consumer/consumer_upgrade.hpp"
#include "support/fake_call_binder.hpp"

namespace aaw {
namespace {

// States from a function of (commit, function_path); counts the commits extracted.
class TableSource : public SignatureSource {
 public:
  std::function<SignatureState(const std::string&, const std::string&)> state;
  std::map<std::string, Error> errors;
  std::size_t extractions = 0;
  Result<std::vector<SignatureState>> extract(const ObjectId& commit,
                                              const std::vector<MonitoredFunction>& functions) override {
    ++extractions;
    if (auto e = errors.find(commit.hex); e != errors.end()) return e->second;
    std::vector<SignatureState> out;
    for (const MonitoredFunction& f : functions) out.push_back(state(commit.hex, f.function_path));
    return out;
  }
};

class ConsumerCheckCoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_scan.functions.push_back(
        {{"import aiter", "aiter.a"}, "aiter.a", {test::site("z.py", 9, 1), test::site("a.py", 3, 3)}});
    m_scan.functions.push_back({{"import aiter", "aiter.gone"}, "aiter.gone", {test::site("m.py", 5, 0)}});
    for (int i = 0; i < 40; ++i) m_history.push_back(ObjectId{"c" + std::to_string(i)});
    // aiter.a takes 3 parameters until c29, then 2; aiter.gone exists until c9.
    m_source.state = [](const std::string& commit, const std::string& function) {
      int i = std::stoi(commit.substr(1));
      if (function == "aiter.a") return test::params(i < 30 ? 3 : 2);
      return i < 10 ? test::params(0) : SignatureState::failed(Status::missing, "module not found");
    };
  }
  ConsumerScan m_scan;
  std::vector<ObjectId> m_history;
  TableSource m_source;
  test::FakeCallBinder m_binder;
};

TEST_F(ConsumerCheckCoreTest, NotImportableFirstThenBreaksThenBindsByFileAndLine) {
  auto check = check_consumer(m_scan, m_source, m_binder, m_history.back());
  ASSERT_TRUE(check);
  ASSERT_EQ(check->sites.size(), 3u);
  EXPECT_EQ(check->sites[0].site->file, "m.py");
  EXPECT_TRUE(check->sites[0].not_importable);
  EXPECT_EQ(check->sites[1].site->file, "a.py");
  EXPECT_EQ(check->sites[1].binding.verdict, Verdict::breaks);
  EXPECT_EQ(check->sites[2].binding.verdict, Verdict::binds);
  EXPECT_EQ(consumer_exit_code(*check), 1);
}

TEST_F(ConsumerCheckCoreTest, NothingBrokenExitsZero) {
  auto check = check_consumer(m_scan, m_source, m_binder, ObjectId{"c5"});
  ASSERT_TRUE(check);
  EXPECT_EQ(check->count(Verdict::binds), 3u);
  EXPECT_EQ(consumer_exit_code(*check), 0);
}

// A verdict against a signature the tool cannot vouch for says so on its line, in the JSON and in
// the summary's count.
TEST_F(ConsumerCheckCoreTest, SitesBoundAgainstAnUnverifiedSignatureAreMarkedAndCounted) {
  m_source.state = [](const std::string&, const std::string& function) {
    SignatureState state = test::params(function == "aiter.a" ? 3 : 0);
    if (function == "aiter.a") state.unverified = "decorated with @somelib.jit";
    return state;
  };
  auto check = check_consumer(m_scan, m_source, m_binder, ObjectId{"c5"});
  ASSERT_TRUE(check);
  EXPECT_EQ(check->unverified_sites(), 2u);
  EXPECT_NE(summary_line(*check).find("(2 sites are bound against a signature the tool cannot vouch for"),
            std::string::npos)
      << summary_line(*check);
  EXPECT_EQ(summary_json(*check)["unverified"], 2);
  const SiteVerdict& a = *std::find_if(check->sites.begin(), check->sites.end(),
                                       [](const SiteVerdict& s) { return s.site->file == "a.py"; });
  EXPECT_NE(describe(a).find("[signature unverified: decorated with @somelib.jit]"), std::string::npos);
  EXPECT_EQ(to_json(a)["unverified"], "decorated with @somelib.jit");
  const SiteVerdict& m = *std::find_if(check->sites.begin(), check->sites.end(),
                                       [](const SiteVerdict& s) { return s.site->file == "m.py"; });
  EXPECT_TRUE(to_json(m)["unverified"].is_null());
}

TEST_F(ConsumerCheckCoreTest, BlameFindsTheFirstCommitOfEachBreak) {
  auto check = check_consumer(m_scan, m_source, m_binder, m_history.back());
  ASSERT_TRUE(check);
  auto followed = blame_consumer(*check, m_source, m_binder, m_history);
  ASSERT_TRUE(followed);
  ASSERT_TRUE(check->sites[0].broken_since);
  EXPECT_EQ(check->sites[0].broken_since->hex, "c10");
  ASSERT_TRUE(check->sites[1].broken_since);
  EXPECT_EQ(check->sites[1].broken_since->hex, "c30");
  EXPECT_FALSE(check->sites[2].broken_since);
  EXPECT_FALSE(check->sites[1].bound_from) << "it bound from the first commit on";
  EXPECT_EQ(*followed, 40u);
}

// A call that bound only for a while (its keyword added at c12, gone at c31): blamed on the commit
// that ended the while, not left unblamed, and the while is named.
TEST_F(ConsumerCheckCoreTest, ACallThatBoundOnlyForAWhileIsBlamedOnTheCommitThatEndedIt) {
  CallSite passes_arch = test::site("w.py", 7, 0);
  passes_arch.keywords = {"arch"};
  m_scan.functions = {{{"import aiter", "aiter.shuffle_weight"}, "aiter.shuffle_weight", {passes_arch}}};
  m_source.state = [](const std::string& commit, const std::string&) {
    int i = std::stoi(commit.substr(1));
    Signature s;
    s.parameters.push_back({"w", ParameterKind::positional_or_keyword, std::string("None"), {}});
    if (i >= 12 && i < 31) s.parameters.push_back({"arch", ParameterKind::positional_or_keyword, {}, {}});
    if (i >= 31) s.parameters.push_back({"gfx", ParameterKind::positional_or_keyword, {}, {}});
    return SignatureState::ok(s);
  };
  auto check = check_consumer(m_scan, m_source, m_binder, m_history.back());
  ASSERT_TRUE(check);
  ASSERT_TRUE(blame_consumer(*check, m_source, m_binder, m_history));
  const SiteVerdict& site = check->sites[0];
  ASSERT_TRUE(site.broken_since);
  EXPECT_EQ(site.broken_since->hex, "c31");
  ASSERT_TRUE(site.bound_from);
  EXPECT_EQ(site.bound_from->hex, "c12");
  EXPECT_EQ(describe(site),
            "breaks w.py:7 (f) aiter.shuffle_weight: passes `arch=`, which shuffle_weight no longer accepts "
            "(renamed "
            "to `gfx` in c31): got an unexpected keyword argument 'arch' (broken since c31; it bound only "
            "from c12 on)");
  EXPECT_EQ(to_json(site).at("bound_from"), "c12");
}

TEST_F(ConsumerCheckCoreTest, ACallThatNeverBoundHasNoCommitToBlame) {
  m_scan.functions[0].call_sites.push_back(test::site("q.py", 1, 9));
  auto check = check_consumer(m_scan, m_source, m_binder, m_history.back());
  ASSERT_TRUE(check);
  ASSERT_TRUE(blame_consumer(*check, m_source, m_binder, m_history));
  for (const SiteVerdict& s : check->sites)
    if (s.site->file == "q.py") {
      EXPECT_FALSE(s.broken_since);
    }
}

TEST_F(ConsumerCheckCoreTest, AnExtractionErrorIsReturnedWithTheCommit) {
  m_source.errors.insert_or_assign("c39", Error(ErrorCode::git, "object missing"));
  auto check = check_consumer(m_scan, m_source, m_binder, m_history.back());
  ASSERT_FALSE(check);
  EXPECT_EQ(check.error().message(), "extracting at c39: object missing");
}

TEST_F(ConsumerCheckCoreTest, RenderingsCarryEveryVerdictAndEscapeMarkdown) {
  m_scan.functions[0].call_sites[0].caller = "a|b";
  auto check = check_consumer(m_scan, m_source, m_binder, m_history.back());
  ASSERT_TRUE(check);
  std::string text = render_consumer_text(*check);
  EXPECT_NE(text.find("breaks a.py:3 (f) aiter.a: too many positional arguments\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("3 call sites at c39: 2 break, 0 guarded, 0 unknown, 1 bind"), std::string::npos)
      << text;
  Json json = consumer_check_to_json(*check);
  EXPECT_EQ(json.at("call_sites").size(), 3u);
  EXPECT_TRUE(json.at("call_sites")[0].at("broken_since").is_null());
  EXPECT_EQ(json.at("exit_code"), 1) << "two call sites break: the process exits 1, and the document says so";
  EXPECT_NE(render_consumer_markdown(*check).find("z.py:9 (a\\|b)"), std::string::npos);
  // check --quiet: the breaks and the counts, not the call that binds.
  std::string quiet = render_consumer_text(*check, true);
  EXPECT_NE(text.find("binds "), std::string::npos) << text;
  EXPECT_EQ(quiet.find("binds "), std::string::npos) << quiet;
  EXPECT_NE(quiet.find("breaks a.py:3 (f) aiter.a: too many positional arguments\n"), std::string::npos)
      << quiet;
  EXPECT_NE(quiet.find("3 call sites at c39: 2 break, 0 guarded, 0 unknown, 1 bind"), std::string::npos)
      << quiet;
}

// A keyword the function took until a commit and no longer takes: the reason names the commit
// and the parameter in its place, or says it was removed.
TEST_F(ConsumerCheckCoreTest, AKeywordNoLongerTakenIsExplainedByTheCommitThatRenamedOrRemovedIt) {
  CallSite passes_softcap = test::site("k.py", 2, 1);
  passes_softcap.keywords = {"softcap"};
  CallSite passes_scale = test::site("k.py", 4, 1);
  passes_scale.keywords = {"scale"};
  m_scan.functions = {
      {{"import aiter", "aiter.attention"}, "aiter.attention", {passes_softcap, passes_scale}}};
  auto with = [](std::vector<std::string> names) {
    Signature s;
    for (const std::string& n : names)
      s.parameters.push_back({n, ParameterKind::positional_or_keyword, {}, {}});
    return SignatureState::ok(s);
  };
  m_source.state = [&](const std::string& commit, const std::string&) {
    int i = std::stoi(commit.substr(1));
    if (i < 20) return with({"q", "softcap", "scale"});
    return i < 30 ? with({"q", "logits_soft_cap", "scale"}) : with({"q", "logits_soft_cap"});
  };
  auto check = check_consumer(m_scan, m_source, m_binder, m_history.back());
  ASSERT_TRUE(check);
  ASSERT_TRUE(blame_consumer(*check, m_source, m_binder, m_history));
  std::map<int, std::string> reasons;
  for (const SiteVerdict& s : check->sites) reasons[s.site->line] = s.binding.reason;
  EXPECT_EQ(
      reasons[2],
      "passes `softcap=`, which attention no longer accepts (renamed to `logits_soft_cap` in c20): got an "
      "unexpected keyword argument 'softcap'");
  EXPECT_EQ(reasons[4],
            "passes `scale=`, which attention no longer accepts (removed in c30): got an unexpected keyword "
            "argument 'scale'");
}

// Like compare's and check's, the --since-pin document names its schema and carries its exit code:
// 0 when no commit since the pin breaks a call, 1 when one does.
TEST_F(ConsumerCheckCoreTest, TheSincePinDocumentNamesItsSchemaAndCarriesItsExitCode) {
  auto check = check_consumer(m_scan, m_source, m_binder, m_history.back());
  ASSERT_TRUE(check);
  ASSERT_EQ(check->sites[1].binding.verdict, Verdict::breaks);
  ConsumerUpgrade upgrade{&*check, ObjectId{"c0"}, {}, {&check->sites[0]}};
  Json quiet = upgrade_to_json(upgrade);
  EXPECT_EQ(quiet.at("schema"), "aiter-api-watcher/check-since-pin/2");
  EXPECT_EQ(quiet.at("exit_code"), 0);
  EXPECT_EQ(quiet.at("call_sites"), consumer_check_to_json(*check).at("call_sites"))
      << "the same shape as check's";
  EXPECT_EQ(quiet.at("summary"), summary_json(*check));
  EXPECT_EQ(quiet.at("already_broken").size(), 1u);

  CommitInfo commit;
  commit.id = ObjectId{"c30"};
  commit.subject = "drop a parameter (#7)";
  upgrade.steps.push_back({commit, std::string("#7"), {&check->sites[1]}, {}});
  Json breaking = upgrade_to_json(upgrade);
  EXPECT_EQ(breaking.at("exit_code"), upgrade_exit_code(upgrade));
  EXPECT_EQ(breaking.at("exit_code"), 1);
  EXPECT_EQ(breaking.at("breaking_commits").at(0).at("pull_request"), "#7");
}

}  // namespace
}  // namespace aaw
