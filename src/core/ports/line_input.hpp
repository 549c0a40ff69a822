// Lines read one at a time, where the reader may ask whether one is there without waiting: the
// process that parses ahead takes the main process's claims on blobs between two parses
// (summary_worker.hpp), while the commits it was given wait their turn.
#pragma once

#include <istream>
#include <optional>
#include <string>

namespace aaw {

class LineInput {
 public:
  virtual ~LineInput() = default;
  // The next line, without its '\n'. With `wait`, waits for it, and nullopt means the input ended;
  // without, nullopt also means no whole line has arrived yet.
  virtual std::optional<std::string> next(bool wait) = 0;
};

// Lines of a stream that never makes a reader wait (a string, a file): every line is there.
class StreamLineInput final : public LineInput {
 public:
  explicit StreamLineInput(std::istream& in) : m_in(in) {}
  std::optional<std::string> next(bool /*wait*/) override {
    std::string line;
    if (!std::getline(m_in, line)) return std::nullopt;
    return line;
  }

 private:
  std::istream& m_in;
};

}  // namespace aaw
