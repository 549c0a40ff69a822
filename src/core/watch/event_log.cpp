#include "core/watch/event_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace aaw {
namespace {

Error io_error(const std::filesystem::path& path, const std::string& what) {
  return Error(ErrorCode::io, "cannot " + what + " '" + path.string() + "': " + std::strerror(errno));
}

// The id of the last complete line, and the length of the file up to the end of that line.
std::pair<std::int64_t, std::uintmax_t> scan(const std::string& text) {
  std::int64_t last_id = 0;
  std::uintmax_t good_length = 0;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    auto line = Json::parse(text.substr(start, end - start), nullptr, false);
    if (!line.is_discarded() && line.contains("event_id") && line["event_id"].is_number_integer())
      last_id = std::max(last_id, line["event_id"].get<std::int64_t>());
    good_length = end + 1;
  }
  return {last_id, good_length};
}

bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

Result<EventLog> EventLog::open(const std::filesystem::path& path) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  auto [last_id, good_length] = scan(text.str());
  // A crash in the middle of a write leaves a line without its newline: drop it, it will be
  // written again from the state store.
  if (good_length < text.str().size() && ::truncate(path.c_str(), static_cast<off_t>(good_length)) != 0)
    return io_error(path, "repair");
  if (!in) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return io_error(path, "create");
    ::close(fd);
  }
  return EventLog(path, last_id);
}

Result<void> EventLog::append(const std::vector<StoredEvent>& events) {
  std::string lines;
  std::int64_t last = m_last_id;
  for (const StoredEvent& e : events) {
    if (e.id <= last) continue;
    Json line = e.event;
    line["event_id"] = e.id;
    lines += line.dump() + "\n";
    last = e.id;
  }
  if (lines.empty()) return {};
  int fd = ::open(m_path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return io_error(m_path, "open");
  off_t before = ::lseek(fd, 0, SEEK_END);
  bool ok = write_all(fd, lines) && ::fdatasync(fd) == 0;
  if (!ok) {
    // A disk that filled half-way leaves part of a line: cut it, so the next attempt starts on a
    // clean line and nothing is written twice.
    Error error = io_error(m_path, "append to");
    if (before >= 0 && ::ftruncate(fd, before) != 0) {
      // Nothing more to do: the torn line is cut when the log is next opened.
    }
    ::close(fd);
    return error;
  }
  ::close(fd);
  m_last_id = last;
  return {};
}

}  // namespace aaw
