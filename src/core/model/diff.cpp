#include "core/model/diff.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "core/model/annotation.hpp"
#include "core/model/compiled_binding.hpp"
#include "core/model/cross_check.hpp"

namespace aaw {
namespace {

using Kind = ParameterKind;

constexpr std::array<std::string_view, 14> k_change_names = {
    "parameter_removed", "parameter_added",    "parameter_moved",
    "kind_changed",      "default_changed",    "default_added",
    "default_removed",   "annotation_changed", "return_annotation_changed",
    "function_removed",  "function_added",     "state_changed",
    "drift_appeared",    "drift_resolved"};

constexpr std::array<std::string_view, 5> k_severity_names = {"annotation", "compatible", "behavioural",
                                                              "unknown", "breaking"};

bool is_positional(Kind kind) { return kind == Kind::positional_only || kind == Kind::positional_or_keyword; }

bool is_variadic(Kind kind) { return kind == Kind::var_positional || kind == Kind::var_keyword; }

// Index among the parameters a caller can pass by position; nullopt for the others.
std::optional<size_t> positional_index(const Signature& s, std::string_view name) {
  size_t index = 0;
  for (const Parameter& p : s.parameters) {
    if (!is_positional(p.kind)) break;
    if (p.name == name) return index;
    ++index;
  }
  return std::nullopt;
}

Change change(ChangeKind kind, Severity severity, std::string parameter, std::optional<std::string> old_text,
              std::optional<std::string> new_text) {
  return Change{kind, severity, std::move(parameter), std::move(old_text), std::move(new_text)};
}

// Widening (keyword-only -> positional-or-keyword) keeps every old call valid; any other kind
// change (narrowing, or to/from *args/**kwargs) rejects calls that used to work.
Severity kind_change_severity(Kind before, Kind after) {
  bool widened = after == Kind::positional_or_keyword &&
                 (before == Kind::keyword_only || before == Kind::positional_only);
  return widened ? Severity::compatible : Severity::breaking;
}

Severity added_severity(const Parameter& p) {
  return is_variadic(p.kind) || p.default_value ? Severity::compatible : Severity::breaking;
}

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// A default's text with the u prefix of its string literals dropped: u'x' and 'x' are one object
// in Python 3, and inspect prints it without the prefix. States recorded before the extractor
// dropped it themselves compare equal to those after.
std::string without_u_prefixes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const bool prefix = (c == 'u' || c == 'U') && i + 1 < text.size() &&
                        (text[i + 1] == '\'' || text[i + 1] == '"') &&
                        (i == 0 || !identifier_char(text[i - 1]));
    if (prefix) {
      ++i;
      continue;
    }
    if (c != '\'' && c != '"') {
      out += c;
      ++i;
      continue;
    }
    // A literal: copied up to its closing quote (three quotes for a triple-quoted one).
    const std::string_view quote =
        text.substr(i, 3) == std::string(3, c) ? text.substr(i, 3) : text.substr(i, 1);
    std::size_t end = i + quote.size();
    while (end < text.size() && text.substr(end, quote.size()) != quote) end += text[end] == '\\' ? 2 : 1;
    end = std::min(text.size(), end + quote.size());
    out.append(text.substr(i, end - i));
    i = end;
  }
  return out;
}

bool same_default(const std::optional<std::string>& a, const std::optional<std::string>& b) {
  if (a == b) return true;
  return a && b && without_u_prefixes(*a) == without_u_prefixes(*b);
}

void diff_common(const Parameter& a, const Parameter& b, const Signature& before, const Signature& after,
                 std::vector<Change>& out) {
  if (a.kind != b.kind) {
    out.push_back(change(ChangeKind::kind_changed, kind_change_severity(a.kind, b.kind), a.name,
                         std::string(to_string(a.kind)), std::string(to_string(b.kind))));
  }
  auto old_pos = positional_index(before, a.name);
  auto new_pos = positional_index(after, b.name);
  if (old_pos && new_pos && *old_pos != *new_pos) {
    out.push_back(change(ChangeKind::parameter_moved, Severity::breaking, a.name, std::to_string(*old_pos),
                         std::to_string(*new_pos)));
  }
  if (a.default_value && !b.default_value) {
    out.push_back(change(ChangeKind::default_removed, Severity::breaking, a.name, a.default_value, {}));
  } else if (!a.default_value && b.default_value) {
    out.push_back(change(ChangeKind::default_added, Severity::compatible, a.name, {}, b.default_value));
  } else if (a.default_refers_to && b.default_refers_to) {
    // Both spelled as names static extraction followed: what they name decides.
    if (*a.default_refers_to != *b.default_refers_to)
      out.push_back(change(ChangeKind::default_changed, Severity::behavioural, a.name,
                           *a.default_value + " (" + *a.default_refers_to + ")",
                           *b.default_value + " (" + *b.default_refers_to + ")"));
  } else if (!same_default(a.default_value, b.default_value)) {
    out.push_back(
        change(ChangeKind::default_changed, Severity::behavioural, a.name, a.default_value, b.default_value));
  }
  if (!same_annotation(a.annotation, b.annotation)) {
    out.push_back(
        change(ChangeKind::annotation_changed, Severity::annotation, a.name, a.annotation, b.annotation));
  }
}

// A private name written `__x` in a class body, which Python spells `_Class__x`: no caller passes it
// by keyword (the name changes with the class), so it is positional in all but its kind.
bool is_mangled(std::string_view name) {
  return name.size() > 3 && name[0] == '_' && name[1] != '_' &&
         name.find("__", 2) != std::string_view::npos && !name.ends_with("__");
}

bool never_named(const Parameter& p) { return p.kind == Kind::positional_only || is_mangled(p.name); }

// The parameter of `after` that a caller of `a` meets: the one of the same name; for parameters a
// caller can never name (*args, **kwargs, positional-only and name-mangled ones), the one in the
// same place under a new name, since renaming those breaks no call.
const Parameter* counterpart(const Parameter& a, const Signature& before, const Signature& after) {
  if (const Parameter* b = after.find(a.name)) return b;
  auto unnamed_in_before = [&](const Parameter& b) { return before.find(b.name) == nullptr; };
  if (a.kind == Kind::var_positional || a.kind == Kind::var_keyword) {
    for (const Parameter& b : after.parameters)
      if (b.kind == a.kind && unnamed_in_before(b)) return &b;
    return nullptr;
  }
  if (!never_named(a)) return nullptr;
  size_t index = 0;
  while (&before.parameters[index] != &a) ++index;
  if (index >= after.parameters.size()) return nullptr;
  const Parameter& b = after.parameters[index];
  return b.kind == a.kind && never_named(b) && unnamed_in_before(b) ? &b : nullptr;
}

std::vector<Change> signature_changes(const Signature& before, const Signature& after) {
  if (before == after) return {};  // most functions at most commits: no lookups by name
  std::vector<Change> out;
  std::vector<const Parameter*> matched;
  for (const Parameter& a : before.parameters) {
    const Parameter* b = counterpart(a, before, after);
    if (!b) {
      out.push_back(change(ChangeKind::parameter_removed, Severity::breaking, a.name, a.text(), {}));
    } else {
      matched.push_back(b);
      diff_common(a, *b, before, after, out);
    }
  }
  for (const Parameter& b : after.parameters) {
    if (std::find(matched.begin(), matched.end(), &b) == matched.end())
      out.push_back(change(ChangeKind::parameter_added, added_severity(b), b.name, {}, b.text()));
  }
  if (!same_annotation(before.return_annotation, after.return_annotation)) {
    out.push_back(Change{ChangeKind::return_annotation_changed, Severity::annotation, std::nullopt,
                         before.return_annotation, after.return_annotation});
  }
  return out;
}

// Transitions between statements about the code where at least one side is not ok.
std::vector<Change> diff_statuses(const SignatureState& before, const SignatureState& after) {
  if (before.status == after.status) return {};
  auto text = [](const SignatureState& s) { return s.summary(); };
  if (before.is_ok() && after.status == Status::missing)
    return {
        Change{ChangeKind::function_removed, Severity::breaking, std::nullopt, text(before), text(after)}};
  if (before.status == Status::missing && after.is_ok())
    return {
        Change{ChangeKind::function_added, Severity::compatible, std::nullopt, text(before), text(after)}};
  // Unresolved or unparsable: we cannot tell what callers meet, so never claim a removal.
  return {Change{ChangeKind::state_changed, Severity::unknown, std::nullopt, text(before), text(after)}};
}

}  // namespace

std::string_view to_string(ChangeKind kind) { return k_change_names[static_cast<size_t>(kind)]; }

std::string_view to_string(Severity severity) { return k_severity_names[static_cast<size_t>(severity)]; }

std::optional<Severity> parse_severity(std::string_view text) {
  for (size_t i = 0; i < k_severity_names.size(); ++i)
    if (k_severity_names[i] == text) return static_cast<Severity>(i);
  return std::nullopt;
}

std::optional<ChangeKind> parse_change_kind(std::string_view text) {
  for (size_t i = 0; i < k_change_names.size(); ++i)
    if (k_change_names[i] == text) return static_cast<ChangeKind>(i);
  return std::nullopt;
}

Result<Change> change_from_json(const Json& json) {
  auto text = [&](const char* key) -> std::optional<std::string> {
    auto it = json.find(key);
    if (it == json.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  auto kind = text("kind") ? parse_change_kind(*text("kind")) : std::nullopt;
  if (!kind) return Error(ErrorCode::invalid_input, "change.kind: expected a change kind");
  auto severity = text("severity") ? parse_severity(*text("severity")) : std::nullopt;
  if (!severity) return Error(ErrorCode::invalid_input, "change.severity: expected a severity");
  Change change{*kind, *severity, text("parameter"), text("old"), text("new")};
  if (text("facet") == "binding") change.facet = Facet::binding;
  change.unreadable_since = text("unreadable_since");
  return change;
}

std::string Change::describe() const {
  auto quoted = [](const std::optional<std::string>& s) { return s ? "'" + *s + "'" : std::string("none"); };
  std::string p = parameter ? "parameter '" + *parameter + "'" : std::string();
  std::string what;
  switch (kind) {
    case ChangeKind::parameter_removed:
      what = p + " removed (was " + quoted(old_text) + ")";
      break;
    case ChangeKind::parameter_added:
      what = p + " added: " + quoted(new_text);
      break;
    case ChangeKind::parameter_moved:
      what = p + " moved from position " + old_text.value_or("?") + " to " + new_text.value_or("?");
      break;
    case ChangeKind::kind_changed:
      what = p + " kind changed from " + old_text.value_or("?") + " to " + new_text.value_or("?");
      break;
    case ChangeKind::default_changed:
      what = p + " default changed from " + quoted(old_text) + " to " + quoted(new_text);
      break;
    case ChangeKind::default_added:
      what = p + " default added: " + quoted(new_text);
      break;
    case ChangeKind::default_removed:
      what = p + " default removed (was " + quoted(old_text) + ")";
      break;
    case ChangeKind::annotation_changed:
      what = p + " annotation changed from " + quoted(old_text) + " to " + quoted(new_text);
      break;
    case ChangeKind::return_annotation_changed:
      what = "return annotation changed from " + quoted(old_text) + " to " + quoted(new_text);
      break;
    case ChangeKind::function_removed:
      what = "function removed (" + new_text.value_or("") + ")";
      break;
    case ChangeKind::function_added:
      what = "function appeared";
      break;
    case ChangeKind::state_changed:
      what = "state changed from " + quoted(old_text) + " to " + quoted(new_text);
      break;
    case ChangeKind::drift_appeared:
      what = "stub and binding disagree: " + new_text.value_or("?");
      break;
    case ChangeKind::drift_resolved:
      what = "stub and binding agree again (was: " + old_text.value_or("?") + ")";
      break;
  }
  bool drift = kind == ChangeKind::drift_appeared || kind == ChangeKind::drift_resolved;
  if (facet == Facet::binding && !drift) what = "binding " + what;
  if (unreadable_since)
    what += " (against the signature read before " + unreadable_since->substr(0, 12) +
            ", since which it could not be read)";
  return std::string(to_string(severity)) + ": " + what;
}

Json to_json(const Change& c) {
  auto text = [](const std::optional<std::string>& s) { return s ? Json(*s) : Json(nullptr); };
  Json out = {{"kind", to_string(c.kind)},
              {"severity", to_string(c.severity)},
              {"parameter", text(c.parameter)},
              {"old", text(c.old_text)},
              {"new", text(c.new_text)}};
  if (c.facet == Facet::binding) out["facet"] = "binding";
  if (c.unreadable_since) out["unreadable_since"] = *c.unreadable_since;
  return out;
}

std::vector<Change> diff_signatures(const Signature& before, const Signature& after) {
  return signature_changes(before, after);
}

namespace {

// One state read from source, the other by import (extractor static+import): the same
// annotation and default are spelled differently on the two sides (cross_check.hpp), so only
// what both can state is a change. `printed_before`: the state before is the imported one.
void drop_spellings(std::vector<Change>& changes, bool printed_before) {
  std::erase_if(changes, [&](const Change& c) {
    if (c.kind == ChangeKind::annotation_changed || c.kind == ChangeKind::return_annotation_changed)
      return true;
    if (c.kind != ChangeKind::default_changed) return false;
    return printed_before ? defaults_agree(c.new_text, c.old_text) : defaults_agree(c.old_text, c.new_text);
  });
}

}  // namespace

std::vector<Change> diff_states(const SignatureState& before, const SignatureState& after) {
  if (is_machinery_failure(before.status) || is_machinery_failure(after.status)) return {};
  if (!before.is_ok() || !after.is_ok()) return diff_statuses(before, after);
  // One side read through something the resolver cannot follow, the other not (a decorator it
  // cannot follow appeared or went): what callers meet may have changed, even where the def's
  // text did not. (Both unverified: the def's own signature is compared, whatever the reasons
  // say; they quote lines that move.)
  if (before.is_unverified() != after.is_unverified())
    return {Change{ChangeKind::state_changed, Severity::unknown, std::nullopt, before.summary(),
                   after.summary()}};
  std::vector<Change> out = signature_changes(before.signature, after.signature);
  if (before.by_import != after.by_import) drop_spellings(out, before.by_import);
  std::vector<Change> of_binding = diff_bindings(before, after, out);
  out.insert(out.end(), of_binding.begin(), of_binding.end());
  return out;
}

std::optional<Severity> highest(const std::vector<Change>& changes) {
  if (changes.empty()) return std::nullopt;
  auto it = std::max_element(changes.begin(), changes.end(),
                             [](const Change& a, const Change& b) { return a.severity < b.severity; });
  return it->severity;
}

}  // namespace aaw
