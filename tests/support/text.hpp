// Reading what a test's subject wrote: a whole file, whether and how often a part occurs in a text.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace aaw::test {

// The bytes of `path`; "" when it cannot be read.
std::string read_text(const std::filesystem::path& path);

// The parts of `text` between each `separator` ("a,,b" gives "a", "", "b").
std::vector<std::string> split(std::string_view text, char separator);

// Whether `part` occurs in `text`.
bool contains(const std::string& text, const std::string& part);

// How many times `part` occurs in `text` (overlapping occurrences counted).
int count_of(const std::string& text, const std::string& part);

}  // namespace aaw::test
