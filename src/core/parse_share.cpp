#include "aaw/core/parse_share.hpp"

namespace aaw {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return ParseShare::k_buckets;  // not an id: in no share
}

}  // namespace

bool ParseShare::replay_parses(const ObjectId& blob, int share) {
  return !blob.hex.empty() && hex_digit(blob.hex[0]) < share;
}

bool ParseShare::balance(double replay_busy, double helper_busy) {
  const int before = m_share;
  if (helper_busy > replay_busy + k_margin && m_share < k_most) ++m_share;
  if (replay_busy > helper_busy + k_margin && m_share > 0) --m_share;
  return m_share != before;
}

}  // namespace aaw
