#include "core/ports/signature_source.hpp"

namespace aaw {

Result<std::vector<StateUpdate>> SignatureSource::advance(const ObjectId& /*from*/, const ObjectId& commit,
                                                          const std::vector<MonitoredFunction>& functions,
                                                          const std::vector<SignatureState>& states) {
  auto now = extract(commit, functions);
  if (!now) return now.error();
  return state_updates(states, std::move(*now));
}

std::vector<StateUpdate> state_updates(const std::vector<SignatureState>& before,
                                       std::vector<SignatureState> after) {
  std::vector<StateUpdate> updates;
  for (std::size_t i = 0; i < after.size(); ++i)
    if (i >= before.size() || !(before[i] == after[i])) updates.push_back({i, std::move(after[i])});
  return updates;
}

}  // namespace aaw
