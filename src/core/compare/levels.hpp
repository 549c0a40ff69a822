// How much each change kind counts in a gate (a pull request's check): deny (fails it), warn
// (reported, never fails), allow (reported as a note). The config's `levels` sets it per change
// kind; a kind it does not name gets its level from `--fail-on` and the change's severity.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/diff.hpp"

namespace aaw {

enum class FailOn { any, breaking };

enum class Level { allow, warn, deny };

std::string_view to_string(Level level);
std::optional<Level> parse_level(std::string_view text);

// Every change kind's name, in ChangeKind order (for messages).
std::vector<std::string> change_kind_names();

struct LevelPolicy {
  std::map<ChangeKind, Level> by_kind;  // the config's `levels`
  FailOn fail_on = FailOn::any;

  // by_kind's level for the change's kind when set; else deny for every change with
  // --fail-on any, and with --fail-on breaking deny for a breaking change and warn for the rest.
  Level level_of(const Change& change) const;
};

}  // namespace aaw
