#include "core/consumer/consumer_check.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <sstream>
#include <string_view>
#include <utility>

namespace aaw {
namespace {

// The causes of unknown verdicts (Binding::cause), in the order summaries list them.
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> k_unknown_causes{{
    {"forwards", "forward *args/**kwargs of their own"},
    {"ambiguous", "may reach another function"},
    {"unreadable", "signature not readable statically"},
    {"extraction", "extraction failed"},
}};

// The bindings of `sites` at one commit, from the states of `functions` there.
Result<std::vector<Binding>> bind_at(const std::vector<const SiteVerdict*>& sites, SignatureSource& source,
                                     CallBinder& binder, const ObjectId& commit,
                                     std::vector<SignatureState>* states_out = nullptr) {
  std::vector<MonitoredFunction> functions;
  std::map<const ConsumerFunction*, std::size_t> index;
  for (const SiteVerdict* s : sites)
    if (index.emplace(s->function, functions.size()).second) functions.push_back(s->function->function);
  auto states = source.extract(commit, functions);
  if (!states) return states.error().context("extracting at " + commit.short_hex());
  std::vector<CallBinder::Request> requests;
  for (const SiteVerdict* s : sites) requests.push_back({&(*states)[index.at(s->function)], s->site});
  auto bound = binder.bind(requests);
  if (!bound) return bound.error();
  if (states_out != nullptr) {
    states_out->clear();
    for (const SiteVerdict* s : sites) states_out->push_back((*states)[index.at(s->function)]);
  }
  return bound;
}

int rank(const SiteVerdict& s) {
  if (s.not_importable && s.binding.fails()) return 0;
  return 1 + static_cast<int>(s.binding.verdict);
}

std::string location(const SiteVerdict& s) { return location(*s.site); }

// When `site` fails because it passes a keyword that `before` took and `after` (its function at
// `commit`) does not: the reason says so, and names the parameter that took its place, if any.
void explain_lost_keyword(SiteVerdict& site, const SignatureState& before, const SignatureState& after,
                          const ObjectId& commit) {
  const std::string prefix = "got an unexpected keyword argument '";
  const std::string& reason = site.binding.reason;
  if (reason.rfind(prefix, 0) != 0 || !before.is_ok() || !after.is_ok()) return;
  const std::string keyword = reason.substr(prefix.size(), reason.find('\'', prefix.size()) - prefix.size());
  const auto& old_parameters = before.signature.parameters;
  auto old_at = std::find_if(old_parameters.begin(), old_parameters.end(),
                             [&](const Parameter& p) { return p.name == keyword; });
  if (old_at == old_parameters.end() || after.signature.find(keyword) != nullptr) return;
  const auto index = static_cast<std::size_t>(old_at - old_parameters.begin());
  std::string what = "removed";
  const auto& new_parameters = after.signature.parameters;
  if (index < new_parameters.size() && before.signature.find(new_parameters[index].name) == nullptr &&
      new_parameters[index].kind == old_at->kind)
    what = "renamed to `" + new_parameters[index].name + "`";
  const std::string& target = site.function->target;
  site.binding.reason = "passes `" + keyword + "=`, which " + target.substr(target.rfind('.') + 1) +
                        " no longer accepts (" + what + " in " + commit.short_hex() + "): " + reason;
}

}  // namespace

std::size_t ConsumerCheck::count(Verdict verdict) const {
  return static_cast<std::size_t>(std::count_if(
      sites.begin(), sites.end(), [&](const SiteVerdict& s) { return s.binding.verdict == verdict; }));
}

std::vector<std::pair<std::string, std::size_t>> ConsumerCheck::unknown_causes() const {
  std::map<std::string, std::size_t> counted;
  for (const SiteVerdict& s : sites)
    if (s.binding.verdict == Verdict::unknown) ++counted[s.binding.cause];
  std::vector<std::pair<std::string, std::size_t>> out;
  for (const auto& [cause, text] : k_unknown_causes) {
    auto found = counted.find(std::string(cause));
    if (found != counted.end()) out.emplace_back(found->first, found->second), counted.erase(found);
  }
  for (const auto& [cause, n] : counted) out.emplace_back(cause.empty() ? "other" : cause, n);
  return out;
}

std::string summary_line(const ConsumerCheck& check) {
  std::ostringstream out;
  out << check.sites.size() << " call sites at " << check.commit.short_hex() << ": "
      << check.count(Verdict::breaks) << " break, " << check.count(Verdict::guarded) << " guarded, "
      << check.count(Verdict::unknown) << " unknown";
  auto causes = check.unknown_causes();
  for (std::size_t i = 0; i < causes.size(); ++i) {
    std::string_view text = causes[i].first;
    for (const auto& [cause, description] : k_unknown_causes)
      if (cause == causes[i].first) text = description;
    out << (i == 0 ? " (" : ", ") << causes[i].second << " " << text << (i + 1 == causes.size() ? ")" : "");
  }
  out << ", " << check.count(Verdict::binds) << " bind";
  if (std::size_t n = check.unverified_sites(); n > 0)
    out << " (" << n << (n == 1 ? " site is" : " sites are")
        << " bound against a signature the tool cannot vouch for: 'unverified')";
  if (!check.unchecked.empty())
    out << "; " << check.unchecked.size()
        << (check.unchecked.size() == 1 ? " more place reaches" : " more places reach")
        << " the package in ways that cannot be checked (listed as 'not checked')";
  return out.str();
}

std::size_t ConsumerCheck::unverified_sites() const {
  return static_cast<std::size_t>(std::count_if(
      sites.begin(), sites.end(), [](const SiteVerdict& s) { return s.state.is_unverified(); }));
}

Json summary_json(const ConsumerCheck& check) {
  Json summary = Json::object();
  for (Verdict v : {Verdict::breaks, Verdict::guarded, Verdict::unknown, Verdict::binds})
    summary[std::string(to_string(v))] = check.count(v);
  Json causes = Json::object();
  for (const auto& [cause, n] : check.unknown_causes()) causes[cause] = n;
  summary["unknown_by_cause"] = causes;
  summary["not_checked"] = check.unchecked.size();
  summary["unverified"] = check.unverified_sites();
  return summary;
}

std::string describe(const UncheckedSite& site) { return "not checked " + location(site) + ": " + site.what; }

Json unchecked_json(const ConsumerCheck& check) {
  Json out = Json::array();
  for (const UncheckedSite& u : check.unchecked) out.push_back(to_json(u));
  return out;
}

Result<ConsumerCheck> check_consumer(const ConsumerScan& scan, SignatureSource& source, CallBinder& binder,
                                     const ObjectId& commit) {
  ConsumerCheck check{commit, {}, scan.unchecked};
  for (const ConsumerFunction& f : scan.functions)
    for (const CallSite& site : f.call_sites)
      check.sites.push_back({&f, &site, {}, false, std::nullopt, std::nullopt, {}});
  std::vector<const SiteVerdict*> all;
  for (const SiteVerdict& s : check.sites) all.push_back(&s);
  std::vector<SignatureState> states;
  auto bound = bind_at(all, source, binder, commit, &states);
  if (!bound) return bound.error();
  for (std::size_t i = 0; i < check.sites.size(); ++i) {
    check.sites[i].binding = (*bound)[i];
    check.sites[i].not_importable = states[i].status == Status::missing;
    check.sites[i].state = states[i];
  }
  std::stable_sort(check.sites.begin(), check.sites.end(), [](const SiteVerdict& a, const SiteVerdict& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    if (a.site->file != b.site->file) return a.site->file < b.site->file;
    return a.site->line < b.site->line;
  });
  return check;
}

Result<std::size_t> blame_consumer(ConsumerCheck& check, SignatureSource& source, CallBinder& binder,
                                   const std::vector<ObjectId>& history) {
  std::vector<SiteVerdict*> broken;
  for (SiteVerdict& s : check.sites)
    if (s.binding.fails()) broken.push_back(&s);
  if (broken.empty() || history.empty()) return std::size_t{0};
  std::vector<MonitoredFunction> functions;
  std::map<const ConsumerFunction*, std::size_t> index;
  for (const SiteVerdict* s : broken)
    if (index.emplace(s->function, functions.size()).second) functions.push_back(s->function->function);

  // Every state each function goes through, with the position in `history` where it starts:
  // followed commit by commit, so that a call that bound only for a while is seen.
  std::vector<std::vector<std::pair<std::size_t, SignatureState>>> changes(functions.size());
  auto states = source.extract(history.front(), functions);
  if (!states) return states.error().context("extracting at " + history.front().short_hex());
  for (std::size_t f = 0; f < functions.size(); ++f) changes[f].emplace_back(0, (*states)[f]);
  for (std::size_t i = 1; i < history.size(); ++i) {
    auto updates = source.advance(history[i - 1], history[i], functions, *states);
    if (!updates) return updates.error().context("extracting at " + history[i].short_hex());
    for (StateUpdate& u : *updates) {
      (*states)[u.position] = u.state;
      changes[u.position].emplace_back(i, std::move(u.state));
    }
  }

  // Each broken call bound against each of those states, in one batch.
  std::vector<CallBinder::Request> requests;
  for (const SiteVerdict* s : broken)
    for (const auto& change : changes[index.at(s->function)]) requests.push_back({&change.second, s->site});
  auto bound = binder.bind(requests);
  if (!bound) return bound.error();

  std::size_t next = 0;
  for (SiteVerdict* s : broken) {
    const auto& stretches = changes[index.at(s->function)];
    // Only a call that binds vouches for a state: one that cannot be read there (unknown) does not.
    std::vector<bool> binds;
    for (std::size_t j = 0; j < stretches.size(); ++j)
      binds.push_back((*bound)[next++].verdict == Verdict::binds);
    auto last = std::find(binds.rbegin(), binds.rend(), true);
    if (last == binds.rend()) continue;  // never bound in this history: no commit to blame
    const std::size_t bound_at = static_cast<std::size_t>(binds.rend() - last) - 1;
    if (bound_at + 1 >= stretches.size()) continue;  // binds at the end: not broken here
    const std::size_t broke_at = bound_at + 1;
    s->broken_since = history[stretches[broke_at].first];
    std::size_t window = bound_at;
    while (window > 0 && binds[window - 1]) --window;
    // Failing before against a function that was there (not one added later): it bound only for a while.
    if (window > 0 && stretches[window - 1].second.is_ok()) s->bound_from = history[stretches[window].first];
    explain_lost_keyword(*s, stretches[bound_at].second, stretches[broke_at].second, *s->broken_since);
  }
  return history.size();
}

int consumer_exit_code(const ConsumerCheck& check) { return check.count(Verdict::breaks) > 0 ? 1 : 0; }

std::string describe(const SiteVerdict& s) {
  std::string out = std::string(to_string(s.binding.verdict)) + " " + location(s) + " " + s.function->target;
  if (!s.binding.reason.empty()) out += ": " + s.binding.reason;
  if (s.broken_since) {
    out += " (broken since " + s.broken_since->short_hex();
    if (s.bound_from) out += "; it bound only from " + s.bound_from->short_hex() + " on";
    out += ")";
  }
  if (s.state.is_unverified()) out += " [signature unverified: " + s.state.unverified + "]";
  return out;
}

std::string render_consumer_text(const ConsumerCheck& check, bool problems_only) {
  std::ostringstream out;
  for (const SiteVerdict& s : check.sites) {
    const Verdict verdict = s.binding.verdict;
    if (!problems_only || verdict == Verdict::breaks || verdict == Verdict::unknown)
      out << describe(s) << "\n";
  }
  for (const UncheckedSite& u : check.unchecked) out << describe(u) << "\n";
  out << summary_line(check) << "\n";
  return out.str();
}

Json to_json(const SiteVerdict& s) {
  return {{"function_path", s.site->function_path},
          {"import_statement", s.site->import_statement},
          {"target", s.function->target},
          {"file", s.site->file},
          {"line", s.site->line},
          {"caller", s.site->caller},
          {"verdict", to_string(s.binding.verdict)},
          {"reason", s.binding.reason},
          {"cause", s.binding.verdict == Verdict::unknown ? Json(s.binding.cause) : Json(nullptr)},
          {"not_importable", s.not_importable},
          {"broken_since", s.broken_since ? Json(s.broken_since->hex) : Json(nullptr)},
          {"bound_from", s.bound_from ? Json(s.bound_from->hex) : Json(nullptr)},
          {"unverified", s.state.is_unverified() ? Json(s.state.unverified) : Json(nullptr)}};
}

Json consumer_check_to_json(const ConsumerCheck& check) {
  Json sites = Json::array();
  for (const SiteVerdict& s : check.sites) sites.push_back(to_json(s));
  return {{"schema", "aiter-api-watcher/check/1"}, {"commit", check.commit.hex},
          {"summary", summary_json(check)},        {"call_sites", sites},
          {"not_checked", unchecked_json(check)},  {"exit_code", consumer_exit_code(check)}};
}

std::string render_consumer_markdown(const ConsumerCheck& check) {
  std::ostringstream out;
  out << "## Consumer check at `" << check.commit.short_hex() << "`\n\n"
      << summary_line(check) << ".\n\n"
      << "| verdict | call site | function | reason | broken since |\n|---|---|---|---|---|\n";
  auto cell = [](std::string text) {
    std::string escaped;
    for (char c : text) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
    return escaped;
  };
  for (const SiteVerdict& s : check.sites)
    out << "| " << to_string(s.binding.verdict) << " | `" << cell(location(s)) << "` | `"
        << s.function->target << "` | " << cell(s.binding.reason) << " | "
        << (s.broken_since ? "`" + s.broken_since->short_hex() + "`" : "") << " |\n";
  for (const UncheckedSite& u : check.unchecked)
    out << "| not checked | `" << cell(location(u)) << "` | | " << cell(u.what) << " | |\n";
  return out.str();
}

}  // namespace aaw
