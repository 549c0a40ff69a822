// Whole-file reads and writes, and the tail of a log file.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include "aaw/util/result.hpp"

namespace aaw {

// The bytes of `file`; nullopt when it cannot be read.
std::optional<std::string> read_file(const std::filesystem::path& file);

// Writes `text` beside `file` and renames it into place: a reader never sees half a file.
// io naming the file and the cause when it cannot.
Result<void> write_file_atomically(const std::filesystem::path& file, const std::string& text);

// The last `max_bytes` of a log file (whole lines where possible), for an error detail; "" when
// the file cannot be read.
std::string log_tail(const std::filesystem::path& file, std::size_t max_bytes = 4000);

}  // namespace aaw
