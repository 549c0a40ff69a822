// The built binary's `discover` and `check` on a consumer tree and a provider served by a git
// daemon on loopback: the config --write-config makes, every output format, blame, bad inputs.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "support/git_daemon.hpp"
#include "support/process.hpp"
#include "support/synthetic_consumer.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"

namespace aaw::test {
namespace {

using Json = nlohmann::json;

class ConsumerCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = std::make_unique<TempDir>("aaw-consumer-cli");
    GitFixture repo(s_dir->path() / "work");
    s_commits = SyntheticConsumer::build_provider(repo);
    repo.bare_clone(s_dir->path() / "served" / "aiter.git");
    s_daemon = std::make_unique<GitDaemon>(s_dir->path() / "served");
    SyntheticConsumer::write_consumer(s_dir->path() / "vllm");
    // The same consumer as a repository, served beside the provider.
    GitFixture consumer_repo(s_dir->path() / "vllm-work");
    SyntheticConsumer::write_consumer(consumer_repo.path());
    consumer_repo.commit("consumer");
    consumer_repo.bare_clone(s_dir->path() / "served" / "vllm.git");
  }
  static void TearDownTestSuite() {
    s_daemon.reset();
    s_dir.reset();
  }

  ProcessResult run(const std::vector<std::string>& args) {
    return run_watcher(AAW_BINARY, m_work.path(), args);
  }
  static std::string consumer() { return (s_dir->path() / "vllm").string(); }

  // discover --write-config, then pointed at the daemon with state under the test's directory.
  std::filesystem::path written_config() {
    auto path = m_work.path() / "config.json";
    auto r = run({"discover", "--consumer", consumer(), "--write-config", path.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    Json config = Json::parse(std::ifstream(path));
    config["repository_url"] = s_daemon->url("aiter.git");
    config["state_dir"] = "state";
    config["log"] = {{"file", "watcher.log"}};
    std::ofstream(path) << config.dump(2);
    return path;
  }

  // replay --once of the provider's base, compatible and breaking commits.
  ProcessResult replay_to_breaking(const std::filesystem::path& config) {
    return run({"replay", "--config", config.string(), "--once", s_commits.base, s_commits.compatible,
                s_commits.breaking});
  }

  TempDir m_work{"aaw-consumer-cli-run"};
  static std::unique_ptr<TempDir> s_dir;
  static std::unique_ptr<GitDaemon> s_daemon;
  static SyntheticProviderCommits s_commits;
};

std::unique_ptr<TempDir> ConsumerCliTest::s_dir;
std::unique_ptr<GitDaemon> ConsumerCliTest::s_daemon;
SyntheticProviderCommits ConsumerCliTest::s_commits;

TEST_F(ConsumerCliTest, DiscoverPrintsOneEntryPerFunctionWithItsCallSites) {
  auto r = run({"discover", "--consumer", consumer()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(
      r.out, R"({"function_path":"rocm_aiter.topk","import_statement":"import aiter as rocm_aiter"})"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "consumer/ops.py:16 (breaks_too_many_positional): 3 positional")) << r.out;
  EXPECT_TRUE(contains(r.out, "(Layer.breaks_through_self): 3 positional; reached through 'self.fn'"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "7 functions in 14 call sites")) << r.out;
  EXPECT_TRUE(contains(r.err, "warning: consumer file 'consumer/broken.py': not valid Python")) << r.err;
}

TEST_F(ConsumerCliTest, DiscoverJsonCarriesFunctionsToMonitor) {
  auto r = run({"discover", "--consumer", consumer(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json doc = Json::parse(r.out);
  EXPECT_EQ(doc.at("functions_to_monitor").size(), 7u);
  EXPECT_EQ(doc.at("functions").size(), 7u);
  EXPECT_EQ(doc.at("files_scanned"), 4);
  EXPECT_EQ(doc.at("fallbacks").at(0).at("name"), "aiter.ops.rms_norm");
  EXPECT_EQ(doc.at("schema"), "aiter-api-watcher/discover/1");
  EXPECT_EQ(doc.at("exit_code"), 0);
}

TEST_F(ConsumerCliTest, CheckAtTheHeadFlagsTheBreakingCallsAndBlamesTheCommit) {
  auto config = written_config();
  auto r = run({"check", "--config", config.string(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 1) << r.err << r.out;
  Json doc = Json::parse(r.out);
  EXPECT_EQ(doc.at("commit"), s_commits.head);
  EXPECT_EQ(doc.at("call_sites").size(), 15u);
  const Json& first = doc.at("call_sites").at(0);
  EXPECT_EQ(first.at("function_path"), "gemm");
  EXPECT_EQ(first.at("import_statement"), "from aiter.legacy.gemm import gemm");
  EXPECT_EQ(first.at("verdict"), "breaks");
  EXPECT_EQ(first.at("broken_since"), s_commits.breaking);
  for (const Json& site : doc.at("call_sites")) {
    for (const char* key :
         {"function_path", "import_statement", "file", "line", "caller", "verdict", "reason", "broken_since"})
      EXPECT_TRUE(site.contains(key)) << key;
    if (site.at("caller") == "breaks_unexpected_keyword") {
      EXPECT_EQ(site.at("reason"),
                "passes `causal=`, which attn no longer accepts (renamed to `is_causal` in " +
                    s_commits.breaking.substr(0, 12) + "): got an unexpected keyword argument 'causal'");
      EXPECT_EQ(site.at("broken_since"), s_commits.breaking);
    }
  }
  EXPECT_EQ(doc.at("summary").at("breaks"), 7);
  EXPECT_EQ(doc.at("summary").at("unknown_by_cause"), Json({{"forwards", 1}, {"ambiguous", 1}}));
  EXPECT_EQ(doc.at("summary").at("not_checked"), 2);
  // consumer/broken.py names the package but does not parse: none of its calls is checked.
  EXPECT_EQ(doc.at("not_checked").at(1).at("file"), "consumer/broken.py");
  EXPECT_EQ(doc.at("not_checked").at(1).at("line"), 2);
  EXPECT_TRUE(
      contains(doc.at("not_checked").at(1).at("what"), "no call in this file is checked: not valid Python"))
      << doc.at("not_checked");
  EXPECT_TRUE(contains(doc.at("not_checked").at(0).at("what"),
                       "call of torch.ops.aiter.rms_norm (through self.ops.rms_norm): no registration of "
                       "'rms_norm' in the "))
      << doc.at("not_checked");
  // The op the provider registers with direct_register_custom_op binds against its function.
  bool torch_op = false;
  for (const Json& site : doc.at("call_sites")) {
    if (site.at("caller") != "Layer.binds_torch_op") continue;
    torch_op = true;
    EXPECT_EQ(site.at("target"), "aiter.sampling.top_k_renorm");
    EXPECT_EQ(site.at("verdict"), "binds");
  }
  EXPECT_TRUE(torch_op) << doc.at("call_sites");
}

TEST_F(ConsumerCliTest, CheckBeforeTheBreakingCommitInTextAndMarkdown) {
  auto config = written_config();
  auto r = run({"check", "--config", config.string(), s_commits.compatible});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // the calls that never bound still break
  EXPECT_TRUE(contains(r.out, "binds consumer/ops.py:16 (breaks_too_many_positional) aiter.topk\n")) << r.out;
  EXPECT_TRUE(contains(r.out,
                       "breaks consumer/ops.py:25 (breaks_missing_argument) aiter.rms_norm: missing a "
                       "required argument: 'w'"))
      << r.out;
  // --quiet: what breaks or cannot be checked, and the counts of every verdict.
  auto quiet = run({"check", "--config", config.string(), "--quiet", s_commits.compatible});
  EXPECT_EQ(quiet.exit_code, 1) << quiet.err;
  EXPECT_FALSE(contains(quiet.out, "binds ")) << quiet.out;
  EXPECT_TRUE(contains(quiet.out, "breaks consumer/ops.py:25 (breaks_missing_argument) aiter.rms_norm"))
      << quiet.out;
  EXPECT_TRUE(contains(quiet.out, " bind; 2 more places reach the package in ways that cannot be checked"))
      << "the summary still counts the calls that bind, and the places not checked: " << quiet.out;
  EXPECT_TRUE(contains(quiet.out,
                       "\nnot checked consumer/layer.py:23 (Layer.not_checked_torch_ops): call of "
                       "torch.ops.aiter.rms_norm"))
      << quiet.out;
  EXPECT_TRUE(contains(quiet.out,
                       "\nnot checked consumer/broken.py:2: no call in this file is checked: not valid "
                       "Python: "))
      << quiet.out;
  auto md = run({"check", "--config", config.string(), "--format", "markdown", "--no-blame"});
  EXPECT_EQ(md.exit_code, 1) << md.err;
  EXPECT_TRUE(contains(md.out,
                       "| breaks | `consumer/ops.py:16 (breaks_too_many_positional)` | `aiter.topk` | too "
                       "many positional arguments |  |"))
      << md.out;
}

TEST_F(ConsumerCliTest, TheReportListsTheCallSitesEachChangeBreaks) {
  auto config = written_config();
  auto replay = replay_to_breaking(config);
  ASSERT_EQ(replay.exit_code, 0) << replay.err << replay.out;
  auto r = run({"report", "--config", config.string(), "--out", (m_work.path() / "page").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(m_work.path() / "page" / "index.html");
  std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(contains(page, "Call sites this change breaks")) << page.substr(0, 2000);
  EXPECT_TRUE(contains(page, "consumer/ops.py:16 (breaks_too_many_positional)"));
  EXPECT_TRUE(contains(page, "too many positional arguments"));
  EXPECT_TRUE(contains(page, "consumer/ops.py:21 (breaks_unexpected_keyword)"));
  // rms_norm changed compatibly: its calls that bound still bind.
  EXPECT_TRUE(contains(page, "breaks none of the consumer&#39;s 3 call sites of this function") ||
              contains(page, "breaks none of the consumer's 3 call sites of this function"));
}

TEST_F(ConsumerCliTest, CompareSaysWhichCallSitesEachChangeBreaks) {
  auto config = written_config();
  auto r = run(
      {"compare", "--config", config.string(), "--format", "json", s_commits.compatible, s_commits.breaking});
  EXPECT_EQ(r.exit_code, 2) << r.err;  // the consumer's import of 'new_name' is found at neither commit
  Json doc = Json::parse(r.out);
  Json topk;
  for (const Json& f : doc.at("functions"))
    if (f.at("function_path") == "rocm_aiter.topk") topk = f;
  ASSERT_TRUE(topk.contains("consumer_impact")) << doc.dump(1);
  EXPECT_EQ(topk.at("consumer_impact").at("breaks_consumer"), true);
  std::map<std::string, std::string> reasons;  // by caller
  for (const Json& site : topk.at("consumer_impact").at("broken"))
    reasons[site.at("caller")] = site.at("reason");
  EXPECT_EQ(reasons["breaks_too_many_positional"], "too many positional arguments");
  EXPECT_EQ(reasons["Layer.breaks_through_self"], "too many positional arguments; reached through 'self.fn'");

  auto text = run({"compare", "--config", config.string(), s_commits.compatible, s_commits.breaking});
  EXPECT_TRUE(contains(text.out,
                       "  breaks consumer/ops.py:16 (breaks_too_many_positional): too many positional "
                       "arguments\n"))
      << text.out;
}

TEST_F(ConsumerCliTest, ReplayedChangesCarryTheirImpactInTheLogAndTheEvents) {
  auto config = written_config();
  auto replay = replay_to_breaking(config);
  ASSERT_EQ(replay.exit_code, 0) << replay.err << replay.out;
  EXPECT_TRUE(contains(replay.out,
                       "  breaks consumer/ops.py:21 (breaks_unexpected_keyword): got an unexpected "
                       "keyword argument 'causal'"))
      << replay.out;
  EXPECT_TRUE(contains(replay.out, "  consumer: breaks none of the consumer's 3 call sites")) << replay.out;
  std::ifstream events(m_work.path() / "state" / "events.jsonl");
  int with_impact = 0;
  for (std::string line; std::getline(events, line);) {
    Json event = Json::parse(line);
    if (event.contains("consumer_impact")) ++with_impact;
  }
  EXPECT_GE(with_impact, 3);
}

TEST_F(ConsumerCliTest, AConsumerGivenAsARepositoryIsMirroredCheckedOutAndScanned) {
  auto config = written_config();
  Json c = Json::parse(std::ifstream(config));
  c["consumer"] = {{"repository_url", s_daemon->url("vllm.git")}, {"branch", "main"}, {"package", "aiter"}};
  std::ofstream(config) << c.dump(2);
  auto r = run({"check", "--config", config.string(), "--format", "json", "--no-blame"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(Json::parse(r.out).at("call_sites").size(), 15u);
  EXPECT_TRUE(contains(r.err, "call sites of")) << r.err;
  Json stored = Json::parse(std::ifstream(m_work.path() / "state" / "consumer" / "scan.json"));
  EXPECT_EQ(stored.at("commit").get<std::string>().size(), 40u);
  std::size_t stored_sites = 0;
  for (const Json& f : stored.at("scan").at("functions")) stored_sites += f.at("call_sites").size();
  EXPECT_EQ(stored_sites, 14u);

  c["consumer"]["repository_url"] = s_daemon->url("nothing-here.git");
  std::ofstream(config) << c.dump(2);
  auto down = run({"check", "--config", config.string()});
  EXPECT_EQ(down.exit_code, 2);
  EXPECT_TRUE(contains(down.err, "consumer '" + s_daemon->url("nothing-here.git"))) << down.err;
}

TEST_F(ConsumerCliTest, SincePinListsEachBreakingCommitWithTheCallsItBreaksAndItsPullRequest) {
  auto config = written_config();
  Json c = Json::parse(std::ifstream(config));
  c["consumer"]["pinned_commit"] = s_commits.compatible;
  std::ofstream(config) << c.dump(2);
  auto r = run({"check", "--config", config.string(), "--since-pin", "--format", "json"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  Json doc = Json::parse(r.out);
  EXPECT_EQ(doc.at("pinned_commit"), s_commits.compatible);
  EXPECT_EQ(doc.at("commit"), s_commits.head);
  EXPECT_EQ(doc.at("schema"), "aiter-api-watcher/check-since-pin/2");
  EXPECT_EQ(doc.at("exit_code"), 1) << "the process's own";
  ASSERT_EQ(doc.at("breaking_commits").size(), 1u) << doc.dump(1);
  const Json& step = doc.at("breaking_commits").at(0);
  EXPECT_EQ(step.at("commit"), s_commits.breaking);
  EXPECT_EQ(step.at("pull_request"),
            "aiter#42");  // the provider is not on GitHub here: named by its repository
  bool topk = false;
  for (const Json& site : step.at("call_sites")) {
    EXPECT_EQ(site.at("broken_since"), s_commits.breaking);
    topk = topk || site.at("caller") == "breaks_too_many_positional";
  }
  EXPECT_TRUE(topk) << step.dump(1);
  // topk's call that forwards *args/**kwargs, and the ambiguous one of attn, cannot be checked:
  // they may break with the others of their functions.
  std::set<std::string> may_break;
  for (const Json& site : step.at("may_break")) may_break.insert(site.at("caller").get<std::string>());
  EXPECT_EQ(may_break, (std::set<std::string>{"unknown_forwarding", "Layer.unknown_ambiguous"}));
  EXPECT_EQ(doc.at("call_sites").size(), 15u) << "every site, as check lists them";
  EXPECT_EQ(doc.at("not_checked").size(), 2u);
  // rms_norm's call missing 'w' failed at the pin already: listed apart, not blamed on a commit.
  bool missing_w = false;
  for (const Json& site : doc.at("already_broken"))
    missing_w = missing_w || site.at("caller") == "breaks_missing_argument";
  EXPECT_TRUE(missing_w) << doc.at("already_broken").dump(1);

  auto text = run({"check", "--config", config.string(), "--since-pin"});
  EXPECT_TRUE(
      contains(text.out, "1 commit breaks its calls\n\n" + s_commits.breaking.substr(0, 12) +
                             " topk without c, attn is_causal, legacy gemm deleted (#42) [aiter#42]\n"))
      << text.out;
  EXPECT_TRUE(contains(text.out, "  may break: unknown consumer/ops.py:")) << text.out;
  EXPECT_TRUE(contains(text.out, "\nCannot be checked (4):\n")) << text.out;
  EXPECT_TRUE(contains(text.out, "  not checked consumer/layer.py:23 (Layer.not_checked_torch_ops)"))
      << text.out;
  EXPECT_TRUE(contains(text.out, "\n15 call sites at ")) << text.out;

  c["consumer"]["pinned_commit"] = "";
  std::ofstream(config) << c.dump(2);
  auto unpinned = run({"check", "--config", config.string(), "--since-pin"});
  EXPECT_EQ(unpinned.exit_code, 2);
  EXPECT_TRUE(contains(unpinned.err, "consumer.pinned_commit '': --since-pin needs it set")) << unpinned.err;
  c["consumer"]["pinned_commit"] = s_commits.breaking;  // newer than the commit checked
  std::ofstream(config) << c.dump(2);
  auto ahead = run({"check", "--config", config.string(), "--since-pin", s_commits.compatible});
  EXPECT_EQ(ahead.exit_code, 2);
  EXPECT_TRUE(contains(ahead.err, "consumer.pinned_commit '" + s_commits.breaking +
                                      "': not on the first-parent history of " +
                                      s_commits.compatible.substr(0, 12)))
      << ahead.err;
  c["consumer"]["pinned_commit"] = "nonsense";
  std::ofstream(config) << c.dump(2);
  auto bad = run({"check", "--config", config.string(), "--since-pin"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err, "consumer.pinned_commit 'nonsense': ")) << bad.err;
}

// The state dir's cache.db keeps each consumer file's scan (by its content) and the ops registered
// at a commit: a second check gives what a check without it gives, and an edited file is read afresh.
TEST_F(ConsumerCliTest, ASecondCheckGivesTheSameAnswerFromTheCacheAndAnEditedFileIsReadAfresh) {
  const auto copy = m_work.path() / "vllm-copy";
  SyntheticConsumer::write_consumer(copy);
  auto path = written_config();
  Json config = Json::parse(std::ifstream(path));
  config["consumer"]["path"] = copy.string();
  std::ofstream(path) << config.dump(2);
  std::string err;
  auto check = [&] {
    auto r = run({"check", "--config", path.string(), "--format", "json"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    err = r.err;
    return r.out;
  };
  const std::string first = check();
  EXPECT_TRUE(contains(err, "of the 3 files naming aiter, 3 parsed, 0 read from cache.db")) << err;
  ASSERT_TRUE(std::filesystem::exists(m_work.path() / "state" / "cache.db"));
  EXPECT_EQ(check(), first);
  EXPECT_TRUE(contains(err, "of the 3 files naming aiter, 0 parsed, 3 read from cache.db")) << err;

  std::ofstream(copy / "consumer" / "ops.py", std::ios::app)
      << "\n\ndef breaks_added_later(a):\n    return rocm_aiter.topk(a, a, a)\n";
  const std::string edited = check();
  EXPECT_TRUE(contains(err, "of the 3 files naming aiter, 1 parsed, 2 read from cache.db")) << err;
  Json doc = Json::parse(edited);
  EXPECT_EQ(doc.at("call_sites").size(), Json::parse(first).at("call_sites").size() + 1);
  bool found = false;
  for (const Json& site : doc.at("call_sites"))
    if (site.at("caller") == "breaks_added_later") found = site.at("verdict") == "breaks";
  EXPECT_TRUE(found) << edited;
  std::filesystem::remove(m_work.path() / "state" / "cache.db");
  EXPECT_EQ(check(), edited);
}

TEST_F(ConsumerCliTest, BadInputsExitTwoNamingTheInput) {
  auto missing = run({"discover", "--consumer", (m_work.path() / "nowhere").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.err, "aiter-api-watcher: error: consumer path '")) << missing.err;
  EXPECT_TRUE(contains(missing.err, "nowhere': no such directory")) << missing.err;

  auto config = written_config();
  auto again = run({"discover", "--consumer", consumer(), "--write-config", config.string()});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_TRUE(contains(again.err, "the file exists; not overwriting it")) << again.err;

  auto bare = m_work.path() / "bare.json";
  std::ofstream(bare)
      << R"({"repository_url": "x", "functions_to_monitor": [{"import_statement": "import aiter", "function_path": "aiter.f"}]})";
  auto unset = run({"check", "--config", bare.string()});
  EXPECT_EQ(unset.exit_code, 2);
  EXPECT_TRUE(contains(unset.err, "consumer: not set in '")) << unset.err;

  Json limited = Json::parse(std::ifstream(bare));
  limited["notify"] = {{"webhook", {{"url", "http://127.0.0.1:9/hook"}, {"only_if_consumer_breaks", true}}}};
  std::ofstream(bare) << limited.dump();
  auto no_consumer = run({"watch", "--config", bare.string(), "--once"});
  EXPECT_EQ(no_consumer.exit_code, 2);
  EXPECT_TRUE(contains(no_consumer.err,
                       "notify.webhook.only_if_consumer_breaks: set, but the config names no "
                       "consumer"))
      << no_consumer.err;
  auto checked = run({"check-config", "--config", bare.string()});  // refused before the repository is read
  EXPECT_EQ(checked.exit_code, 2);
  EXPECT_TRUE(contains(checked.err,
                       "notify.webhook.only_if_consumer_breaks: set, but the config names no "
                       "consumer"))
      << checked.err;

  Json both = Json::parse(std::ifstream(config));
  both["consumer"]["repository_url"] = "https://example.invalid/vllm.git";
  auto both_path = m_work.path() / "both.json";
  std::ofstream(both_path) << both.dump();
  auto twice = run({"check", "--config", both_path.string()});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_TRUE(contains(twice.err, "give either path or repository_url, not both")) << twice.err;

  auto unknown = run({"check", "--config", config.string(), "0000000000000000000000000000000000000000"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(contains(unknown.err, "commit '0000000000000000000000000000000000000000'")) << unknown.err;
}

}  // namespace
}  // namespace aaw::test
