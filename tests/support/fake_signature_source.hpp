// A SignatureSource that answers from a table (states per commit, or an Error) and records the
// commits it was asked for.
#pragma once

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

  Result<std::vector<SignatureState>> extract(const ObjectId& commit,
                                              const std::vector<MonitoredFunction>& functions) override {
    m_asked.push_back(commit.hex);
    if (auto e = m_errors.find(commit.hex); e != m_errors.end()) return e->second;
    if (auto s = m_states.find(commit.hex); s != m_states.end()) return s->second;
    return std::vector<SignatureState>(functions.size(),
                                       SignatureState::failed(Status::missing, "not in the table"));
  }

  const std::vector<std::string>& asked() const { return m_asked; }

 private:
  std::map<std::string, std::vector<SignatureState>> m_states;
  std::map<std::string, Error> m_errors;
  std::vector<std::string> m_asked;
};

}  // namespace aaw::test
