#include "core/consumer/consumer_check.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <sstream>
#include <string_view>
#include <utility>

namespace aaw {
namespace {

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

}  // namespace

namespace {

// The causes of unknown verdicts (Binding::cause), in the order summaries list them.
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> k_unknown_causes{{
    {"forwards", "forward *args/**kwargs of their own"},
    {"ambiguous", "may reach another function"},
    {"unreadable", "signature not readable statically"},
    {"extraction", "extraction failed"},
}};

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
  if (!check.unchecked.empty())
    out << "; " << check.unchecked.size()
        << (check.unchecked.size() == 1 ? " more place reaches" : " more places reach")
        << " the package in ways that cannot be checked (listed as 'not checked')";
  return out.str();
}

Json summary_json(const ConsumerCheck& check) {
  Json summary = Json::object();
  for (Verdict v : {Verdict::breaks, Verdict::guarded, Verdict::unknown, Verdict::binds})
    summary[std::string(to_string(v))] = check.count(v);
  Json causes = Json::object();
  for (const auto& [cause, n] : check.unknown_causes()) causes[cause] = n;
  summary["unknown_by_cause"] = causes;
  summary["not_checked"] = check.unchecked.size();
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
    for (const CallSite& site : f.call_sites) check.sites.push_back({&f, &site, {}, false, std::nullopt});
  std::vector<const SiteVerdict*> all;
  for (const SiteVerdict& s : check.sites) all.push_back(&s);
  std::vector<SignatureState> states;
  auto bound = bind_at(all, source, binder, commit, &states);
  if (!bound) return bound.error();
  for (std::size_t i = 0; i < check.sites.size(); ++i) {
    check.sites[i].binding = (*bound)[i];
    check.sites[i].not_importable = states[i].status == Status::missing;
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
  std::vector<const SiteVerdict*> asked(broken.begin(), broken.end());
  // Per commit probed: whether each broken site does not bind there.
  std::map<std::size_t, std::vector<bool>> probed;
  probed[history.size() - 1] = std::vector<bool>(broken.size(), true);
  std::size_t extracted = 0;
  auto at = [&](std::size_t i) -> Result<const std::vector<bool>*> {
    auto found = probed.find(i);
    if (found != probed.end()) return &found->second;
    auto bound = bind_at(asked, source, binder, history[i]);
    if (!bound) return bound.error();
    ++extracted;
    std::vector<bool> fails;
    // Only a call that binds vouches for a commit: one that cannot be read there (unknown) does not.
    for (const Binding& b : *bound) fails.push_back(b.verdict != Verdict::binds);
    return &probed.emplace(i, std::move(fails)).first->second;
  };
  for (std::size_t k = 0; k < broken.size(); ++k) {
    // A call that never bound before some commit (the function did not exist yet) does not bind
    // there either: look back from the head, doubling the step, for a commit where it binds, then
    // bisect between the two for the last transition.
    std::size_t bad = history.size() - 1, step = 1;
    std::optional<std::size_t> good;
    while (!good) {
      std::size_t probe = bad >= step ? bad - step : 0;
      auto fails = at(probe);
      if (!fails) return fails.error();
      if (!(**fails)[k])
        good = probe;
      else if (probe == 0)
        break;
      else
        bad = probe, step *= 2;
    }
    if (!good) continue;  // never bound in this history: no commit to blame
    while (bad - *good > 1) {
      std::size_t mid = *good + (bad - *good) / 2;
      auto fails = at(mid);
      if (!fails) return fails.error();
      if ((**fails)[k])
        bad = mid;
      else
        good = mid;
    }
    broken[k]->broken_since = history[bad];
  }
  return extracted;
}

int consumer_exit_code(const ConsumerCheck& check) { return check.count(Verdict::breaks) > 0 ? 1 : 0; }

std::string describe(const SiteVerdict& s) {
  std::string out = std::string(to_string(s.binding.verdict)) + " " + location(s) + " " + s.function->target;
  if (!s.binding.reason.empty()) out += ": " + s.binding.reason;
  if (s.broken_since) out += " (broken since " + s.broken_since->short_hex() + ")";
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
          {"broken_since", s.broken_since ? Json(s.broken_since->hex) : Json(nullptr)}};
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
