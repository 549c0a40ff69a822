// The GithubClient port over an HttpTransport: GitHub's REST API (src/io/http/github_rest_client.cpp).
#pragma once

#include <memory>

#include "core/ports/clock.hpp"
#include "core/ports/github_client.hpp"
#include "core/ports/http_transport.hpp"
#include "core/report/log.hpp"

namespace aaw {

std::unique_ptr<GithubClient> make_github_client(GithubClientOptions options, HttpTransport& transport,
                                                 Clock& clock, Logger& log);

}  // namespace aaw
