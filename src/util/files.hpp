// Whole-file reads and writes, and the tail of a log file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "util/result.hpp"

namespace aaw {

// The bytes of `file`; nullopt when it cannot be read.
std::optional<std::string> read_file(const std::filesystem::path& file);

// The bytes of `file` when it is a regular file, opened without following a symbolic link and
// without waiting on a FIFO; nullopt otherwise. For files in directories a sandboxed build can
// write to: what it left there can neither block the daemon nor point it at another file.
std::optional<std::string> read_regular_file(const std::filesystem::path& file);

// The bytes the regular files at or beneath `path` hold (links not followed; what cannot be read
// is not counted). 0 when it does not exist.
std::uint64_t disk_bytes(const std::filesystem::path& path);

// Writes `text` beside `file` (a staging file made afresh: whatever was at its name is removed, and
// a link planted there is never followed) and renames it into place: a reader never sees half a
// file. io naming the file and the cause when it cannot.
Result<void> write_file_atomically(const std::filesystem::path& file, const std::string& text);

// `dir` made an empty, real directory: whatever is at its name (a file, a link, a tree) is removed
// first, without following links. For a directory the daemon writes in that a build could have
// replaced. io naming it when it cannot.
Result<void> make_fresh_directory(const std::filesystem::path& dir);

// The last `max_bytes` of a log file (whole lines where possible), for an error detail; "" when
// the file cannot be read.
std::string log_tail(const std::filesystem::path& file, std::size_t max_bytes = 4000);

}  // namespace aaw
