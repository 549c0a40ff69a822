// A fresh directory for one test, removed afterwards unless the test failed (or AAW_KEEP_TEMP=1),
// so the data of a failure can be inspected.
#pragma once

#include <filesystem>
#include <string_view>

namespace aaw::test {

class TempDir {
 public:
  // Creates <$TMPDIR or /tmp>/<prefix>-XXXXXX; throws std::system_error when it cannot.
  explicit TempDir(std::string_view prefix = "aaw-test");
  // Removes the directory, unless the current gtest test has failed or AAW_KEEP_TEMP=1: then it
  // is kept and "kept test data in <path>" goes to stderr.
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return m_path; }
  std::filesystem::path operator/(const std::filesystem::path& child) const { return m_path / child; }

 private:
  std::filesystem::path m_path;
};

}  // namespace aaw::test
