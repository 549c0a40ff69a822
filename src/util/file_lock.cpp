#include "util/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace aaw {
namespace {

Error io_error(const std::string& what, const std::filesystem::path& file) {
  return Error(ErrorCode::io, "cannot " + what + " '" + file.string() + "': " + std::strerror(errno));
}

}  // namespace

Result<std::optional<FileLock>> FileLock::try_acquire(const std::filesystem::path& file) {
  UniqueFd fd(::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) return io_error("open", file);
  while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) return std::optional<FileLock>();
    if (errno != EINTR) return io_error("lock", file);
  }
  return std::optional<FileLock>(FileLock(std::move(fd), file));
}

Result<void> FileLock::write(const std::string& text) {
  if (::ftruncate(m_fd.get(), 0) != 0) return io_error("write", m_file);
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::pwrite(m_fd.get(), text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return io_error("write", m_file);
    done += static_cast<std::size_t>(n);
  }
  return {};
}

}  // namespace aaw
