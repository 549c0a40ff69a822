// Classified differences between two states of one function (docs/design.md, "Change
// classification"): what a caller of the old signature meets when it calls the new one.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/signature.hpp"

namespace aaw {

enum class ChangeKind {
  parameter_removed,
  parameter_added,
  parameter_moved,
  kind_changed,
  default_changed,
  default_added,
  default_removed,
  annotation_changed,
  return_annotation_changed,
  function_removed,
  function_added,
  state_changed,
  drift_appeared,  // a compile_ops stub and its binding started to disagree
  drift_resolved,  // ... or stopped
};

// What a change is of: the def Python shows, or the compiled binding a compile_ops stub forwards
// its calls to (core/model/compiled_binding.hpp).
enum class Facet { signature, binding };

// Ordered by how much attention a change needs; highest() uses this order.
enum class Severity { annotation, compatible, behavioural, unknown, breaking };

std::string_view to_string(ChangeKind kind);
std::string_view to_string(Severity severity);
std::optional<Severity> parse_severity(std::string_view text);
std::optional<ChangeKind> parse_change_kind(std::string_view text);

struct Change {
  ChangeKind kind;
  Severity severity;
  std::optional<std::string> parameter;  // the parameter concerned, if any
  std::optional<std::string> old_text;   // what it was (text), if anything
  std::optional<std::string> new_text;   // what it is now (text), if anything
  Facet facet = Facet::signature;
  // Set on the changes from the signature read last to the one read again after a stretch the
  // static view could not read (syntax_error, unresolved): the first commit of that stretch. Such a
  // change happened somewhere in it (CommitProcessor).
  std::optional<std::string> unreadable_since = std::nullopt;

  // One line for people: "breaking: parameter 'b' removed (was 'b: int')".
  std::string describe() const;
  bool operator==(const Change&) const = default;
};

// The contract's CHANGE object ("facet": "binding" only for the binding's), and back
// (invalid_input naming the bad field).
Json to_json(const Change& change);
Result<Change> change_from_json(const Json& json);

// Every change from `before` to `after`, in parameter order. Empty when nothing changed, and
// when either side is a machinery failure (build_failed, import_error, extract_failed): those
// are never diffed, so a broken build neither raises a false alarm nor hides a real change.
std::vector<Change> diff_states(const SignatureState& before, const SignatureState& after);

// Every change of the parameters from `before` to `after`, in parameter order.
std::vector<Change> diff_signatures(const Signature& before, const Signature& after);

// The highest severity among `changes`; nullopt when there are none.
std::optional<Severity> highest(const std::vector<Change>& changes);

}  // namespace aaw
