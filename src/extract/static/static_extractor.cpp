// Static extraction: the monitored functions go to src/python/aaw_static.py together with
// callbacks that read the commit's tree; its answers come back as Extractions. The resolution
// rules live in the Python helper, next to the `ast` they depend on.
#include "extract/static/static_extractor.hpp"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/ports/summary_prefetch.hpp"
#include "extract/static/python_skeleton.hpp"

namespace aaw {
namespace {

Result<std::string> string_argument(const Json& args, std::string_view callback) {
  if (!args.is_array() || args.size() != 1 || !args[0].is_string()) {
    return Error(ErrorCode::invalid_input, std::string(callback) + "() takes one string");
  }
  return args[0].get<std::string>();
}

// The text of the blob a callback's one argument names.
Result<std::string> blob_text(SourceTree& tree, const Json& args, std::string_view callback) {
  auto blob = string_argument(args, callback);
  if (!blob) {
    return blob.error();
  }
  return tree.read_blob(ObjectId{*blob});
}

// What aaw_tree.Tree takes for a file probe: the blob's id, {"link": id} for a symbolic link's
// blob (which Python would follow: the resolver says it does not), null for nothing.
Json link_or_blob(const std::optional<ObjectId>& blob, bool link) {
  if (!blob) return nullptr;
  return link ? Json{{"link", blob->hex}} : Json(blob->hex);
}

// find_blob's answer as link_or_blob puts it.
Result<Json> probed_file(SourceTree& tree, const std::string& path) {
  auto blob = tree.find_blob(path);
  if (!blob) return blob.error();
  if (!*blob) return Json(nullptr);
  auto link = tree.is_link(path);
  if (!link) return link.error();
  return link_or_blob(*blob, *link);
}

// The tree as aaw_static's `host`. An Error here becomes aaw_host.HostError in Python, and that
// function's state extract_failed. A symbolic link is {"link": blob} to find_blob and to
// is_directory (a link to a directory is no directory of the tree).
HostCallbacks tree_callbacks(SourceTree& tree, SummaryPrefetch* prefetch = nullptr) {
  HostCallbacks callbacks;
  callbacks["find_blob"] = [&tree](const Json& args) -> Result<Json> {
    auto path = string_argument(args, "find_blob");
    if (!path) {
      return path.error();
    }
    return probed_file(tree, *path);
  };
  callbacks["is_directory"] = [&tree](const Json& args) -> Result<Json> {
    auto path = string_argument(args, "is_directory");
    if (!path) {
      return path.error();
    }
    auto directory = tree.is_directory(*path);
    if (!directory) {
      return directory.error();
    }
    if (*directory) return Json(true);
    auto file = probed_file(tree, *path);
    if (!file) return file.error();
    return file->is_object() ? *file : Json(false);
  };
  callbacks["read_blob"] = [&tree](const Json& args) -> Result<Json> {
    auto text = blob_text(tree, args, "read_blob");
    if (!text) {
      return text.error();
    }
    // Raw bytes: the interpreter decodes them with surrogateescape, so nothing is lost.
    return Json(std::move(*text));
  };
  callbacks["read_skeleton"] = [&tree, prefetch](const Json& args) -> Result<Json> {
    // A summary parsed ahead in the other process, when one arrived: aaw_summary adopts it.
    if (prefetch != nullptr && !args.empty() && args[0].is_string()) {
      if (auto made = prefetch->take(ObjectId{args[0].get<std::string>()}))
        return Json{
            {"pickled", Json::binary(std::vector<std::uint8_t>(made->pickled.begin(), made->pickled.end()))},
            {"characters", made->characters}};
    }
    auto text = blob_text(tree, args, "read_skeleton");
    if (!text) {
      return text.error();
    }
    return skeleton_json(*text);
  };
  return callbacks;
}

Error malformed(const std::string& what) {
  return Error(ErrorCode::internal, "aaw_static.resolve_all returned " + what);
}

// A consulted entry, its strings moved out of `json` (the answer is read once).
Result<PathProbe> probe_from_json(Json& json) {
  const auto not_a_probe = [] {
    return malformed("a consulted entry that is not {\"path\": str, \"blob\": str|null}");
  };
  if (!json.is_object()) return not_a_probe();
  auto path = json.find("path");
  auto blob = json.find("blob");
  if (path == json.end() || !path->is_string() || blob == json.end() ||
      !(blob->is_string() || blob->is_null()))
    return not_a_probe();
  PathProbe probe{std::move(path->get_ref<std::string&>()), std::nullopt, std::nullopt};
  if (blob->is_string()) probe.blob = ObjectId{std::move(blob->get_ref<std::string&>())};
  if (auto directory = json.find("directory"); directory != json.end() && directory->is_boolean())
    probe.directory = directory->get<bool>();
  if (auto link = json.find("link"); link != json.end() && link->is_boolean()) probe.link = link->get<bool>();
  if (auto digest = json.find("digest"); digest != json.end() && digest->is_string()) {
    probe.digest = std::move(digest->get_ref<std::string&>());
    if (auto names = json.find("names"); names != json.end() && names->is_array()) {
      probe.digest_names.reserve(names->size());
      for (Json& name : *names)
        if (name.is_string()) probe.digest_names.push_back(std::move(name.get_ref<std::string&>()));
    }
  }
  return probe;
}

// A list of consulted entries (the array is checked by the caller).
Result<std::vector<PathProbe>> probes_from_json(Json& consulted) {
  std::vector<PathProbe> probes;
  probes.reserve(consulted.size());
  for (Json& entry : consulted) {
    auto probe = probe_from_json(entry);
    if (!probe) return probe.error();
    probes.push_back(std::move(*probe));
  }
  return probes;
}

Result<Extraction> extraction_from_json(Json& json) {
  if (!json.is_object() || !json.contains("state") || !json.contains("consulted") ||
      !json["consulted"].is_array()) {
    return malformed("an entry that is not {\"state\": ..., \"consulted\": [...]}");
  }
  auto state = state_from_json(json["state"]);
  if (!state) {
    return state.error();
  }
  auto consulted = probes_from_json(json["consulted"]);
  if (!consulted) return consulted.error();
  double seconds = json.value("seconds", 0.0);
  return Extraction{std::move(*state), std::move(*consulted), seconds};
}

Json functions_json(const std::vector<MonitoredFunction>& functions) {
  Json list = Json::array();
  for (const MonitoredFunction& function : functions)
    list.push_back(
        {{"import_statement", function.import_statement}, {"function_path", function.function_path}});
  return list;
}

Result<FunctionLookup> lookup_from_json(const Json& json) {
  static const std::map<std::string, FunctionLookup::Verdict, std::less<>> verdicts = {
      {"found", FunctionLookup::Verdict::found},
      {"not_found", FunctionLookup::Verdict::not_found},
      {"unknown", FunctionLookup::Verdict::unknown}};
  auto verdict = json.is_object() ? verdicts.find(json.value("verdict", "")) : verdicts.end();
  if (verdict == verdicts.end())
    return Error(ErrorCode::internal, "aaw_lookup.lookup_all returned " + json.dump());
  FunctionLookup lookup{verdict->second, json.value("detail", ""), json.value("name", ""), {}};
  for (const Json& name : json.value("names", Json::array()))
    if (name.is_string()) lookup.names.push_back(name.get<std::string>());
  return lookup;
}

}  // namespace

Json StaticExtractor::with_options(Json request) const {
  if (!m_options.source_roots.empty()) request["source_roots"] = m_options.source_roots;
  if (!m_options.module_aliases.empty()) request["module_aliases"] = m_options.module_aliases;
  request["cache_bytes"] = static_cast<std::int64_t>(m_options.cache_mb) << 20;
  return request;
}

Result<std::vector<FunctionLookup>> StaticExtractor::lookup(SourceTree& tree,
                                                            const std::vector<MonitoredFunction>& functions) {
  auto answer =
      m_python.call("aaw_lookup", "lookup_all", with_options({{"functions", functions_json(functions)}}),
                    tree_callbacks(tree, m_prefetch));
  if (!answer) return answer.error().context("looking up the monitored functions");
  if (!answer->is_array() || answer->size() != functions.size())
    return Error(ErrorCode::internal, "aaw_lookup.lookup_all returned no list with one entry per function");
  std::vector<FunctionLookup> out;
  for (const Json& entry : *answer) {
    auto lookup = lookup_from_json(entry);
    if (!lookup) return lookup.error();
    out.push_back(std::move(*lookup));
  }
  return out;
}

Result<std::vector<Extraction>> StaticExtractor::extract(SourceTree& tree,
                                                         const std::vector<MonitoredFunction>& functions,
                                                         const std::vector<PathProbe>& known) {
  Json request = with_options({{"functions", functions_json(functions)},
                               {"known_blobs", Json::object()},
                               {"known_directories", Json::object()}});
  for (const PathProbe& probe : known) {
    if (probe.directory) {
      request["known_directories"][probe.path] = *probe.directory;
    } else {
      request["known_blobs"][probe.path] = link_or_blob(probe.blob, probe.link);
    }
  }
  auto answer = m_python.call("aaw_static", "resolve_all", request, tree_callbacks(tree, m_prefetch));
  if (!answer) {
    return answer.error().context("static extraction");
  }
  if (!answer->is_array() || answer->size() != functions.size()) {
    return malformed("no list with one entry per function").context("static extraction");
  }
  std::vector<Extraction> extractions;
  extractions.reserve(functions.size());
  for (std::size_t i = 0; i < functions.size(); ++i) {
    auto extraction = extraction_from_json((*answer)[i]);
    if (!extraction) {
      return extraction.error().context("static extraction of '" + functions[i].function_path + "'");
    }
    if (m_options.unverified == "unresolved" && extraction->state.is_unverified())
      extraction->state =
          SignatureState::failed(Status::unresolved, "unverified: " + extraction->state.unverified);
    extractions.push_back(std::move(*extraction));
  }
  return extractions;
}

Result<ModuleOutline> ModuleOutline::from_json(const Json& json) {
  ModuleOutline outline;
  if (json.is_object() && json.contains("any") && json["any"].is_string()) {
    outline.m_any = json["any"].get<std::string>();
    return outline;
  }
  if (!json.is_object() || !json.value("unbound", Json()).is_string() ||
      !json.value("bound", Json()).is_array())
    return malformed("an outline that is not {\"unbound\": str, \"bound\": [...]} nor {\"any\": str}");
  outline.m_unbound = json["unbound"].get<std::string>();
  for (const Json& name : json["bound"])
    if (name.is_string()) outline.m_bound.insert(name.get<std::string>());
  return outline;
}

std::string_view bare_name(std::string_view name) {
  constexpr std::string_view identity = "<identity>";
  return name.starts_with(identity) ? name.substr(identity.size()) : name;
}

std::optional<std::string> ModuleOutline::digest(const std::vector<std::string>& names) const {
  if (names.empty()) return std::nullopt;
  for (const std::string& name : names)
    if (bare_name(name).starts_with('<')) return std::nullopt;
  if (m_any) return m_any;
  for (const std::string& name : names)
    if (m_bound.contains(std::string(bare_name(name)))) return std::nullopt;
  return m_unbound;
}

Result<std::vector<ModuleOutline>> StaticExtractor::outlines(SourceTree& tree,
                                                             const std::vector<ObjectId>& blobs) {
  Json request = Json::array();
  for (const ObjectId& blob : blobs) request.push_back(blob.hex);
  auto answer = m_python.call("aaw_static", "module_outlines", with_options({{"blobs", request}}),
                              tree_callbacks(tree, m_prefetch));
  if (!answer) return answer.error().context("outlining changed modules");
  if (!answer->is_array() || answer->size() != blobs.size())
    return malformed("no list with one outline per blob").context("outlining changed modules");
  std::vector<ModuleOutline> out;
  for (const Json& json : *answer) {
    auto outline = ModuleOutline::from_json(json);
    if (!outline) return outline.error().context("outlining changed modules");
    out.push_back(std::move(*outline));
  }
  return out;
}

// Most queries of a changed module ask about names it does not bind (a star import asked whether
// it binds a function defined elsewhere): one outline per blob answers those, and only the others
// are asked one set at a time.
Result<std::vector<std::string>> StaticExtractor::digests(SourceTree& tree,
                                                          const std::vector<DigestQuery>& queries) {
  std::vector<ObjectId> blobs;
  std::unordered_map<std::string, std::size_t> outline_of;  // blob -> its outline
  for (const DigestQuery& q : queries)
    if (outline_of.emplace(q.blob.hex, blobs.size()).second) blobs.push_back(q.blob);
  auto outlines = this->outlines(tree, blobs);
  if (!outlines) return outlines.error();
  std::vector<std::string> out(queries.size());
  std::vector<DigestQuery> asked;
  std::vector<std::size_t> asked_at;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    if (auto known = (*outlines)[outline_of.at(queries[i].blob.hex)].digest(*queries[i].names)) {
      out[i] = std::move(*known);
    } else {
      asked.push_back(queries[i]);
      asked_at.push_back(i);
    }
  }
  if (asked.empty()) return out;
  auto digests = digests_of_sets(tree, asked);
  if (!digests) return digests.error();
  for (std::size_t j = 0; j < asked.size(); ++j) out[asked_at[j]] = std::move((*digests)[j]);
  return out;
}

Result<std::vector<std::string>> StaticExtractor::digests_of_sets(SourceTree& tree,
                                                                  const std::vector<DigestQuery>& queries) {
  // One query per blob, with every set of names asked of it: many functions ask the same file.
  Json request = with_options({{"queries", Json::array()}});
  std::unordered_map<std::string, std::size_t> group_of;   // blob -> its query
  std::vector<std::pair<std::size_t, std::size_t>> place;  // of each query: group, set
  for (const DigestQuery& q : queries) {
    auto [group, added] = group_of.emplace(q.blob.hex, request["queries"].size());
    if (added) request["queries"].push_back({{"blob", q.blob.hex}, {"name_sets", Json::array()}});
    Json& sets = request["queries"][group->second]["name_sets"];
    place.emplace_back(group->second, sets.size());
    sets.push_back(*q.names);
  }
  auto answer = m_python.call("aaw_static", "module_digests", request, tree_callbacks(tree, m_prefetch));
  if (!answer) return answer.error().context("computing module digests");
  if (!answer->is_array() || answer->size() != request["queries"].size())
    return malformed("no list with one answer per blob").context("computing module digests");
  std::vector<std::string> out;
  out.reserve(queries.size());
  for (const auto& [group, set] : place) {
    const Json& digests = (*answer)[group];
    if (!digests.is_array() || digests.size() != request["queries"][group]["name_sets"].size())
      return malformed("no list with one digest per set of names").context("computing module digests");
    out.push_back(digests[set].is_string() ? digests[set].get<std::string>() : "");
  }
  return out;
}

Result<std::vector<StaticExtractor::StarAnswers>> StaticExtractor::star_additions(
    SourceTree& tree, const std::vector<StarCheck>& checks) {
  Json request = with_options({{"checks", Json::array()}});
  for (const StarCheck& check : checks) {
    Json asks = Json::array();
    for (const std::vector<std::string>* names : check.asks) asks.push_back(*names);
    request["checks"].push_back({{"path", check.path},
                                 {"before", check.before.hex},
                                 {"after", check.after.hex},
                                 {"asks", std::move(asks)}});
  }
  auto answer = m_python.call("aaw_static", "star_additions", request, tree_callbacks(tree, m_prefetch));
  if (!answer) return answer.error().context("checking added star imports");
  if (!answer->is_array() || answer->size() != checks.size())
    return malformed("no list with one answer per module").context("checking added star imports");
  std::vector<StarAnswers> out;
  for (std::size_t c = 0; c < checks.size(); ++c) {
    Json& answers = (*answer)[c];
    if (!answers.is_array() || answers.size() != checks[c].asks.size())
      return malformed("no list with one answer per ask").context("checking added star imports");
    StarAnswers& kept = out.emplace_back();
    for (Json& consulted : answers) {
      if (!consulted.is_array()) {
        kept.emplace_back();
        continue;
      }
      auto probes = probes_from_json(consulted);
      if (!probes) return probes.error().context("checking added star imports");
      kept.emplace_back(std::move(*probes));
    }
  }
  return out;
}

Result<ParseStats> StaticExtractor::parse_stats() {
  auto answer = m_python.call("aaw_static", "stats", Json::object(), {});
  if (!answer) return answer.error().context("reading the parser's counters");
  if (!answer->is_object())
    return malformed("no object of counters").context("reading the parser's counters");
  return ParseStats{
      answer->value("parses", std::int64_t{0}), answer->value("distinct_blobs", std::int64_t{0}),
      answer->value("skeletons", std::int64_t{0}), answer->value("bodies_parsed", std::int64_t{0})};
}

Result<std::optional<PickledSummary>> StaticExtractor::pickled_summary(SourceTree& tree,
                                                                       const ObjectId& blob) {
  auto made = m_python.call("aaw_static", "pickled_summary", with_options({{"blob", blob.hex}}),
                            tree_callbacks(tree));
  if (!made) return made.error().context("parsing ahead");
  if (!made->is_object()) return malformed("no summary object").context("parsing ahead");
  if (!made->contains("pickled") || !(*made)["pickled"].is_binary())
    return std::optional<PickledSummary>();  // unreadable: the daemon parses that one itself
  const auto& bytes = (*made)["pickled"].get_binary();
  return std::optional<PickledSummary>(
      PickledSummary{std::string(bytes.begin(), bytes.end()), made->value("characters", std::int64_t{0})});
}

Result<std::vector<std::optional<SourceLocation>>> StaticExtractor::locate(
    SourceTree& tree, const std::vector<MonitoredFunction>& functions) {
  Json request = with_options({{"functions", functions_json(functions)}});
  auto answer = m_python.call("aaw_static", "locate_all", request, tree_callbacks(tree, m_prefetch));
  if (!answer) return answer.error().context("locating definitions");
  if (!answer->is_array() || answer->size() != functions.size())
    return malformed("no list with one location per function").context("locating definitions");
  std::vector<std::optional<SourceLocation>> out;
  for (const Json& at : *answer) {
    if (at.is_object() && at.value("file", Json()).is_string() &&
        at.value("line", Json()).is_number_integer())
      out.push_back(SourceLocation{at["file"].get<std::string>(), at["line"].get<int>()});
    else
      out.emplace_back();
  }
  return out;
}

Result<OpRegistrations> StaticExtractor::registered_ops(SourceTree& tree, const std::string& package,
                                                        const std::vector<std::string>& modules,
                                                        const std::vector<std::string>& ops) {
  Json request = with_options({{"package", package}, {"modules", modules}, {"ops", ops}});
  auto answer = m_python.call("aaw_ops", "find_ops", request, tree_callbacks(tree, m_prefetch));
  if (!answer) return answer.error().context("finding torch op registrations");
  if (!answer->is_object() || !answer->value("ops", Json()).is_object())
    return malformed("no {\"ops\": {...}}").context("finding torch op registrations");
  OpRegistrations out;
  out.modules_searched = answer->value("searched", std::size_t{0});
  if (answer->value("unknown", Json()).is_string()) out.unknown = (*answer)["unknown"].get<std::string>();
  for (const auto& [op, found] : (*answer)["ops"].items()) {
    if (!found.is_object()) {
      out.ops[op] = std::nullopt;
      continue;
    }
    out.ops[op] = RegisteredOp{{found.value("import_statement", ""), found.value("function_path", "")},
                               found.value("target", ""),
                               found.value("how", ""),
                               found.value("prepends_tensor", false)};
  }
  return out;
}

}  // namespace aaw
