#include "core/consumer/consumer_upgrade.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "util/url.hpp"

namespace aaw {
namespace {

// The sites of `check` that fail (break, or fail behind a guard), by the scan's call site.
std::map<const CallSite*, const SiteVerdict*> failing(const ConsumerCheck& check) {
  std::map<const CallSite*, const SiteVerdict*> out;
  for (const SiteVerdict& s : check.sites)
    if (s.binding.fails()) out[s.site] = &s;
  return out;
}

Json sites_json(const std::vector<const SiteVerdict*>& sites) {
  Json out = Json::array();
  for (const SiteVerdict* s : sites) out.push_back(to_json(*s));
  return out;
}

// The unknown sites of `check` that call a function one of `broken` calls.
std::vector<const SiteVerdict*> unknown_calls_of(const ConsumerCheck& check,
                                                 const std::vector<const SiteVerdict*>& broken) {
  std::vector<const SiteVerdict*> out;
  for (const SiteVerdict& s : check.sites)
    if (s.binding.verdict == Verdict::unknown &&
        std::any_of(broken.begin(), broken.end(),
                    [&](const SiteVerdict* b) { return b->function == s.function; }))
      out.push_back(&s);
  return out;
}

std::vector<const SiteVerdict*> unknown_calls(const ConsumerCheck& check) {
  std::vector<const SiteVerdict*> out;
  for (const SiteVerdict& s : check.sites)
    if (s.binding.verdict == Verdict::unknown) out.push_back(&s);
  return out;
}

std::string step_title(const UpgradeStep& step) {
  std::string out = step.commit.id.short_hex() + " " + step.commit.subject;
  if (step.pull_request) out += " [" + *step.pull_request + "]";
  return out;
}

}  // namespace

Result<ConsumerUpgrade> plan_upgrade(const ConsumerCheck& at_head, const ConsumerCheck& at_pin,
                                     const std::vector<ObjectId>& history, GitMirror& mirror,
                                     std::string_view repository_url, std::string_view web_url) {
  ConsumerUpgrade upgrade{&at_head, at_pin.commit, {}, {}};
  const auto failing_at_pin = failing(at_pin);
  std::map<ObjectId, std::vector<const SiteVerdict*>> by_commit;
  for (const SiteVerdict& s : at_head.sites) {
    if (!s.binding.fails()) continue;
    if (failing_at_pin.count(s.site) > 0 || !s.broken_since)
      upgrade.already_broken.push_back(&s);
    else
      by_commit[*s.broken_since].push_back(&s);
  }
  for (const ObjectId& commit : history) {  // oldest first
    auto sites = by_commit.find(commit);
    if (sites == by_commit.end()) continue;
    auto info = mirror.commit_info(commit);
    if (!info) return info.error().context("reading " + commit.hex);
    auto may_break = unknown_calls_of(at_head, sites->second);
    upgrade.steps.push_back({*info, pull_request_of_subject(repository_url, info->subject, web_url),
                             std::move(sites->second), std::move(may_break)});
  }
  return upgrade;
}

int upgrade_exit_code(const ConsumerUpgrade& upgrade) {
  for (const UpgradeStep& step : upgrade.steps)
    for (const SiteVerdict* s : step.sites)
      if (s->binding.verdict == Verdict::breaks) return 1;
  return 0;
}

std::string render_upgrade_text(const ConsumerUpgrade& upgrade) {
  std::ostringstream out;
  const ConsumerCheck& head = *upgrade.at_head;
  out << "Moving the consumer from " << upgrade.pinned.short_hex() << " (pinned) to "
      << head.commit.short_hex() << ": " << upgrade.steps.size()
      << (upgrade.steps.size() == 1 ? " commit breaks" : " commits break") << " its calls\n";
  for (const UpgradeStep& step : upgrade.steps) {
    out << "\n" << step_title(step) << "\n";
    for (const SiteVerdict* s : step.sites) out << "  " << describe(*s) << "\n";
    for (const SiteVerdict* s : step.may_break) out << "  may break: " << describe(*s) << "\n";
  }
  if (!upgrade.already_broken.empty()) {
    out << "\nAlready failing at the pin (" << upgrade.already_broken.size() << "):\n";
    for (const SiteVerdict* s : upgrade.already_broken) out << "  " << describe(*s) << "\n";
  }
  auto unknown = unknown_calls(head);
  if (!unknown.empty() || !head.unchecked.empty()) {
    out << "\nCannot be checked (" << unknown.size() + head.unchecked.size() << "):\n";
    for (const SiteVerdict* s : unknown) out << "  " << describe(*s) << "\n";
    for (const UncheckedSite& u : head.unchecked) out << "  " << describe(u) << "\n";
  }
  out << "\n" << summary_line(head) << "\n";
  return out.str();
}

Json upgrade_to_json(const ConsumerUpgrade& upgrade) {
  Json steps = Json::array();
  for (const UpgradeStep& step : upgrade.steps)
    steps.push_back({{"commit", step.commit.id.hex},
                     {"subject", step.commit.subject},
                     {"author", step.commit.author_name},
                     {"pull_request", step.pull_request ? Json(*step.pull_request) : Json(nullptr)},
                     {"call_sites", sites_json(step.sites)},
                     {"may_break", sites_json(step.may_break)}});
  const ConsumerCheck& head = *upgrade.at_head;
  std::vector<const SiteVerdict*> every;
  for (const SiteVerdict& s : head.sites) every.push_back(&s);
  return {{"schema", k_since_pin_schema},
          {"pinned_commit", upgrade.pinned.hex},
          {"commit", head.commit.hex},
          {"summary", summary_json(head)},
          {"call_sites", sites_json(every)},
          {"breaking_commits", steps},
          {"already_broken", sites_json(upgrade.already_broken)},
          {"not_checked", unchecked_json(head)},
          {"exit_code", upgrade_exit_code(upgrade)}};
}

std::string render_upgrade_markdown(const ConsumerUpgrade& upgrade) {
  std::ostringstream out;
  const ConsumerCheck& head = *upgrade.at_head;
  out << "## Moving the consumer from `" << upgrade.pinned.short_hex() << "` to `" << head.commit.short_hex()
      << "`\n\n"
      << upgrade.steps.size() << " of the commits in between break calls of the consumer.\n";
  for (const UpgradeStep& step : upgrade.steps) {
    out << "\n### `" << step.commit.id.short_hex() << "` " << step.commit.subject << "\n\n";
    if (step.pull_request) out << "Pull request: " << *step.pull_request << "\n\n";
    for (const SiteVerdict* s : step.sites) out << "- " << describe(*s) << "\n";
    for (const SiteVerdict* s : step.may_break) out << "- may break: " << describe(*s) << "\n";
  }
  if (!upgrade.already_broken.empty()) {
    out << "\n### Already failing at the pin\n\n";
    for (const SiteVerdict* s : upgrade.already_broken) out << "- " << describe(*s) << "\n";
  }
  auto unknown = unknown_calls(head);
  if (!unknown.empty() || !head.unchecked.empty()) {
    out << "\n### Cannot be checked\n\n";
    for (const SiteVerdict* s : unknown) out << "- " << describe(*s) << "\n";
    for (const UncheckedSite& u : head.unchecked) out << "- " << describe(u) << "\n";
  }
  out << "\n" << summary_line(head) << ".\n";
  return out.str();
}

}  // namespace aaw
