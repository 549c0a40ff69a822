#include "core/compare/levels.hpp"

#include <array>

namespace aaw {
namespace {

constexpr std::array<std::string_view, 3> k_level_names = {"allow", "warn", "deny"};

}  // namespace

std::string_view to_string(Level level) { return k_level_names[static_cast<std::size_t>(level)]; }

std::optional<Level> parse_level(std::string_view text) {
  for (std::size_t i = 0; i < k_level_names.size(); ++i)
    if (k_level_names[i] == text) return static_cast<Level>(i);
  return std::nullopt;
}

std::vector<std::string> change_kind_names() {
  std::vector<std::string> names;
  for (int k = 0; k <= static_cast<int>(ChangeKind::drift_resolved); ++k)
    names.emplace_back(to_string(static_cast<ChangeKind>(k)));
  return names;
}

Level LevelPolicy::level_of(const Change& change) const {
  if (auto set = by_kind.find(change.kind); set != by_kind.end()) return set->second;
  if (fail_on == FailOn::any) return Level::deny;
  return change.severity == Severity::breaking ? Level::deny : Level::warn;
}

}  // namespace aaw
