#include "core/ports/function_lookup.hpp"

#include "util/strings.hpp"

namespace aaw {
namespace {

constexpr std::size_t k_suggestions = 3;

std::string quoted(const std::string& text) { return "'" + text + "'"; }

}  // namespace

std::vector<std::string> FunctionLookup::suggestions() const {
  if (name.empty()) return {};
  return closest_matches(name, names, k_suggestions);
}

std::string did_you_mean(const std::vector<std::string>& suggestions) {
  if (suggestions.empty()) return "";
  std::string out = "did you mean ";
  for (std::size_t i = 0; i < suggestions.size(); ++i) {
    if (i > 0) out += i + 1 == suggestions.size() ? " or " : ", ";
    out += quoted(suggestions[i]);
  }
  return out + "?";
}

std::string UnfoundFunction::describe() const {
  std::string out = "function " + quoted(function.function_path) + " (" + quoted(function.import_statement) +
                    "): not found at " + where;
  if (!lookup.detail.empty()) out += ": " + lookup.detail;
  if (std::string hint = did_you_mean(lookup.suggestions()); !hint.empty()) out += "; " + hint;
  return out;
}

Result<std::vector<UnfoundFunction>> unfound_functions(FunctionFinder& finder,
                                                       const std::vector<NamedCommit>& commits,
                                                       const std::vector<MonitoredFunction>& functions) {
  if (commits.empty()) return std::vector<UnfoundFunction>();
  std::vector<UnfoundFunction> pending;
  for (const MonitoredFunction& function : functions) pending.push_back({function, {}, ""});
  for (const NamedCommit& commit : commits) {
    if (pending.empty()) break;
    std::vector<MonitoredFunction> asked;
    for (const UnfoundFunction& u : pending) asked.push_back(u.function);
    auto lookups = finder.lookup(commit.commit, asked);
    if (!lookups) return lookups.error().context("looking up the functions at " + commit.label);
    std::string where = commit.label + " (" + commit.commit.short_hex() + ")";
    std::vector<UnfoundFunction> still;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      if ((*lookups)[i].verdict != FunctionLookup::Verdict::not_found) continue;
      UnfoundFunction u = std::move(pending[i]);
      u.where += (u.where.empty() ? "" : " nor at ") + where;
      u.lookup = std::move((*lookups)[i]);
      still.push_back(std::move(u));
    }
    pending = std::move(still);
  }
  return pending;
}

}  // namespace aaw
