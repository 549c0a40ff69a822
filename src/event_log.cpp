#include "aaw/event_log.hpp"

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
  if (!in && ::close(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) != 0)
    return io_error(path, "create");
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
  bool ok = ::write(fd, lines.data(), lines.size()) == static_cast<ssize_t>(lines.size()) && ::fdatasync(fd) == 0;
  ::close(fd);
  if (!ok) return io_error(m_path, "append to");
  m_last_id = last;
  return {};
}

}  // namespace aaw
