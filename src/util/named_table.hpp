// An ordered table of entries found by their `name`: what the extension registries (sources,
// notification channels) are built on. Adding an entry of a name already there replaces it.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace aaw {

template <class Entry>
class NamedTable {
 public:
  void add(Entry entry) {
    auto same = std::find_if(m_entries.begin(), m_entries.end(),
                             [&](const Entry& e) { return e.name == entry.name; });
    if (same != m_entries.end()) {
      *same = std::move(entry);
    } else {
      m_entries.push_back(std::move(entry));
    }
  }

  // nullptr when there is no entry of that name.
  const Entry* find(std::string_view name) const {
    for (const Entry& entry : m_entries)
      if (entry.name == name) return &entry;
    return nullptr;
  }

  // In the order they were first added.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const Entry& entry : m_entries) out.push_back(entry.name);
    return out;
  }

  const std::vector<Entry>& entries() const { return m_entries; }

 private:
  std::vector<Entry> m_entries;
};

}  // namespace aaw
