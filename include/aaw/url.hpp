// Small facts about URLs the daemon needs without a URL library.
#pragma once

#include <string>
#include <string_view>

namespace aaw {

// The host of "scheme://[user@]host[:port]/..." in lower case, or of scp-like "user@host:path";
// empty when there is none (a local path).
std::string url_host(std::string_view url);

}  // namespace aaw
