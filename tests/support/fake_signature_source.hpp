// A SignatureSource that answers from a table (states per commit, or an Error) and records the
// commits it was asked for.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/ports/signature_source.hpp"

namespace aaw::test {

class FakeSignatureSource final : public SignatureSource {
 public:
  void set(const std::string& commit, std::vector<SignatureState> states) {
    m_states[commit] = std::move(states);
  }
  void fail(const std::string& commit, Error error) { m_errors.insert_or_assign(commit, std::move(error)); }
  // The functions the table's rows are for, in order: extract() then answers for any subset of
  // them (a back-fill asks for the new functions alone). Unset: a row is the answer as it is.
  void know(std::vector<MonitoredFunction> functions) { m_functions = std::move(functions); }

  Result<std::vector<SignatureState>> extract(const ObjectId& commit,
                                              const std::vector<MonitoredFunction>& functions) override {
    m_asked.push_back(commit.hex);
    if (auto e = m_errors.find(commit.hex); e != m_errors.end()) return e->second;
    if (auto s = m_states.find(commit.hex); s != m_states.end()) return row_for(s->second, functions);
    return std::vector<SignatureState>(functions.size(),
                                       SignatureState::failed(Status::missing, "not in the table"));
  }

  const std::vector<std::string>& asked() const { return m_asked; }

 private:
  std::vector<SignatureState> row_for(const std::vector<SignatureState>& row,
                                      const std::vector<MonitoredFunction>& functions) const {
    if (m_functions.empty()) return row;
    std::vector<SignatureState> out;
    for (const MonitoredFunction& f : functions) {
      auto at = std::find(m_functions.begin(), m_functions.end(), f);
      out.push_back(at == m_functions.end() ? SignatureState::failed(Status::missing, "not in the table")
                                            : row[static_cast<std::size_t>(at - m_functions.begin())]);
    }
    return out;
  }

  std::vector<MonitoredFunction> m_functions;
  std::map<std::string, std::vector<SignatureState>> m_states;
  std::map<std::string, Error> m_errors;
  std::vector<std::string> m_asked;
};

}  // namespace aaw::test
