// What the emulator answers: GitHub's endpoints over the in-memory repositories, the quota and
// its x-ratelimit-* headers, webhooks, and the answers of injected faults. Bodies and headers
// follow GitHub's REST API closely enough for a client to be tested against them (field names,
// status codes, the Link header, error messages with "message" and "errors").
#include <algorithm>
#include <nlohmann/json.hpp>

#include "support/github_emulator.hpp"
#include "support/text.hpp"

namespace aaw::test {
namespace {

using nlohmann::json;

constexpr const char* k_secondary_message =
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.";
constexpr const char* k_primary_message = "API rate limit exceeded for 127.0.0.1.";

std::map<std::string, std::string> query_of(const std::string& target) {
  std::map<std::string, std::string> query;
  const auto question = target.find('?');
  if (question == std::string::npos) return query;
  for (const auto& pair : split(std::string_view(target).substr(question + 1), '&')) {
    const auto equals = pair.find('=');
    query[pair.substr(0, equals)] = equals == std::string::npos ? "" : pair.substr(equals + 1);
  }
  return query;
}

int query_int(const std::map<std::string, std::string>& query, const std::string& key, int fallback) {
  const auto it = query.find(key);
  if (it == query.end()) return fallback;
  try {
    return std::stoi(it->second);
  } catch (const std::exception&) {
    return fallback;
  }
}

std::string message(const std::string& text) {
  return json{{"message", text}, {"documentation_url", "https://docs.github.com/rest"}}.dump();
}

}  // namespace

GithubEmulator::Reply GithubEmulator::json_reply(int status, std::string body) {
  Reply reply;
  reply.status = status;
  reply.body = std::move(body);
  reply.headers.emplace_back("Content-Type", "application/json; charset=utf-8");
  return reply;
}

GithubEmulator::Reply GithubEmulator::fault_reply(const Fault& fault) const {
  Reply reply;
  switch (fault.kind) {
    case Fault::Kind::status:
      reply = json_reply(fault.status, message("Server Error"));
      break;
    case Fault::Kind::primary_rate_limit: {
      reply = json_reply(fault.status, message(k_primary_message));
      const std::lock_guard lock(m_mutex);
      reply.headers.emplace_back("x-ratelimit-limit", std::to_string(m_limit));
      reply.headers.emplace_back("x-ratelimit-remaining", "0");
      reply.headers.emplace_back("x-ratelimit-used", std::to_string(m_limit));
      reply.headers.emplace_back("x-ratelimit-reset", std::to_string(fault.reset_epoch));
      reply.headers.emplace_back("x-ratelimit-resource", "core");
      break;
    }
    case Fault::Kind::retry_after:
      reply = json_reply(fault.status, message(k_secondary_message));
      reply.headers.emplace_back("retry-after", std::to_string(fault.retry_after_seconds));
      break;
    case Fault::Kind::secondary_rate_limit:
      reply = json_reply(fault.status, message(k_secondary_message));
      break;
    case Fault::Kind::redirect:
      reply = json_reply(fault.status, message("Moved Permanently"));
      reply.headers.emplace_back("Location", fault.location);
      break;
    case Fault::Kind::delay:
    case Fault::Kind::drop:
      break;
  }
  return reply;
}

GithubEmulator::Reply GithubEmulator::respond(const RecordedRequest& request) {
  const auto path = request.path();
  if (path.rfind("/hooks/", 0) == 0) return hook(path.substr(7), request);
  const std::lock_guard lock(m_mutex);
  if (!m_token.empty() && request.header("authorization") != "Bearer " + m_token) {
    Reply reply = json_reply(401, message(request.header("authorization").empty() ? "Requires authentication"
                                                                                  : "Bad credentials"));
    reply.counted = false;
    return reply;
  }
  Reply reply = route(request);
  if (reply.status == 304) reply.counted = false;  // GitHub: a 304 costs no rate limit
  if (reply.counted && m_used >= m_limit) {
    reply = json_reply(403, message(k_primary_message));
    reply.counted = false;
  } else if (reply.counted) {
    ++m_used;
  }
  rate_headers(reply);
  return reply;
}

void GithubEmulator::rate_headers(Reply& reply) const {
  reply.headers.emplace_back("x-ratelimit-limit", std::to_string(m_limit));
  reply.headers.emplace_back("x-ratelimit-remaining", std::to_string(std::max(0, m_limit - m_used)));
  reply.headers.emplace_back("x-ratelimit-used", std::to_string(m_used));
  reply.headers.emplace_back("x-ratelimit-reset", std::to_string(m_reset));
  reply.headers.emplace_back("x-ratelimit-resource", "core");
}

// Under m_mutex. A request that would change something is refused before it does when the quota
// is used up; only reads are routed first (to tell a 304 from a counted answer).
GithubEmulator::Reply GithubEmulator::route(const RecordedRequest& request) {
  const auto parts = split(request.path(), '/');  // "", "repos", owner, name, ...
  if (parts.size() < 5 || parts[1] != "repos") return json_reply(404, message("Not Found"));
  const std::string full_name = parts[2] + "/" + parts[3];
  const auto found = m_repos.find(full_name);
  if (found == m_repos.end()) return json_reply(404, message("Not Found"));
  Repo& repo = found->second;
  const std::string& resource = parts[4];
  if (resource == "commits" && parts.size() >= 6 && request.method == "GET") {
    if (parts.size() == 7 && parts[6] == "pulls") return pulls(repo, full_name, parts[5]);
    std::string ref = parts[5];
    for (std::size_t i = 6; i < parts.size(); ++i) ref += "/" + parts[i];  // "release/v1"
    return commit(repo, full_name, ref, request);
  }
  if (resource == "issues" && parts.size() == 5) {
    if (request.method == "GET") return list_issues(repo, full_name, request);
    if (request.method == "POST") {
      if (m_used >= m_limit) return json_reply(403, message(k_primary_message));
      return create_issue(repo, full_name, request);
    }
    return json_reply(405, message("Method Not Allowed"));
  }
  return json_reply(404, message("Not Found"));
}

GithubEmulator::Reply GithubEmulator::commit(Repo& repo, const std::string& full_name, const std::string& ref,
                                             const RecordedRequest& request) {
  std::string sha;
  if (const auto branch = repo.branches.find(ref); branch != repo.branches.end()) {
    sha = branch->second;
  } else if (repo.pulls.count(ref) != 0) {
    sha = ref;
  } else {
    return json_reply(422, message("No commit found for SHA: " + ref));
  }
  const bool plain = request.header("accept").find("application/vnd.github.sha") != std::string::npos;
  const std::string etag = "W/\"" + sha + (plain ? "-sha" : "-json") + "\"";
  const std::string if_none_match = request.header("if-none-match");
  if (!if_none_match.empty() && (if_none_match == "*" || if_none_match.find(etag) != std::string::npos)) {
    Reply reply;
    reply.status = 304;
    reply.headers.emplace_back("ETag", etag);
    return reply;
  }
  Reply reply;
  if (plain) {
    reply.body = sha;
    reply.headers.emplace_back("Content-Type", "application/vnd.github.sha; charset=utf-8");
  } else {
    reply = json_reply(200, json{{"sha", sha},
                                 {"html_url", "https://github.com/" + full_name + "/commit/" + sha},
                                 {"commit", {{"message", "commit " + sha.substr(0, 7)}}},
                                 {"files", json::array()}}
                                .dump());
  }
  reply.headers.emplace_back("ETag", etag);
  return reply;
}

GithubEmulator::Reply GithubEmulator::pulls(Repo& repo, const std::string& full_name,
                                            const std::string& sha) const {
  const auto found = repo.pulls.find(sha);
  if (found == repo.pulls.end()) return json_reply(422, message("No commit found for SHA: " + sha));
  json list = json::array();
  for (const auto& pull : found->second) {
    list.push_back({{"number", pull.number},
                    {"title", pull.title},
                    {"html_url", "https://github.com/" + full_name + "/pull/" + std::to_string(pull.number)},
                    {"state", pull.merged ? "closed" : "open"},
                    {"merged_at", pull.merged ? json("2025-04-26T17:41:54Z") : json(nullptr)}});
  }
  return json_reply(200, list.dump());
}

GithubEmulator::Reply GithubEmulator::list_issues(Repo& repo, const std::string& full_name,
                                                  const RecordedRequest& request) const {
  const auto query = query_of(request.target);
  const std::string state = query.count("state") != 0 ? query.at("state") : "open";
  const bool ascending = query.count("direction") != 0 && query.at("direction") == "asc";
  const int per_page = std::clamp(query_int(query, "per_page", 30), 1, 100);
  const int page = std::max(1, query_int(query, "page", 1));
  std::vector<const EmulatedIssue*> selected;
  for (const auto& issue : repo.issues) {
    if (state == "all" || (state == "open") == issue.open) selected.push_back(&issue);
  }
  if (!ascending) std::reverse(selected.begin(), selected.end());  // sort=created: numbers grow with time
  const std::size_t first = static_cast<std::size_t>(page - 1) * static_cast<std::size_t>(per_page);
  json list = json::array();
  for (std::size_t i = first; i < selected.size() && i < first + static_cast<std::size_t>(per_page); ++i) {
    const EmulatedIssue& issue = *selected[i];
    const std::string kind = issue.pull_request ? "/pull/" : "/issues/";
    json item = {{"number", issue.number},
                 {"title", issue.title},
                 {"body", issue.body.empty() ? json(nullptr) : json(issue.body)},
                 {"state", issue.open ? "open" : "closed"},
                 {"html_url", "https://github.com/" + full_name + kind + std::to_string(issue.number)},
                 {"labels", json::array()}};
    for (const auto& label : issue.labels) item["labels"].push_back({{"name", label}});
    if (issue.pull_request)
      item["pull_request"] = {
          {"url", "https://api.github.com/repos/" + full_name + "/pulls/" + std::to_string(issue.number)}};
    list.push_back(std::move(item));
  }
  Reply reply = json_reply(200, list.dump());
  const int pages = std::max<int>(1, static_cast<int>((selected.size() + per_page - 1) / per_page));
  std::string base = url() + request.path() + "?state=" + state + "&per_page=" + std::to_string(per_page) +
                     "&direction=" + (ascending ? "asc" : "desc") + "&page=";
  std::vector<std::string> links;
  if (page < pages) links.push_back("<" + base + std::to_string(page + 1) + ">; rel=\"next\"");
  links.push_back("<" + base + std::to_string(pages) + ">; rel=\"last\"");
  std::string link;
  for (const auto& part : links) link += (link.empty() ? "" : ", ") + part;
  reply.headers.emplace_back("Link", link);
  return reply;
}

GithubEmulator::Reply GithubEmulator::create_issue(Repo& repo, const std::string& full_name,
                                                   const RecordedRequest& request) {
  const json body = json::parse(request.body, nullptr, false);
  if (!body.is_object()) return json_reply(400, message("Problems parsing JSON"));
  if (!body.contains("title") || !body["title"].is_string() || body["title"].get<std::string>().empty()) {
    json answer = json::parse(message("Validation Failed"));
    answer["errors"] = json::array({{{"resource", "Issue"}, {"code", "missing_field"}, {"field", "title"}}});
    return json_reply(422, answer.dump());
  }
  EmulatedIssue issue;
  issue.number = repo.next_number++;
  issue.title = body["title"].get<std::string>();
  issue.body = body.contains("body") && body["body"].is_string() ? body["body"].get<std::string>() : "";
  if (body.contains("labels") && body["labels"].is_array()) {
    for (const auto& label : body["labels"]) {
      if (label.is_string()) issue.labels.push_back(label.get<std::string>());
    }
  }
  repo.issues.push_back(issue);
  const std::string html_url = "https://github.com/" + full_name + "/issues/" + std::to_string(issue.number);
  Reply reply = json_reply(201, json{{"number", issue.number},
                                     {"title", issue.title},
                                     {"body", issue.body},
                                     {"state", "open"},
                                     {"html_url", html_url},
                                     {"labels", issue.labels}}
                                    .dump());
  reply.headers.emplace_back("Location",
                             url() + "/repos/" + full_name + "/issues/" + std::to_string(issue.number));
  return reply;
}

GithubEmulator::Reply GithubEmulator::hook(const std::string& name, const RecordedRequest& request) {
  if (request.method != "POST") return json_reply(405, message("Method Not Allowed"));
  const std::lock_guard lock(m_mutex);
  const auto status = m_hook_status.find(name);
  const int answer = status == m_hook_status.end() ? 200 : status->second;
  if (answer >= 200 && answer < 300) m_hook_bodies[name].push_back(request.body);
  Reply reply;
  reply.status = answer;
  reply.body = answer < 300 ? "ok" : "no";
  reply.counted = false;
  return reply;
}

}  // namespace aaw::test
