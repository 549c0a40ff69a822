#include "util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace aaw {

bool starts_with_ci(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

std::string counted(std::size_t n, std::string_view singular, std::string_view plural) {
  return std::to_string(n) + " " + std::string(n == 1 ? singular : plural);
}

std::string join(const std::vector<std::string>& words, std::string_view separator) {
  std::string out;
  for (const std::string& word : words) {
    if (!out.empty()) out += separator;
    out += word;
  }
  return out;
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  if (from.empty()) return text;
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// How far `candidate` is from `word`: a truncated word ("max_size" for "max_size_mb") is as
// likely a slip as a typo, and case slips cost half a letter.
std::size_t slip_distance(std::string_view word, std::string_view candidate) {
  if (word.size() >= 4 && candidate.substr(0, word.size()) == word) return 2;
  std::size_t folded = edit_distance(lower(word), lower(candidate));
  return 2 * folded + (folded == edit_distance(word, candidate) ? 0 : 1);
}

}  // namespace

std::vector<std::string> closest_matches(std::string_view word, const std::vector<std::string>& candidates,
                                         std::size_t limit) {
  const std::size_t allowed = 2 * std::max<std::size_t>(2, word.size() / 3);
  std::vector<std::pair<std::size_t, const std::string*>> near;
  for (const std::string& candidate : candidates) {
    if (candidate == word) continue;
    std::size_t d = slip_distance(word, candidate);
    if (d <= allowed) near.emplace_back(d, &candidate);
  }
  std::stable_sort(near.begin(), near.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < near.size() && out.size() < limit; ++i) out.push_back(*near[i].second);
  return out;
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  auto best = closest_matches(word, candidates, 1);
  return best.empty() ? std::string() : best.front();
}

}  // namespace aaw
