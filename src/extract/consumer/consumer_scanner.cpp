#include "extract/consumer/consumer_scanner.hpp"

#include <system_error>

namespace aaw {
namespace {

Json shape_json(const CallSite& site) {
  return {
      {"positional", site.positional}, {"keywords", site.keywords},
      {"star_args", site.star_args},   {"star_kwargs", site.star_kwargs},
      {"guards", site.guards},         {"indirect", site.indirect ? Json(*site.indirect) : Json(nullptr)}};
}

}  // namespace

Result<ConsumerScan> scan_consumer(PythonHost& python, const std::filesystem::path& root,
                                   const std::string& package) {
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec))
    return Error(ErrorCode::invalid_input,
                 "consumer path '" + root.string() +
                     "': " + (std::filesystem::exists(root, ec) ? "not a directory" : "no such directory"));
  auto answer = python.call("aaw_consumer", "discover", {{"path", root.string()}, {"package", package}}, {});
  if (!answer) return answer.error().context("scanning consumer '" + root.string() + "'");
  return consumer_scan_from_json(*answer);
}

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
    out.push_back({*verdict, item.value("reason", "")});
  }
  return out;
}

}  // namespace aaw
