#include "util/hash.hpp"

#include <cstdio>

namespace aaw {
namespace {

template <class Word>
Word fnv1a(std::string_view text, Word basis, Word prime) {
  Word hash = basis;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= prime;
  }
  return hash;
}

}  // namespace

std::uint32_t fnv1a_32(std::string_view text) { return fnv1a<std::uint32_t>(text, 2166136261u, 16777619u); }

std::uint64_t fnv1a_64(std::string_view text) {
  return fnv1a<std::uint64_t>(text, 0xcbf29ce484222325ULL, 0x100000001b3ULL);
}

std::string hex8(std::uint32_t value) {
  char text[9];
  std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(value));
  return text;
}

}  // namespace aaw
