#include "core/ports/state_store.hpp"

namespace aaw {

std::string_view to_string(CommitOutcome outcome) {
  switch (outcome) {
    case CommitOutcome::processed:
      return "processed";
    case CommitOutcome::failed:
      return "failed";
  }
  return "processed";
}

std::string_view to_string(OutboxState state) {
  switch (state) {
    case OutboxState::pending:
      return "pending";
    case OutboxState::delivered:
      return "delivered";
    case OutboxState::failed:
      return "failed";
  }
  return "pending";
}

std::string event_identity(const Json& event) {
  if (event.contains("commit")) {
    auto field = [&](const char* name) { return event.contains(name) ? event[name] : Json(nullptr); };
    return compact(
        Json::array({field("type"), event["commit"], field("import_statement"), field("function_path")}));
  }
  Json identity = event;
  identity.erase("time");
  return compact(identity);
}

bool is_history_rewrite(const Json& json) {
  return json.is_object() && json.value("type", std::string()) == "history_rewritten";
}

Result<MonitoredFunction> function_of_change(const Json& change, const ObjectId& commit) {
  auto text = [&](const char* name) -> const Json* {
    auto found = change.find(name);
    return found != change.end() && found->is_string() ? &*found : nullptr;
  };
  // A force-push's notice of a function it took back is queued with the commit recorded next, and
  // names none (history_rewrite.hpp).
  const bool rewrite = is_history_rewrite(change);
  if (!change.is_object() || (!rewrite && !text("commit")) || !text("import_statement") ||
      !text("function_path")) {
    return Error(
        ErrorCode::invalid_input,
        "a FUNCTION_CHANGE needs the string fields 'commit', 'import_statement' and 'function_path'");
  }
  if (!rewrite && text("commit")->get<std::string>() != commit.hex) {
    return Error(ErrorCode::invalid_input, "FUNCTION_CHANGE of commit '" +
                                               text("commit")->get<std::string>() +
                                               "' recorded with another commit");
  }
  return MonitoredFunction{text("import_statement")->get<std::string>(),
                           text("function_path")->get<std::string>()};
}

}  // namespace aaw
