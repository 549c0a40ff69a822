#include "core/watch/parse_share.hpp"

#include <cstdint>

namespace aaw {

bool ParseShare::replay_parses(std::string_view path, int share) {
  if (share <= 0) return false;
  std::uint32_t hash = 2166136261u;  // FNV-1a: the same bucket in both processes and every run
  for (char c : path) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  return static_cast<int>(hash % k_buckets) < share;
}

bool ParseShare::balance(double replay_busy, double helper_busy) {
  const int before = m_share;
  if (helper_busy > replay_busy + k_margin && m_share < k_most) ++m_share;
  if (replay_busy > helper_busy + k_margin && m_share > 0) --m_share;
  return m_share != before;
}

}  // namespace aaw
