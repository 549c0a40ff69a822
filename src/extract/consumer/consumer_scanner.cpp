#include "extract/consumer/consumer_scanner.hpp"

#include <system_error>

namespace aaw {

Result<ConsumerScan> scan_consumer(PythonHost& python, const std::filesystem::path& root,
                                   const std::string& package, const std::vector<std::string>& exclude) {
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec))
    return Error(ErrorCode::invalid_input,
                 "consumer path '" + root.string() +
                     "': " + (std::filesystem::exists(root, ec) ? "not a directory" : "no such directory"));
  auto answer = python.call("aaw_consumer", "discover",
                            {{"path", root.string()}, {"package", package}, {"exclude", exclude}}, {});
  if (!answer) return answer.error().context("scanning consumer '" + root.string() + "'");
  return consumer_scan_from_json(*answer);
}

}  // namespace aaw
