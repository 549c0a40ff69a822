#include "util/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
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

std::optional<std::string> read_regular_file(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<std::string> text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    text.emplace();
    char buffer[65536];
    for (;;) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) text.reset();
      if (n <= 0) break;
      text->append(buffer, static_cast<std::size_t>(n));
    }
  }
  ::close(fd);
  return text;
}

namespace {

bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

Result<void> write_file_atomically(const fs::path& file, const std::string& text) {
  const fs::path staging = file.string() + ".tmp";
  ::unlink(staging.c_str());  // a leftover, or a link: never written through
  const int fd = ::open(staging.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return Error(ErrorCode::io, "cannot write '" + staging.string() + "': " + std::strerror(errno));
  const bool written = write_all(fd, text);
  const int saved = errno;
  if (::close(fd) != 0 || !written) {
    ::unlink(staging.c_str());
    return Error(ErrorCode::io,
                 "cannot write '" + staging.string() + "': " + std::strerror(written ? errno : saved));
  }
  std::error_code ec;
  fs::rename(staging, file, ec);
  if (ec) return Error(ErrorCode::io, "cannot write '" + file.string() + "': " + ec.message());
  return {};
}

Result<void> make_fresh_directory(const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);  // removes a link itself, never what it points to
  if (!ec) fs::create_directories(dir, ec);
  if (ec) return Error(ErrorCode::io, "cannot create directory '" + dir.string() + "': " + ec.message());
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

std::uint64_t disk_bytes(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_regular_file(fs::symlink_status(path, ec))) return fs::file_size(path, ec);
  std::uint64_t total = 0;
  for (fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    std::error_code size_ec;
    if (it->is_regular_file(size_ec) && !it->is_symlink(size_ec)) {
      const auto size = it->file_size(size_ec);
      if (!size_ec) total += size;
    }
  }
  return total;
}

}  // namespace aaw
