#include "util/files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "support/temp_dir.hpp"

namespace aaw {
namespace {

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

TEST(LogTailTest, ReturnsTheLastBytesStartingAtALine) {
  test::TempDir dir;
  write_file(dir / "log", "first line\nsecond line\nthird line\n");
  EXPECT_EQ(log_tail(dir / "log", 20), "third line\n");
  EXPECT_EQ(log_tail(dir / "log", 1000), "first line\nsecond line\nthird line\n");
  EXPECT_EQ(log_tail(dir / "log", 5), "line\n");  // no line start within: the raw end
  EXPECT_EQ(log_tail(dir / "missing"), "");
}

TEST(FilesTest, ReadsWhatWasWrittenAtomically) {
  test::TempDir dir;
  ASSERT_TRUE(write_file_atomically(dir / "f.json", "{\"a\": 1}"));
  EXPECT_EQ(read_file(dir / "f.json"), "{\"a\": 1}");
  EXPECT_FALSE(std::filesystem::exists(dir / "f.json.tmp"));
  EXPECT_EQ(read_file(dir / "missing"), std::nullopt);
}

TEST(FilesTest, AtomicWriteIntoAMissingDirectoryNamesTheFile) {
  test::TempDir dir;
  auto written = write_file_atomically(dir / "no" / "f", "x");
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().code(), ErrorCode::io);
  EXPECT_NE(written.error().message().find("no/f"), std::string::npos) << written.error().message();
}

// A build may plant a link where the daemon will write: the staging file's name included.
TEST(FilesTest, AtomicWriteNeverWritesThroughALinkAtTheStagingName) {
  test::TempDir dir;
  write_file(dir / "victim", "precious");
  std::filesystem::create_symlink(dir / "victim", dir / "f.json.tmp");
  ASSERT_TRUE(write_file_atomically(dir / "f.json", "{}"));
  EXPECT_EQ(read_file(dir / "victim"), "precious");
  EXPECT_EQ(read_file(dir / "f.json"), "{}");
}

TEST(FilesTest, ReadRegularFileFollowsNoLinkAndWaitsOnNoFifo) {
  test::TempDir dir;
  write_file(dir / "plain", "text");
  std::filesystem::create_symlink(dir / "plain", dir / "link");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
  EXPECT_EQ(read_regular_file(dir / "plain"), "text");
  EXPECT_EQ(read_regular_file(dir / "link"), std::nullopt);
  EXPECT_EQ(read_regular_file(dir / "fifo"), std::nullopt);  // returns at once
  EXPECT_EQ(read_regular_file(dir / "missing"), std::nullopt);
}

TEST(FilesTest, FreshDirectoryReplacesALinkWithoutTouchingItsTarget) {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "target");
  write_file(dir / "target" / "keep", "precious");
  std::filesystem::create_directory_symlink(dir / "target", dir / "work");
  ASSERT_TRUE(make_fresh_directory(dir / "work"));
  EXPECT_FALSE(std::filesystem::is_symlink(dir / "work"));
  EXPECT_TRUE(std::filesystem::is_empty(dir / "work"));
  EXPECT_EQ(read_file(dir / "target" / "keep"), "precious");
}

}  // namespace
}  // namespace aaw
