// The GithubClient port over an HttpTransport: GitHub's REST API (src/io/github_rest_client.cpp).
#pragma once

#include <memory>

#include "aaw/core/clock.hpp"
#include "aaw/core/github_client.hpp"
#include "aaw/core/http_transport.hpp"
#include "aaw/core/log.hpp"

namespace aaw {

std::unique_ptr<GithubClient> make_github_client(GithubClientOptions options, HttpTransport& transport,
                                                 Clock& clock, Logger& log);

}  // namespace aaw
