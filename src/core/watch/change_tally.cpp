#include "core/watch/change_tally.hpp"

#include "util/strings.hpp"

namespace aaw {

std::string describe(const ChangeTally& tally) {
  std::string text = "no API change";
  if (tally.changes > 0) {
    text = counted(tally.changes, "API change", "API changes");
    if (tally.breaking > 0) text += " (" + std::to_string(tally.breaking) + " breaking)";
    text += " at " + counted(tally.commits_with_changes, "commit", "commits");
  }
  if (tally.failed > 0) text += "; " + counted(tally.failed, "commit", "commits") + " could not be processed";
  if (tally.unverified > 0 || tally.unresolved > 0) {
    text += "; at the last commit, ";
    if (tally.unverified > 0) text += counted(tally.unverified, "function", "functions") + " unverified";
    if (tally.unverified > 0 && tally.unresolved > 0) text += ", ";
    if (tally.unresolved > 0) text += counted(tally.unresolved, "function", "functions") + " unresolved";
  }
  return text;
}

}  // namespace aaw
