// What the Sandbox port defines beyond the interface: how a result reads, and which environment
// names are secrets.
#include "core/ports/sandbox.hpp"

#include <signal.h>
#include <string.h>

#include <algorithm>
#include <cctype>

namespace aaw {

std::string SandboxResult::describe() const {
  switch (outcome) {
    case Outcome::exited:
      return "exited with status " + std::to_string(exit_code);
    case Outcome::signaled: {
      const char* name = ::sigdescr_np(signal);
      return "killed by signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : "");
    }
    case Outcome::timed_out:
      return "timed out after " + std::to_string(timeout.count()) + " s";
    case Outcome::cancelled:
      return "cancelled";
  }
  return "unknown outcome";
}

bool is_secret_name(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  static constexpr std::string_view k_names[] = {"TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD"};
  for (const std::string_view word : k_names) {
    if (upper == word) return true;
    if (upper.size() > word.size() && upper.ends_with(word) && upper[upper.size() - word.size() - 1] == '_')
      return true;
  }
  return false;
}

}  // namespace aaw
