#include "aaw/util/files.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>

namespace aaw {

namespace fs = std::filesystem;

std::optional<std::string> read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

Result<void> write_file_atomically(const fs::path& file, const std::string& text) {
  const fs::path staging = file.string() + ".tmp";
  {
    std::ofstream out(staging, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) return Error(ErrorCode::io, "cannot write '" + staging.string() + "'");
  }
  std::error_code ec;
  fs::rename(staging, file, ec);
  if (ec) return Error(ErrorCode::io, "cannot write '" + file.string() + "': " + ec.message());
  return {};
}

std::string log_tail(const fs::path& file, std::size_t max_bytes) {
  std::ifstream in(file, std::ios::binary);
  if (!in || max_bytes == 0) return "";
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::size_t>(std::max<std::streamoff>(in.tellg(), 0));
  const std::size_t start = size > max_bytes ? size - max_bytes : 0;
  in.seekg(static_cast<std::streamoff>(start));
  std::string tail(size - start, '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  tail.resize(static_cast<std::size_t>(in.gcount()));
  if (start > 0) {
    // Begin at a line: a cut line is noise in an error message. Not when that would leave nothing.
    const auto newline = tail.find('\n');
    if (newline != std::string::npos && newline + 1 < tail.size()) tail.erase(0, newline + 1);
  }
  return tail;
}

}  // namespace aaw
