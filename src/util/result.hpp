// Result<T>: a value or an Error, for anything that can fail for reasons outside our control
// (I/O, network, git, Python, parsing). Modelled on tl::expected / std::expected (C++23), which
// Debian 12's toolchain does not offer in C++20; keep to that subset so the move is mechanical.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace aaw {

enum class ErrorCode {
  invalid_input,  // the user gave us something malformed (config, commit id, CLI argument)
  not_found,      // a commit, ref, file or object does not exist
  ambiguous,      // a short id or name matches more than one thing
  io,             // filesystem
  git,            // libgit2 failures other than the above
  network,        // remote unreachable, authentication, transport
  python,         // the embedded interpreter raised
  timeout,
  internal,   // a bug: broken invariants reported instead of crashing
  cancelled,  // stopped on request (SIGTERM) before finishing: nothing is recorded, redone on restart
};

std::string_view to_string(ErrorCode code);

class Error {
 public:
  Error(ErrorCode code, std::string message) : m_code(code), m_message(std::move(message)) {}

  ErrorCode code() const { return m_code; }
  const std::string& message() const { return m_message; }

  // The same error with "what: " in front, as it travels up: "resolving 'abc': not found".
  Error context(std::string_view what) const;

 private:
  ErrorCode m_code;
  std::string m_message;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : m_v(std::in_place_index<0>, std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : m_v(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool has_value() const { return m_v.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { return std::get<0>(m_v); }
  const T& value() const& { return std::get<0>(m_v); }
  T&& value() && { return std::get<0>(std::move(m_v)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(m_v); }

 private:
  std::variant<T, Error> m_v;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : m_error(std::move(error)), m_failed(true) {}  // NOLINT

  bool has_value() const { return !m_failed; }
  explicit operator bool() const { return has_value(); }
  const Error& error() const { return m_error; }

 private:
  Error m_error{ErrorCode::internal, ""};
  bool m_failed = false;
};

}  // namespace aaw
