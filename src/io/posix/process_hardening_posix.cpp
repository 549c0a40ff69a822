#include "io/posix/process_hardening_posix.hpp"

#include <sys/prctl.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>

namespace aaw {
namespace {

// env_start and env_end of this process (fields 50 and 51 of /proc/self/stat, Linux 3.5+): where
// the environment it started with lies, which /proc/<pid>/environ shows whatever setenv did since.
bool environment_block(std::uintptr_t& start, std::uintptr_t& end) {
  std::ifstream in("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return false;
  std::istringstream fields(text.substr(close + 2));  // from field 3 on
  std::string field;
  for (int index = 3; fields >> field; ++index) {
    if (index == 50) start = std::strtoull(field.c_str(), nullptr, 10);
    if (index == 51) {
      end = std::strtoull(field.c_str(), nullptr, 10);
      return start != 0 && end > start;
    }
  }
  return false;
}

void wipe_from_block(std::string_view name) {
  std::uintptr_t start = 0;
  std::uintptr_t end = 0;
  if (!environment_block(start, end)) return;
  char* at = reinterpret_cast<char*>(start);
  char* const stop = reinterpret_cast<char*>(end);
  while (at < stop) {
    const std::size_t length = ::strnlen(at, static_cast<std::size_t>(stop - at));
    const std::string_view entry(at, length);
    if (entry.size() > name.size() && entry.substr(0, name.size()) == name && entry[name.size()] == '=')
      std::memset(at + name.size() + 1, 0, length - name.size() - 1);
    at += length + 1;
  }
}

}  // namespace

std::string take_environment_secret(const char* name) {
  const char* value = std::getenv(name);
  std::string secret = value != nullptr ? value : "";
  if (value == nullptr) return secret;
  wipe_from_block(name);
  ::unsetenv(name);
  return secret;
}

void forbid_inspection() { ::prctl(PR_SET_DUMPABLE, 0); }

}  // namespace aaw
