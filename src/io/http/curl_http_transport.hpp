// The HttpTransport port on libcurl (src/io/http/curl_http_transport.cpp).
#pragma once

#include <memory>

#include "core/ports/http_transport.hpp"

namespace aaw {

// curl_global_init runs once, on the first call (std::call_once).
std::unique_ptr<HttpTransport> make_curl_transport();

}  // namespace aaw
