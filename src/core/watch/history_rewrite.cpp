#include "core/watch/history_rewrite.hpp"

#include <algorithm>

namespace aaw {
namespace {

const SignatureState* state_of(const std::vector<FunctionState>& states, const MonitoredFunction& function) {
  auto found = std::find_if(states.begin(), states.end(),
                            [&](const FunctionState& s) { return s.function == function; });
  return found == states.end() ? nullptr : &found->state;
}

Json function_entry(const RewoundFunction& f) {
  Json changes = Json::array();
  for (const Change& change : f.changes) changes.push_back(to_json(change));
  return {{"import_statement", f.function.import_statement},
          {"function_path", f.function.function_path},
          {"old", to_json(f.at_old_head)},
          {"new", to_json(f.at_merge_base)},
          {"changes", std::move(changes)},
          {"severity", std::string(to_string(*highest(f.changes)))}};
}

Json rewrite_fields(const HistoryRewrite& rewrite) {
  return {{"type", "history_rewritten"},
          {"old_head", rewrite.old_head.hex},
          {"new_head", rewrite.new_head.hex},
          {"merge_base", rewrite.merge_base.hex},
          {"abandoned_commits", rewrite.abandoned}};
}

}  // namespace

Result<std::vector<RewoundFunction>> rewound_functions(StateStore& store, const HistoryRewrite& rewrite,
                                                       const std::vector<MonitoredFunction>& functions) {
  auto before = store.baseline(rewrite.old_head);
  if (!before) return before.error().context("loading the states at " + rewrite.old_head.hex);
  auto after = store.baseline(rewrite.merge_base);
  if (!after) return after.error().context("loading the states at " + rewrite.merge_base.hex);
  std::vector<RewoundFunction> rewound;
  for (const MonitoredFunction& function : functions) {
    const SignatureState* old_state = state_of(*before, function);
    const SignatureState* base_state = state_of(*after, function);
    if (!old_state || !base_state) continue;
    auto changes = diff_states(*old_state, *base_state);
    if (!changes.empty()) rewound.push_back({function, *old_state, *base_state, std::move(changes)});
  }
  return rewound;
}

Json rewrite_event(const HistoryRewrite& rewrite, const std::vector<RewoundFunction>& functions) {
  Json list = Json::array();
  for (const RewoundFunction& f : functions) list.push_back(function_entry(f));
  Json line = Json::array();
  for (const ObjectId& commit : rewrite.abandoned_line) line.push_back(commit.hex);
  Json event = rewrite_fields(rewrite);
  event["abandoned"] = std::move(line);
  event["functions"] = std::move(list);
  return event;
}

Json rewrite_notice(const HistoryRewrite& rewrite, const RewoundFunction& function) {
  Json notice = rewrite_fields(rewrite);
  notice.update(function_entry(function));
  return notice;
}

}  // namespace aaw
