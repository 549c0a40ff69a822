// FNV-1a: a hash that is stable across builds and platforms, unlike std::hash. Used where a hash
// is persisted (mirror directory names, notification markers) and so must never change.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace aaw {

std::uint32_t fnv1a_32(std::string_view text);
std::uint64_t fnv1a_64(std::string_view text);

// "0a1b2c3d": 8 lowercase hex digits.
std::string hex8(std::uint32_t value);

}  // namespace aaw
