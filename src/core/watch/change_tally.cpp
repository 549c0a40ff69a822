#include "core/watch/change_tally.hpp"

namespace aaw {
namespace {

std::string count(std::size_t n, const char* singular, const char* plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

}  // namespace

std::string describe(const ChangeTally& tally) {
  std::string text = "no API change";
  if (tally.changes > 0) {
    text = count(tally.changes, "API change", "API changes");
    if (tally.breaking > 0) text += " (" + std::to_string(tally.breaking) + " breaking)";
    text += " at " + count(tally.commits_with_changes, "commit", "commits");
  }
  if (tally.failed > 0) text += "; " + count(tally.failed, "commit", "commits") + " could not be processed";
  if (tally.unverified > 0 || tally.unresolved > 0) {
    text += "; at the last commit, ";
    if (tally.unverified > 0) text += count(tally.unverified, "function", "functions") + " unverified";
    if (tally.unverified > 0 && tally.unresolved > 0) text += ", ";
    if (tally.unresolved > 0) text += count(tally.unresolved, "function", "functions") + " unresolved";
  }
  return text;
}

}  // namespace aaw
