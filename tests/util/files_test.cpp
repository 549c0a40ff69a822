#include "aaw/util/files.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace aaw
