// An exclusive advisory lock (flock) on a file: held while the object lives, released when it is
// destroyed or the process dies (even by kill -9), never inherited by a child (close-on-exec).
// The one place the state directory's locks (writer.lock, runtime.lock) are taken.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace aaw {

class FileLock {
 public:
  // Takes the lock on `file` (created when missing) without waiting; nullopt when another process
  // holds it. io naming the file when it cannot be opened or locked.
  static Result<std::optional<FileLock>> try_acquire(const std::filesystem::path& file);

  // Replaces the file's content with `text` (the holder's PID, say) for others to read.
  Result<void> write(const std::string& text);

 private:
  FileLock(UniqueFd fd, std::filesystem::path file) : m_fd(std::move(fd)), m_file(std::move(file)) {}

  UniqueFd m_fd;
  std::filesystem::path m_file;
};

}  // namespace aaw
