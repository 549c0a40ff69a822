// The scan of a consumer tree in the embedded interpreter (src/python/aaw_consumer.py): every import
// of the watched package and every call reached through it, with its shape. Nothing of the consumer
// is imported or executed.
#pragma once

#include <filesystem>
#include <string>

#include "core/consumer/consumer.hpp"
#include "core/ports/python_host.hpp"
#include "core/ports/result_cache.hpp"

namespace aaw {

// Every import of `package` in the .py files under `root` (but those `exclude` matches: globs
// relative to `root`) and every call reached through them. invalid_input when `root` is not a
// directory; python when the scanner itself fails. With a `cache`, a file whose content and path
// were scanned before is not parsed again: its scan is taken from the cache.
Result<ConsumerScan> scan_consumer(PythonHost& python, const std::filesystem::path& root,
                                   const std::string& package, const std::vector<std::string>& exclude = {},
                                   ResultCache* cache = nullptr);

}  // namespace aaw
