// `check --since-pin`: what breaks if the consumer moves from the provider commit it is pinned to
// (consumer.pinned_commit) to the head: each first-parent commit in between that breaks a call
// site that binds at the pin, with those call sites and the pull request that merged it; the calls
// already failing at the pin are listed apart.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/consumer/consumer_check.hpp"
#include "core/ports/git_mirror.hpp"

namespace aaw {

struct UpgradeStep {
  CommitInfo commit;
  std::optional<std::string> pull_request;  // URL (or "#123" off GitHub), from the commit's subject
  std::vector<const SiteVerdict*> sites;    // verdicts at the head; point into the head's check
  // The unknown sites at the head of the functions this commit breaks calls of: they may break too.
  std::vector<const SiteVerdict*> may_break;
};

struct ConsumerUpgrade {
  const ConsumerCheck* at_head = nullptr;  // every site at the head, its counts, what is not checked
  ObjectId pinned;
  std::vector<UpgradeStep> steps;                  // oldest first
  std::vector<const SiteVerdict*> already_broken;  // failing at the pin already
};

// `at_head` (which must outlive the plan) is the check at the head with broken_since set by
// blame_consumer over `history` (the first-parent commits from the pin to the head, oldest first);
// `at_pin` the check of the same scan at the pin. Commit details come from `mirror`; pull requests
// from the subjects, linked for a repository on GitHub or under `web_url` (report.web_url), else
// named with the repository's name (pull_request_of_subject). Steps in the order of `history`.
Result<ConsumerUpgrade> plan_upgrade(const ConsumerCheck& at_head, const ConsumerCheck& at_pin,
                                     const std::vector<ObjectId>& history, GitMirror& mirror,
                                     std::string_view repository_url, std::string_view web_url = {});

// Exit code of --since-pin: 1 when a commit between the pin and the head breaks a call, else 0.
int upgrade_exit_code(const ConsumerUpgrade& upgrade);

inline constexpr std::string_view k_since_pin_schema = "aiter-api-watcher/check-since-pin/2";

// Each breaking commit with the calls it breaks and the unknown ones that may break with them,
// the calls already failing at the pin, every unknown call and every place not checked at the
// head, then the head's summary_line.
std::string render_upgrade_text(const ConsumerUpgrade& upgrade);
// {"schema": k_since_pin_schema, "pinned_commit", "commit", "summary" (check's), "call_sites" (every
// site at the head), "breaking_commits": [{"commit", "subject", "author", "pull_request",
// "call_sites": [...], "may_break": [...]}], "already_broken": [...], "not_checked": [...],
// "exit_code": upgrade_exit_code}; call sites as check's JSON has them.
Json upgrade_to_json(const ConsumerUpgrade& upgrade);
std::string render_upgrade_markdown(const ConsumerUpgrade& upgrade);

}  // namespace aaw
