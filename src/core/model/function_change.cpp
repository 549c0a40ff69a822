#include "core/model/function_change.hpp"

#include <nlohmann/json.hpp>

namespace aaw {

std::string author_of(const CommitInfo& commit) {
  if (commit.author_email.empty()) return commit.author_name;
  return commit.author_name + " <" + commit.author_email + ">";
}

Json to_json(const FunctionChange& c) {
  Json changes = Json::array();
  for (const Change& change : c.changes) changes.push_back(to_json(change));
  auto severity = highest(c.changes);
  Json json = {{"commit", c.commit.id.hex},
               {"commit_date", iso8601(c.commit.author_time, c.commit.author_offset_minutes)},
               {"author", author_of(c.commit)},
               {"subject", c.commit.subject},
               {"pull_request", c.pull_request ? Json(*c.pull_request) : Json(nullptr)},
               {"import_statement", c.function.import_statement},
               {"function_path", c.function.function_path},
               {"old", to_json(c.before)},
               {"new", to_json(c.after)},
               {"changes", changes},
               {"severity", severity ? Json(to_string(*severity)) : Json(nullptr)}};
  if (c.impact) json["consumer_impact"] = to_json(*c.impact);
  return json;
}

}  // namespace aaw
