// Reading what a test's subject wrote: a whole file, and how often a part occurs in a text.
#pragma once

#include <filesystem>
#include <string>

namespace aaw::test {

// The bytes of `path`; "" when it cannot be read.
std::string read_text(const std::filesystem::path& path);

// How many times `part` occurs in `text` (overlapping occurrences counted).
int count_of(const std::string& text, const std::string& part);

}  // namespace aaw::test
