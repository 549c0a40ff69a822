#include "extract/consumer/python_call_binder.hpp"

namespace aaw {
namespace {

Json optional_text(const std::optional<std::string>& text) { return text ? Json(*text) : Json(nullptr); }

Json shape_json(const CallSite& site) {
  return {{"positional", site.positional},
          {"keywords", site.keywords},
          {"star_args", site.star_args},
          {"star_kwargs", site.star_kwargs},
          {"guards", site.guards},
          {"indirect", optional_text(site.indirect)},
          {"ambiguous", optional_text(site.ambiguous)},
          {"import_statement", site.import_statement},
          {"import_line", site.import_line ? Json(*site.import_line) : Json(nullptr)},
          {"import_module_level", site.import_module_level}};
}

}  // namespace

Result<std::vector<Binding>> PythonCallBinder::bind(const std::vector<Request>& requests) {
  Json calls = Json::array();
  for (const Request& r : requests)
    calls.push_back({{"state", to_json(*r.state)}, {"shape", shape_json(*r.site)}});
  auto answer = m_python.call("aaw_binder", "bind_all", {{"calls", calls}}, {});
  if (!answer) return answer.error().context("binding call sites");
  if (!answer->is_array() || answer->size() != requests.size())
    return Error(ErrorCode::internal, "the binder returned " + answer->dump().substr(0, 200));
  std::vector<Binding> out;
  for (const Json& item : *answer) {
    auto verdict = verdict_named(item.value("verdict", ""));
    if (!verdict) return Error(ErrorCode::internal, "the binder returned an " + verdict.error().message());
    out.push_back({*verdict, item.value("reason", ""), item.value("cause", "")});
  }
  return out;
}

}  // namespace aaw
