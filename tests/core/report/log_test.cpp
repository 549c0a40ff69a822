#include "core/report/log.hpp"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "support/temp_dir.hpp"
#include "support/text.hpp"

namespace aaw {
namespace {

using test::read_text;

class ReportTest : public ::testing::Test {
 protected:
  test::TempDir m_dir;
  LogConfig config_for(const std::string& name) {
    LogConfig config;
    config.file = (m_dir.path() / name).string();
    return config;
  }
};

TEST_F(ReportTest, WritesOriginalLineFormatWithPythonLevelNames) {
  auto log = make_logger(config_for("w.log"), ConsoleStream::none);
  ASSERT_TRUE(log) << log.error().message();
  (*log)->info("Checking commit {}", "abc");
  (*log)->warn("careful");
  (*log)->error("broken");
  std::string text = read_text(m_dir.path() / "w.log");
  std::regex line(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - aiter_api_watcher - (INFO|WARNING|ERROR) - .*)");
  std::istringstream lines(text);
  std::vector<std::string> all;
  for (std::string l; std::getline(lines, l);) all.push_back(l);
  ASSERT_EQ(all.size(), 3u) << text;
  for (const std::string& l : all) EXPECT_TRUE(std::regex_match(l, line)) << l;
  EXPECT_NE(all[0].find(" - INFO - Checking commit abc"), std::string::npos);
  EXPECT_NE(all[1].find(" - WARNING - careful"), std::string::npos);
  EXPECT_NE(all[2].find(" - ERROR - broken"), std::string::npos);
}

TEST_F(ReportTest, ABatchWritesItsLinesWhenItEndsAndWarningsAtOnce) {
  auto log = make_logger(config_for("b.log"), ConsoleStream::none);
  ASSERT_TRUE(log) << log.error().message();
  {
    LogBatch batch(**log);
    (*log)->info("No API change for f");
    EXPECT_EQ(read_text(m_dir.path() / "b.log"), "") << "an INFO line waits for the batch to end";
    (*log)->warn("careful");
    std::string text = read_text(m_dir.path() / "b.log");
    EXPECT_NE(text.find("No API change for f"), std::string::npos) << text;
    EXPECT_NE(text.find("careful"), std::string::npos) << text;
    (*log)->info("No API change for g");
  }
  EXPECT_NE(read_text(m_dir.path() / "b.log").find("No API change for g"), std::string::npos);
  (*log)->info("after");  // line by line again
  EXPECT_NE(read_text(m_dir.path() / "b.log").find("after"), std::string::npos);
}

TEST_F(ReportTest, HonoursLevel) {
  LogConfig config = config_for("l.log");
  config.level = "warning";
  auto log = make_logger(config, ConsoleStream::none);
  ASSERT_TRUE(log);
  (*log)->info("hidden");
  (*log)->warn("shown");
  std::string text = read_text(m_dir.path() / "l.log");
  EXPECT_EQ(text.find("hidden"), std::string::npos);
  EXPECT_NE(text.find("shown"), std::string::npos);
}

TEST_F(ReportTest, ErrorsGoToStderrAndTheFileNeverToStdout) {
  auto log = make_logger(config_for("s.log"), ConsoleStream::stdout_stream);
  ASSERT_TRUE(log);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  (*log)->info("progress");
  (*log)->warn("careful");
  (*log)->error("broken");
  std::string out = ::testing::internal::GetCapturedStdout();
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(out.find(" - INFO - progress"), std::string::npos) << out;
  EXPECT_NE(out.find(" - WARNING - careful"), std::string::npos) << out;
  EXPECT_EQ(out.find("broken"), std::string::npos) << out;
  EXPECT_NE(err.find(" - ERROR - broken"), std::string::npos) << err;
  EXPECT_NE(read_text(m_dir.path() / "s.log").find(" - ERROR - broken"), std::string::npos);
}

TEST_F(ReportTest, AFatalErrorIsWrittenToTheFileOnly) {
  auto log = make_logger(config_for("f.log"), ConsoleStream::stdout_stream);
  ASSERT_TRUE(log);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  write_to_file_only(**log, LogLevel::critical, "cannot clone 'x': no network");
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "") << "the caller prints its own line there";
  EXPECT_NE(read_text(m_dir.path() / "f.log").find(" - CRITICAL - cannot clone 'x': no network"),
            std::string::npos);
}

TEST_F(ReportTest, RotatesBySizeKeepingMaxFiles) {
  LogConfig config = config_for("r.log");
  config.max_size_mb = 1;
  config.max_files = 2;
  auto log = make_logger(config, ConsoleStream::none);
  ASSERT_TRUE(log);
  std::string payload(1000, 'x');
  for (int i = 0; i < 5000; ++i) (*log)->info("{}", payload);  // ~5 MB
  EXPECT_TRUE(std::filesystem::exists(m_dir.path() / "r.log"));
  EXPECT_TRUE(std::filesystem::exists(m_dir.path() / "r.1.log"));
  EXPECT_TRUE(std::filesystem::exists(m_dir.path() / "r.2.log"));
  EXPECT_FALSE(std::filesystem::exists(m_dir.path() / "r.3.log"));
  EXPECT_LE(std::filesystem::file_size(m_dir.path() / "r.log"), 1024u * 1024u);
}

// SIGHUP's reopen runs on the main thread while the notification thread logs: a bounded stress of
// the two at once. Before the file sink was swapped under its lock, this wrote through a freed
// sink (a crash, or lost lines); under ThreadSanitizer it is a reported race.
TEST_F(ReportTest, ReopeningWhileAnotherThreadLogsLosesNoLine) {
  LogConfig config = config_for("busy.log");
  auto log = make_logger(config, ConsoleStream::none);
  ASSERT_TRUE(log);
  constexpr int k_lines = 20000;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; i < k_lines; ++i) (*log)->warn("Cannot notify webhook of change {}", i);
    done = true;
  });
  int reopened = 0;
  while (!done || reopened < 200) {
    ASSERT_TRUE(reopen_log_file(**log, config));
    ++reopened;
  }
  writer.join();
  std::istringstream lines(read_text(m_dir.path() / "busy.log"));
  int count = 0;
  for (std::string line; std::getline(lines, line);)
    count += line.find("Cannot notify webhook") != std::string::npos;
  EXPECT_EQ(count, k_lines);
}

TEST_F(ReportTest, NamesLogFileThatCannotBeOpened) {
  std::filesystem::create_directories(m_dir.path() / "ro");
  LogConfig config;
  config.file = (m_dir.path() / "ro" / "x.log").string();
  std::filesystem::permissions(m_dir.path() / "ro",
                               std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  if (::geteuid() == 0) GTEST_SKIP() << "root can write anywhere";
  auto log = make_logger(config, ConsoleStream::none);
  ASSERT_FALSE(log);
  EXPECT_EQ(log.error().code(), ErrorCode::io);
  EXPECT_NE(log.error().message().find(config.file), std::string::npos);
}

TEST_F(ReportTest, NamesLogFileInMissingDirectoryParentIsAFile) {
  std::ofstream(m_dir.path() / "plain") << "x";
  LogConfig config;
  config.file = (m_dir.path() / "plain" / "x.log").string();
  auto log = make_logger(config, ConsoleStream::none);
  ASSERT_FALSE(log);
  EXPECT_NE(log.error().message().find("cannot open log file '" + config.file + "'"), std::string::npos)
      << log.error().message();
}

}  // namespace
}  // namespace aaw
