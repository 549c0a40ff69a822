#include "util/result.hpp"

namespace aaw {

std::string_view to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::invalid_input:
      return "invalid input";
    case ErrorCode::not_found:
      return "not found";
    case ErrorCode::ambiguous:
      return "ambiguous";
    case ErrorCode::io:
      return "i/o error";
    case ErrorCode::git:
      return "git error";
    case ErrorCode::network:
      return "network error";
    case ErrorCode::python:
      return "python error";
    case ErrorCode::timeout:
      return "timeout";
    case ErrorCode::internal:
      return "internal error";
    case ErrorCode::cancelled:
      return "cancelled";
  }
  return "error";
}

Error Error::context(std::string_view what) const {
  return Error(m_code, std::string(what) + ": " + m_message);
}

}  // namespace aaw
