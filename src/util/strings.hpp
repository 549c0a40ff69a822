// Small string helpers shared by the config reader, the HTTP transport and the runtime source.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace aaw {

// `text` without leading and trailing spaces, tabs, CRs and LFs.
std::string trim(std::string_view text);

// Whether `text` starts with `prefix` (written in lower case) in any case: "HTTPS://" for "https://".
bool starts_with_ci(std::string_view text, std::string_view prefix);

// "1 commit", "2 commits": `n` and the noun that goes with it.
std::string counted(std::size_t n, std::string_view singular, std::string_view plural);

// "a, b, c".
std::string join(const std::vector<std::string>& words, std::string_view separator = ", ");

// `text` with every `from` replaced by `to` (left to right, replacements not rescanned).
std::string replace_all(std::string text, std::string_view from, std::string_view to);

// The Levenshtein distance: insertions, deletions and substitutions.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` when one is close enough to be a slip (a typo, or a truncated
// word of 4 or more letters), else "".
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

// Up to `limit` candidates close enough to `word` to be a slip (as closest_match judges, case slips
// counting less), the closest first; `word` itself is never one of them.
std::vector<std::string> closest_matches(std::string_view word, const std::vector<std::string>& candidates,
                                         std::size_t limit);

}  // namespace aaw
