#include "notify/notification_message.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/model/function_change.hpp"
#include "support/sample_values.hpp"
#include "support/text.hpp"

namespace aaw {
namespace {

using test::k_sample_sha;

constexpr const char* k_github = "https://github.com/ROCm/aiter.git";

// moe_sorting_ck: expert_mask renamed to mask, and a return annotation added.
Json sample_change(const char* import_statement = "import aiter.fused_moe_bf16_asm as rocm_aiter_asm_fmoe") {
  FunctionChange change;
  change.commit.id = ObjectId{k_sample_sha};
  change.commit.author_name = "Ada Lovelace";
  change.commit.author_email = "ada@example.com";
  change.commit.author_time = 1745682114;  // 2025-04-26T15:41:54Z
  change.commit.author_offset_minutes = 120;
  change.commit.subject = "Rename expert_mask to mask | tidy";
  change.pull_request = "https://github.com/ROCm/aiter/pull/321";
  change.function = {import_statement, "rocm_aiter_asm_fmoe.moe_sorting_ck"};
  Signature before;
  before.parameters = {Parameter{"topk_ids", ParameterKind::positional_or_keyword, {}, {}},
                       Parameter{"expert_mask", ParameterKind::positional_or_keyword, "None", {}}};
  Signature after = before;
  after.parameters[1].name = "mask";
  after.return_annotation = "None";
  change.before = SignatureState::ok(before);
  change.after = SignatureState::ok(after);
  change.changes = diff_states(change.before, change.after);
  return to_json(change);
}

using test::contains;

TEST(NotificationMessageTest, TitleIsTheOriginalTools) {
  EXPECT_EQ(issue_title(sample_change()), "API Change Detected: rocm_aiter_asm_fmoe.moe_sorting_ck");
}

TEST(NotificationMessageTest, MarkerNamesCommitFunctionAndImportHash) {
  std::string marker = issue_marker(sample_change());
  std::string prefix =
      std::string("<!-- aiter-api-watcher:") + k_sample_sha + ":rocm_aiter_asm_fmoe.moe_sorting_ck:";
  ASSERT_EQ(marker.substr(0, prefix.size()), prefix);
  std::string hash = marker.substr(prefix.size(), marker.size() - prefix.size() - 4);
  EXPECT_EQ(hash.size(), 8u);
  EXPECT_EQ(hash.find_first_not_of("0123456789abcdef"), std::string::npos) << hash;
  EXPECT_EQ(marker.substr(marker.size() - 4), " -->");
  EXPECT_EQ(issue_marker(sample_change()), marker) << "stable";
  EXPECT_NE(issue_marker(sample_change("from aiter.fused_moe_bf16_asm import moe_sorting_ck")), marker)
      << "another import statement is another notification";
}

TEST(NotificationMessageTest, MarkerHashIsFixedAcrossBuilds) {
  // FNV-1a of "import aiter", low 32 bits: a marker written by an older build must still be found.
  Json change = {
      {"commit", k_sample_sha}, {"function_path", "aiter.f"}, {"import_statement", "import aiter"}};
  EXPECT_EQ(issue_marker(change),
            std::string("<!-- aiter-api-watcher:") + k_sample_sha + ":aiter.f:c2c980ed -->");
}

TEST(NotificationMessageTest, BodyHasEverythingAboutTheChangeAndEndsWithTheMarker) {
  Json change = sample_change();
  std::string body = issue_body(change, k_github);
  EXPECT_TRUE(contains(body, "**Import:** `import aiter.fused_moe_bf16_asm as rocm_aiter_asm_fmoe`")) << body;
  EXPECT_TRUE(contains(
      body, std::string("[0123456789ab](https://github.com/ROCm/aiter/commit/") + k_sample_sha + ")"))
      << body;
  EXPECT_TRUE(contains(body, "**Author:** Ada Lovelace <ada@example.com>")) << body;
  EXPECT_TRUE(contains(body, "**Date:** 2025-04-26T17:41:54+02:00")) << body;
  EXPECT_TRUE(contains(body, "**Message:** Rename expert_mask to mask | tidy")) << body;
  EXPECT_TRUE(contains(body, "**Pull request:** https://github.com/ROCm/aiter/pull/321")) << body;
  EXPECT_TRUE(contains(body, "### Previous signature\n\n```python\n(topk_ids, expert_mask=None)\n```"))
      << body;
  EXPECT_TRUE(contains(body, "### Current signature\n\n```python\n(topk_ids, mask=None) -> None\n```"))
      << body;
  EXPECT_TRUE(contains(body, "- **breaking**: parameter 'expert_mask' removed (was 'expert_mask=None')"))
      << body;
  EXPECT_TRUE(contains(body, "- **compatible**: parameter 'mask' added: 'mask=None'")) << body;
  EXPECT_TRUE(contains(body, "- **annotation**: return annotation changed from none to 'None'")) << body;
  EXPECT_TRUE(contains(body, "(**breaking**)")) << body;
  std::string marker = issue_marker(change) + "\n";
  EXPECT_EQ(body.substr(body.size() - marker.size()), marker);
}

TEST(NotificationMessageTest, BodyOffGithubShowsTheShaAndNoPullRequest) {
  Json change = sample_change();
  change["pull_request"] = nullptr;
  std::string body = issue_body(change, "git://127.0.0.1:9418/aiter.git");
  EXPECT_TRUE(contains(body, std::string("**Commit:** `") + k_sample_sha + "`")) << body;
  EXPECT_FALSE(contains(body, "https://github.com/")) << body;
  EXPECT_TRUE(contains(body, "**Pull request:** none found")) << body;
}

TEST(NotificationMessageTest, CodeBlockFenceOutgrowsBackticksInTheSignature) {
  Json change = sample_change();
  change["new"] = {{"status", "unresolved"}, {"detail", "defined by ```exec```"}};
  std::string body = issue_body(change, k_github);
  EXPECT_TRUE(contains(body, "````python\nunresolved: defined by ```exec```\n````")) << body;
}

TEST(NotificationMessageTest, WebhookTextIsOneSlackSafeParagraph) {
  std::string text = webhook_text(sample_change(), k_github);
  EXPECT_EQ(text.find('\n'), std::string::npos) << text;
  EXPECT_EQ(text.substr(0, 63), "*API change (breaking)* in `rocm_aiter_asm_fmoe.moe_sorting_ck`") << text;
  EXPECT_TRUE(contains(text, std::string("at commit https://github.com/ROCm/aiter/commit/") + k_sample_sha))
      << text;
  EXPECT_TRUE(contains(text, "by Ada Lovelace &lt;ada@example.com&gt;: Rename expert_mask to mask | tidy."))
      << text;
  EXPECT_TRUE(contains(text, "Pull request: https://github.com/ROCm/aiter/pull/321.")) << text;
  EXPECT_TRUE(contains(text, "Old: `(topk_ids, expert_mask=None)`; new: `(topk_ids, mask=None) -&gt; None`."))
      << text;
  EXPECT_TRUE(contains(text, "breaking: parameter 'expert_mask' removed (was 'expert_mask=None').")) << text;
  EXPECT_FALSE(contains(text, "<")) << "Slack reads < as the start of a link";
}

TEST(NotificationMessageTest, WebhookPayloadIsTheChangePlusText) {
  Json change = sample_change();
  Json payload = webhook_payload(change, k_github);
  EXPECT_EQ(payload["text"], webhook_text(change, k_github));
  payload.erase("text");
  EXPECT_EQ(payload, change);
}

}  // namespace
}  // namespace aaw

namespace aaw {
namespace {

Json change_with_impact() {
  Json change = sample_change();
  ConsumerImpact impact;
  impact.call_sites = 3;
  CallSite site;
  site.file = "vllm/_aiter_ops.py";
  site.line = 3007;
  site.caller = "rocm_aiter_ops.shuffle_weight";
  impact.broken.push_back({site, {Verdict::breaks, "got an unexpected keyword argument 'expert_mask'", ""}});
  change["consumer_impact"] = to_json(impact);
  return change;
}

TEST(NotificationMessageTest, BodyListsTheConsumerCallSitesTheChangeBreaks) {
  std::string body = issue_body(change_with_impact(), k_github);
  EXPECT_TRUE(
      contains(body, "### Consumer call sites\n\nThis change breaks 1 of the consumer's 3 call sites.\n"))
      << body;
  EXPECT_TRUE(contains(body,
                       "- **breaks** `vllm/_aiter_ops.py:3007 (rocm_aiter_ops.shuffle_weight)`: got an "
                       "unexpected keyword argument 'expert_mask'\n"))
      << body;
  EXPECT_FALSE(contains(issue_body(sample_change(), k_github), "Consumer call sites"));
}

TEST(NotificationMessageTest, WebhookTextEndsWithTheConsumerCallSitesTheChangeBreaks) {
  std::string text = webhook_payload(change_with_impact(), k_github)["text"];
  EXPECT_TRUE(contains(text,
                       "Consumer: breaks 1 of the consumer's 3 call sites. breaks vllm/_aiter_ops.py:3007 "
                       "(rocm_aiter_ops.shuffle_weight): got an unexpected keyword argument 'expert_mask'."))
      << text;
}

}  // namespace
// What a force-push took back of moe_sorting_ck: the notice rewrite_notice makes, built here from
// the sample change's parts as history_rewrite.cpp writes them.
Json sample_rewrite() {
  Json change = sample_change();
  Json notice = {{"type", "history_rewritten"},
                 {"old_head", std::string(40, 'a')},
                 {"new_head", std::string(40, 'b')},
                 {"merge_base", std::string(40, 'c')},
                 {"abandoned_commits", 4}};
  for (const char* key : {"import_statement", "function_path", "old", "new", "changes", "severity"})
    notice[key] = change[key];
  return notice;
}

TEST(NotificationMessageTest, ARewriteIsTitledAndMarkedAsOneNotAsACommitsChange) {
  const Json notice = sample_rewrite();
  EXPECT_EQ(issue_title(notice),
            "API Change Undone by a History Rewrite: rocm_aiter_asm_fmoe.moe_sorting_ck");
  const std::string marker = issue_marker(notice);
  EXPECT_TRUE(marker.starts_with("<!-- aiter-api-watcher:rewrite:" + std::string(40, 'a') +
                                 ":rocm_aiter_asm_fmoe.moe_sorting_ck:"))
      << marker;
  EXPECT_NE(marker, issue_marker(sample_change()));
  EXPECT_EQ(change_label(notice),
            "rocm_aiter_asm_fmoe.moe_sorting_ck taken back by the rewrite of aaaaaaaaaaaa");
}

TEST(NotificationMessageTest, ARewritesBodyNamesTheHeadsAndNoCommitAsTheCause) {
  const std::string body = issue_body(sample_rewrite(), k_github);
  EXPECT_TRUE(contains(body, "Upstream history was rewritten (a force-push)")) << body;
  EXPECT_TRUE(
      contains(body, "[aaaaaaaaaaaa](https://github.com/ROCm/aiter/commit/" + std::string(40, 'a') + ")"))
      << body;
  EXPECT_TRUE(contains(body, "**Merge base:** [cccccccccccc]")) << body;
  EXPECT_TRUE(contains(body, "(4 commits after it abandoned)")) << body;
  EXPECT_TRUE(contains(body, "### Signature on the abandoned line")) << body;
  EXPECT_TRUE(contains(body, "- **breaking**: parameter 'expert_mask' removed (was 'expert_mask=None')"))
      << body;
  EXPECT_FALSE(contains(body, "**Author:**")) << "no commit made it";
  EXPECT_TRUE(contains(body, issue_marker(sample_rewrite()))) << body;
}

TEST(NotificationMessageTest, ARewritesWebhookTextSaysWhatWentBack) {
  const Json payload = webhook_payload(sample_rewrite(), k_github);
  const std::string text = payload["text"];
  EXPECT_TRUE(text.starts_with("*History rewritten (breaking)*: `rocm_aiter_asm_fmoe.moe_sorting_ck`"))
      << text;
  EXPECT_TRUE(contains(text,
                       "abandoned 4 commits (old head aaaaaaaaaaaa, new head "
                       "https://github.com/ROCm/aiter/commit/" +
                           std::string(40, 'b') + ")"))
      << text;
  EXPECT_EQ(payload["type"], "history_rewritten");
  EXPECT_EQ(payload["merge_base"], std::string(40, 'c'));
}

}  // namespace aaw
