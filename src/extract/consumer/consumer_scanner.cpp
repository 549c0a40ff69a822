#include "extract/consumer/consumer_scanner.hpp"

#include <system_error>

namespace aaw {

namespace {

// cache_get(key) and cache_put(key, value), for aaw_consumer's per-file scans.
HostCallbacks cache_callbacks(ResultCache& cache) {
  HostCallbacks callbacks;
  callbacks["cache_get"] = [&cache](const Json& args) -> Result<Json> {
    if (!args.is_array() || args.empty() || !args[0].is_string())
      return Error(ErrorCode::invalid_input, "cache_get: expected a key");
    auto found = cache.get("consumer-file:" + args[0].get<std::string>());
    return found ? std::move(*found) : Json(nullptr);
  };
  callbacks["cache_put"] = [&cache](const Json& args) -> Result<Json> {
    if (!args.is_array() || args.size() != 2 || !args[0].is_string())
      return Error(ErrorCode::invalid_input, "cache_put: expected a key and a value");
    cache.put("consumer-file:" + args[0].get<std::string>(), args[1]);
    return Json(nullptr);
  };
  return callbacks;
}

}  // namespace

Result<ConsumerScan> scan_consumer(PythonHost& python, const std::filesystem::path& root,
                                   const std::string& package, const std::vector<std::string>& exclude,
                                   ResultCache* cache) {
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec))
    return Error(ErrorCode::invalid_input,
                 "consumer path '" + root.string() +
                     "': " + (std::filesystem::exists(root, ec) ? "not a directory" : "no such directory"));
  auto answer = python.call("aaw_consumer", "discover",
                            {{"path", root.string()}, {"package", package}, {"exclude", exclude}},
                            cache != nullptr ? cache_callbacks(*cache) : HostCallbacks{});
  if (!answer) return answer.error().context("scanning consumer '" + root.string() + "'");
  std::optional<ConsumerScan::CacheUse> use;
  if (auto it = answer->find("cache_use"); answer->is_object() && it != answer->end()) {
    if (it->is_object())
      use = ConsumerScan::CacheUse{it->value("parsed", std::size_t{0}), it->value("cached", std::size_t{0})};
    answer->erase(it);
  }
  auto scan = consumer_scan_from_json(*answer);
  if (scan) scan->cache_use = use;
  return scan;
}

}  // namespace aaw
