// A ResultCache in a map, through JSON text as the SQLite one keeps answers; counts what it is asked.
#pragma once

#include <map>
#include <string>

#include "core/ports/result_cache.hpp"

namespace aaw::test {

class MemoryResultCache final : public ResultCache {
 public:
  std::map<std::string, std::string> stored;  // key -> JSON text
  int hits = 0, misses = 0, puts = 0;

  std::optional<Json> get(const std::string& key) override {
    auto found = stored.find(key);
    if (found == stored.end()) {
      ++misses;
      return std::nullopt;
    }
    ++hits;
    return Json::parse(found->second);
  }
  void put(const std::string& key, const Json& value) override {
    ++puts;
    stored[key] = value.dump();
  }
};

}  // namespace aaw::test
