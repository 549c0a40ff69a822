#include "support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <string>
#include <system_error>

namespace aaw::test {
namespace {

std::filesystem::path temp_root() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && dir[0] != '\0' ? dir : "/tmp";
}

bool keep_requested() {
  const char* keep = std::getenv("AAW_KEEP_TEMP");
  return keep != nullptr && std::string(keep) == "1";
}

bool current_test_failed() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info != nullptr && info->result() != nullptr && info->result()->Failed();
}

}  // namespace

TempDir::TempDir(std::string_view prefix) {
  std::string pattern = (temp_root() / (std::string(prefix) + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::generic_category(), "cannot create " + pattern);
  }
  // The canonical path: macOS-style symlinked /tmp or a relative TMPDIR would otherwise make
  // paths compared in tests differ from those the code under test reports.
  m_path = std::filesystem::canonical(pattern);
}

TempDir::~TempDir() {
  if (keep_requested() || current_test_failed()) {
    std::cerr << "kept test data in " << m_path.string() << "\n";
    return;
  }
  std::error_code ignored;
  std::filesystem::remove_all(m_path, ignored);
}

}  // namespace aaw::test
