// What a new user reads first: every subcommand's --help names --config with its default, the
// defaults of its options and its exit codes; `completion bash` completes subcommands, options and
// the values they accept, in a real bash, a real zsh (its completion system driven through a
// pseudo-terminal by tests/support/zsh_complete.zsh) and a real fish (`complete -C`).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/text.hpp"

namespace aaw::test {
namespace {

ProcessResult run(const std::vector<std::string>& args) {
  std::vector<std::string> argv{AAW_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

TEST(HelpCliTest, EverySubcommandHelpShowsConfigItsDefaultsAndItsExitCodes) {
  for (const char* sub : {"compare", "watch", "replay", "history", "show", "check-config", "status", "report",
                          "discover", "check", "completion"}) {
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

// The manual page the build writes beside the binary: groff reads it without a warning, and it
// holds every visible subcommand and every option --help lists.
TEST(ManPageTest, TheBuildWritesAPageThatCoversEveryCommandAndOption) {
  const std::filesystem::path page = std::filesystem::path(AAW_BINARY).parent_path() / "aiter-api-watcher.1";
  ASSERT_TRUE(std::filesystem::exists(page)) << page;
  auto lint = run_process({"groff", "-man", "-Tutf8", "-ww", "-z", page.string()});
  EXPECT_EQ(lint.exit_code, 0) << lint.err;
  EXPECT_EQ(lint.err, "");
  auto text = run_process({"groff", "-man", "-Tutf8", "-P", "-cbou", page.string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* sub : {"compare", "watch", "replay", "history", "show", "check-config", "status", "report",
                          "discover", "check", "completion"}) {
    EXPECT_TRUE(contains(text.out, std::string("aiter-api-watcher ") + sub + " ")) << sub;
    auto help = run({sub, "--help"});
    for (std::size_t at = help.out.find("  --"); at != std::string::npos;
         at = help.out.find("  --", at + 1)) {
      std::string option = help.out.substr(at + 2, help.out.find_first_of(" ,=\n", at + 2) - at - 2);
      EXPECT_TRUE(contains(text.out, option)) << sub << " " << option;
    }
  }
  for (const char* global : {"--log-level", "--quiet", "EXIT STATUS", "GITHUB_TOKEN"})
    EXPECT_TRUE(contains(text.out, global)) << global;
}

// What the shell `shell` offers for `words`, with the script of `completion <shell>` loaded: one
// candidate per line, sorted.
class ShellCompletionTest : public ::testing::Test {
 protected:
  std::string complete_in(const std::string& shell, const std::string& words) {
    auto script = run({"completion", shell});
    EXPECT_EQ(script.exit_code, 0) << script.err;
    auto file = m_dir.path() / ("completion." + shell);
    std::ofstream(file) << script.out;
    ProcessResult r =
        shell == "zsh"
            ? run_process({"zsh", "-f", std::string(AAW_SOURCE_DIR) + "/tests/support/zsh_complete.zsh",
                           file.string(), words})
            : run_process({"fish", "--no-config", "-c",
                           "source '" + file.string() + "'; complete -C '" + words + "' | cut -f1 | sort"});
    EXPECT_EQ(r.exit_code, 0) << shell << ": " << r.err;
    return r.out;
  }
  TempDir m_dir{"aaw-completion"};
};

TEST_F(ShellCompletionTest, ZshCompletesSubcommandsOptionsAndTheirValues) {
  EXPECT_EQ(complete_in("zsh", "aiter-api-watcher com"), "compare\ncompletion\n");
  EXPECT_EQ(complete_in("zsh", "aiter-api-watcher history --sev"), "--severity\n");
  EXPECT_EQ(complete_in("zsh", "aiter-api-watcher compare --format "),
            "github\njson\nmarkdown\nsarif\ntext\n");
  EXPECT_EQ(complete_in("zsh", "aiter-api-watcher --log-level w"), "warning\n");
}

TEST_F(ShellCompletionTest, FishCompletesSubcommandsOptionsAndTheirValues) {
  EXPECT_EQ(complete_in("fish", "aiter-api-watcher com"), "compare\ncompletion\n");
  EXPECT_EQ(complete_in("fish", "aiter-api-watcher history --sev"), "--severity\n");
  EXPECT_EQ(complete_in("fish", "aiter-api-watcher compare --format "),
            "github\njson\nmarkdown\nsarif\ntext\n");
  EXPECT_EQ(complete_in("fish", "aiter-api-watcher --log-level w"), "warning\n");
}

}  // namespace
}  // namespace aaw::test
