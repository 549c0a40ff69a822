// What a new user reads first: every subcommand's --help names --config with its default, the
// defaults of its options and its exit codes; `completion bash` completes subcommands, options and
// the values they accept, in a real bash.
#include <gtest/gtest.h>

#include <fstream>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace aaw::test {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

ProcessResult run(std::vector<std::string> args) {
  args.insert(args.begin(), AAW_BINARY);
  return run_process(args);
}

TEST(HelpCliTest, EverySubcommandHelpShowsConfigItsDefaultsAndItsExitCodes) {
  for (const char* sub :
       {"compare", "watch", "replay", "history", "show", "check-config", "status", "completion"}) {
    auto r = run({sub, "--help"});
    EXPECT_EQ(r.exit_code, 0) << sub << r.err;
    EXPECT_TRUE(contains(r.out, "--config")) << sub << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, "--config TEXT=aiter_api_watcher_config.json")) << sub << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, "Exit codes: 0 ")) << sub << "\n" << r.out;
  }
  auto compare = run({"compare", "--help"});
  EXPECT_TRUE(contains(compare.out, "{text,json,markdown,sarif,github}=text")) << compare.out;
  EXPECT_TRUE(contains(compare.out, "{any,breaking}=any")) << compare.out;
  EXPECT_TRUE(contains(compare.out, "1 a change at level deny that no waiver accepts")) << compare.out;
  auto history = run({"history", "--help"});
  EXPECT_TRUE(contains(history.out, "--since")) << history.out;
  EXPECT_TRUE(contains(history.out, "--limit")) << history.out;
}

TEST(HelpCliTest, ConfigIsReadOnEitherSideOfTheSubcommand) {
  TempDir dir("aaw-help");
  auto cfg = dir.path() / "c.json";
  std::ofstream(cfg) << R"({"repository_url": 3})";
  for (auto args : {std::vector<std::string>{"--config", cfg.string(), "status"},
                    std::vector<std::string>{"status", "--config", cfg.string()}}) {
    auto r = run(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.err, cfg.string() + ": repository_url: expected a string")) << r.err;
  }
}

class BashCompletionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto r = run({"completion", "bash"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::ofstream(m_dir.path() / "completion.bash") << r.out;
  }
  // What bash offers for the command line `words` (the last one being completed).
  std::string complete(const std::string& words) {
    std::string script = "source '" + (m_dir.path() / "completion.bash").string() + "'\nCOMP_WORDS=(" +
                         words + ")\nCOMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n" +
                         "_aiter_api_watcher\necho \"${COMPREPLY[*]}\"\n";
    auto r = run_process({"bash", "--norc", "-c", script});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
  TempDir m_dir{"aaw-completion"};
};

TEST_F(BashCompletionTest, CompletesSubcommands) {
  EXPECT_EQ(complete("aiter-api-watcher com"), "compare completion\n");
  EXPECT_EQ(complete("aiter-api-watcher --config c.json his"), "history\n");
  EXPECT_FALSE(contains(complete("aiter-api-watcher __"), "__extract")) << "internal commands stay hidden";
}

TEST_F(BashCompletionTest, CompletesTheOptionsOfTheSubcommand) {
  EXPECT_EQ(complete("aiter-api-watcher history --sev"), "--severity\n");
  EXPECT_EQ(complete("aiter-api-watcher compare --fa"), "--fail-on\n");
  EXPECT_TRUE(contains(complete("aiter-api-watcher watch --"), "--once"))
      << complete("aiter-api-watcher watch --");
}

TEST_F(BashCompletionTest, CompletesTheValuesAnOptionAccepts) {
  EXPECT_EQ(complete("aiter-api-watcher compare --format ''"), "text json markdown sarif github\n");
  EXPECT_EQ(complete("aiter-api-watcher history --format ''"), "text json\n");
  EXPECT_EQ(complete("aiter-api-watcher history --severity b"), "behavioural breaking\n");
  EXPECT_EQ(complete("aiter-api-watcher show --extractor r"), "runtime\n");
}

}  // namespace
}  // namespace aaw::test
