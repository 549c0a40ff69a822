// How a helper process of the daemon (the git helper, the checkout child) reports its outcome: one
// JSON object, {"ok": true, ...} or {"ok": false, "code": N, "message": "..."}, where N is the
// ErrorCode (the helper is this same binary). Internal to src/io/git/.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "util/result.hpp"

namespace aaw::detail {

inline nlohmann::json error_report(const Error& error) {
  return {{"ok", false}, {"code", static_cast<int>(error.code())}, {"message", error.message()}};
}

// The error a report carries; nullopt when it says ok. io when the report is not one.
inline std::optional<Error> error_in_report(const nlohmann::json& report, const std::string& who) {
  if (!report.is_object() || !report.contains("ok"))
    return Error(ErrorCode::io, who + " wrote an unreadable result");
  if (report.value("ok", false)) return std::nullopt;
  const int code = report.value("code", static_cast<int>(ErrorCode::io));
  const bool known = code >= 0 && code <= static_cast<int>(ErrorCode::cancelled);
  return Error(known ? static_cast<ErrorCode>(code) : ErrorCode::io,
               report.value("message", who + " failed"));
}

}  // namespace aaw::detail
