#include "core/watch/progress.hpp"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "support/fake_clock.hpp"
#include "support/temp_dir.hpp"

namespace aaw {
namespace {

class ProgressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LogConfig config;
    config.file = (m_dir.path() / "p.log").string();
    m_log = *make_logger(config, ConsoleStream::none);
  }
  int logged_progress_lines() {
    std::ifstream in(m_dir.path() / "p.log");
    int count = 0;
    for (std::string line; std::getline(in, line);)
      count += line.find("INFO - Progress: ") != std::string::npos;
    return count;
  }
  test::TempDir m_dir;
  test::FakeClock m_clock;
  std::shared_ptr<Logger> m_log;
};

TEST_F(ProgressTest, ReportsDoneTotalRateAndEta) {
  Progress progress(m_clock, *m_log, nullptr);
  progress.start(100);
  for (int i = 0; i < 20; ++i) {
    m_clock.advance(std::chrono::milliseconds(500));
    progress.step();
  }
  EXPECT_EQ(progress.line(), "20/100 commits (20%), 2.0 commits/s, ETA 40s");
}

TEST_F(ProgressTest, LogsEveryIntervalWithoutATerminal) {
  Progress progress(m_clock, *m_log, nullptr);
  progress.start(1000);
  for (int i = 0; i < 100; ++i) {
    m_clock.advance(std::chrono::seconds(1));
    progress.step();
  }
  EXPECT_EQ(logged_progress_lines(), 3);  // at 30 s, 60 s and 90 s
}

TEST_F(ProgressTest, StaysQuietForShortRuns) {
  Progress progress(m_clock, *m_log, nullptr);
  progress.start(Progress::k_threshold);
  for (std::size_t i = 0; i < Progress::k_threshold; ++i) {
    m_clock.advance(std::chrono::minutes(1));
    progress.step();
  }
  progress.finish();
  EXPECT_EQ(logged_progress_lines(), 0);
}

TEST_F(ProgressTest, RedrawsOneLiveLineOnATerminal) {
  std::FILE* live = std::tmpfile();
  Progress progress(m_clock, *m_log, live);
  progress.start(50);
  for (int i = 0; i < 3; ++i) {
    m_clock.advance(std::chrono::seconds(1));
    progress.step();
  }
  std::rewind(live);
  char buffer[512] = {};
  std::size_t n = std::fread(buffer, 1, sizeof buffer - 1, live);
  std::fclose(live);
  std::string text(buffer, n);
  EXPECT_EQ(text.find('\n'), std::string::npos);
  EXPECT_NE(text.find("\r\033[K3/50 commits (6%), 1.0 commits/s, ETA 47s"), std::string::npos) << text;
}

TEST_F(ProgressTest, AnInterruptedRunSaysSoEvenWhenItIsShort) {
  Progress progress(m_clock, *m_log, nullptr);
  progress.start(5);
  progress.step();
  progress.step();
  m_clock.advance(std::chrono::seconds(3));
  progress.interrupt();
  m_log->flush();
  std::ifstream in(m_dir.path() / "p.log");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("WARNING - Interrupted after 2 of 5 commits in 3s; run again to resume"),
            std::string::npos)
      << text.str();
  EXPECT_EQ(text.str().find("Processed"), std::string::npos);
}

}  // namespace
}  // namespace aaw
