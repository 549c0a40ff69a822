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
  std::string log_text() {
    m_log->flush();
    std::ifstream in(m_dir.path() / "p.log");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
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

TEST_F(ProgressTest, LogsSoonThenLessOftenWithoutATerminal) {
  Progress progress(m_clock, *m_log, nullptr);
  progress.start(1000);
  for (int i = 0; i < 100; ++i) {
    m_clock.advance(std::chrono::seconds(1));
    progress.step();
  }
  // At 1, 3, 7, 15 and 31 s (each wait twice the last), then every 30 s: 61 and 91 s.
  EXPECT_EQ(logged_progress_lines(), 7);
}

TEST_F(ProgressTest, AShortPipedRunStillShowsProgress) {
  Progress progress(m_clock, *m_log, nullptr);
  progress.start(2800);
  for (int i = 0; i < 2800; ++i) {
    m_clock.advance(std::chrono::milliseconds(1));  // a 2.8 s replay
    progress.step();
  }
  EXPECT_EQ(logged_progress_lines(), 1);  // at 1 s; the next is due at 3 s
}

TEST_F(ProgressTest, ShortRunsGetNoProgressLinesButTheirSummary) {
  Progress progress(m_clock, *m_log, nullptr);
  progress.start(Progress::k_threshold);
  for (std::size_t i = 0; i < Progress::k_threshold; ++i) {
    m_clock.advance(std::chrono::minutes(1));
    progress.step();
  }
  progress.finish(ChangeTally{20, 2, 3, 1, 0});
  EXPECT_EQ(logged_progress_lines(), 0);
  EXPECT_NE(log_text().find("INFO - Processed 20 commits in 20m0s: 3 API changes (1 breaking) at 2 commits"),
            std::string::npos)
      << log_text();
}

TEST_F(ProgressTest, OneCommitWithoutChangesSaysSo) {
  Progress progress(m_clock, *m_log, nullptr);
  progress.start(1);
  progress.step();
  progress.finish(ChangeTally{1, 0, 0, 0, 0});
  EXPECT_NE(log_text().find("INFO - Processed 1 commit in 0s: no API change"), std::string::npos)
      << log_text();
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
  progress.interrupt(ChangeTally{2, 0, 0, 0, 1});
  EXPECT_NE(
      log_text().find("WARNING - Interrupted after 2 of 5 commits in 3s (no API change; 1 commit could not "
                      "be processed); run again to resume"),
      std::string::npos)
      << log_text();
  EXPECT_EQ(log_text().find("Processed"), std::string::npos);
}

}  // namespace
}  // namespace aaw
