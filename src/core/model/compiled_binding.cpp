#include "core/model/compiled_binding.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>

namespace aaw {
namespace {

constexpr std::array<std::string_view, 5> k_drift_names = {"name", "order", "count", "default", "unnamed"};

// The parameters a caller passes one by one (not *args, **kwargs), in order.
std::vector<const Parameter*> single_parameters(const Signature& signature) {
  std::vector<const Parameter*> out;
  for (const Parameter& p : signature.parameters)
    if (p.kind != ParameterKind::var_positional && p.kind != ParameterKind::var_keyword) out.push_back(&p);
  return out;
}

std::optional<std::size_t> index_of(const std::vector<const Parameter*>& parameters, std::string_view name) {
  for (std::size_t i = 0; i < parameters.size(); ++i)
    if (parameters[i]->name == name) return i;
  return std::nullopt;
}

std::string in_quotes(std::string_view name) { return "'" + std::string(name) + "'"; }

// A default's value in one spelling for Python and C++ ("True"/"true", "None"/"std::nullopt",
// "1.0"/"1.0f", "''"/"\"\""); nullopt when it is not a plain literal (an enum member, a call), which
// is never compared.
std::optional<std::string> literal(std::string text) {
  static const std::array<std::pair<std::string_view, std::string_view>, 9> k_words = {
      {{"True", "True"},
       {"true", "True"},
       {"False", "False"},
       {"false", "False"},
       {"None", "None"},
       {"nullptr", "None"},
       {"std::nullopt", "None"},
       {"c10::nullopt", "None"},
       {"py::none()", "None"}}};
  for (const auto& [word, value] : k_words)
    if (text == word) return std::string(value);
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front())
    return "str:" + text.substr(1, text.size() - 2);
  while (!text.empty() && std::string_view("fFlLuU").find(text.back()) != std::string_view::npos)
    text.pop_back();
  double value = 0;
  const char* begin = text.data();
  if (!text.empty() && text.front() == '+') ++begin;
  auto [end, error] = std::from_chars(begin, text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return "number:" + std::to_string(value);
}

class DriftReader {
 public:
  DriftReader(const Signature& stub, const Signature& binding, BindingKind kind)
      : m_stub(single_parameters(stub)), m_binding(single_parameters(binding)), m_kind(kind) {}

  std::vector<Drift> read() {
    count();
    positions();
    if (m_kind == BindingKind::pybind11) defaults();
    return std::move(m_out);
  }

 private:
  std::string what() const { return m_kind == BindingKind::ctypes ? "the C function" : "the binding"; }

  void count() {
    if (m_stub.size() == m_binding.size()) return;
    std::vector<std::string> only_binding, only_stub;
    for (const Parameter* p : m_binding)
      if (!index_of(m_stub, p->name)) only_binding.push_back(p->name);
    for (const Parameter* p : m_stub)
      if (!index_of(m_binding, p->name)) only_stub.push_back(p->name);
    std::string sentence = "the stub takes " + std::to_string(m_stub.size()) + " parameters, " + what() +
                           " " + std::to_string(m_binding.size());
    auto list = [](const std::vector<std::string>& names) {
      std::string out;
      for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
      return out;
    };
    if (!only_binding.empty()) sentence += "; only " + what() + " has " + list(only_binding);
    if (!only_stub.empty()) sentence += "; only the stub has " + list(only_stub);
    m_out.push_back({DriftKind::count, "", sentence});
  }

  // Each stub parameter against the binding's at the same position: the same name elsewhere is
  // an order drift (positional callers pass the wrong value); another name is a name drift for
  // pybind11 (a keyword call fails), which ctypes does not see (the stub's names are bound).
  void positions() {
    for (std::size_t i = 0; i < m_stub.size(); ++i) {
      const Parameter& mine = *m_stub[i];
      auto there = index_of(m_binding, mine.name);
      if (there && *there != i) {
        m_out.push_back(
            {DriftKind::order, mine.name,
             in_quotes(mine.name) + " is at position " + std::to_string(i) + " in the stub but " +
                 std::to_string(*there) + " in " + what() + ": a caller passing it by position gives it to " +
                 (i < m_binding.size() ? in_quotes(m_binding[i]->name) : std::string("nothing"))});
      } else if (!there && i < m_binding.size() && m_kind == BindingKind::pybind11 &&
                 !index_of(m_stub, m_binding[i]->name)) {
        m_out.push_back({DriftKind::name, mine.name,
                         "the stub's " + in_quotes(mine.name) + " is " + in_quotes(m_binding[i]->name) +
                             " in the binding: a call passing " + mine.name + "= fails"});
      }
    }
  }

  void defaults() {
    for (const Parameter* mine : m_stub) {
      auto there = index_of(m_binding, mine->name);
      if (!there || !mine->default_value) continue;
      const Parameter& theirs = *m_binding[*there];
      if (!theirs.default_value) {
        m_out.push_back({DriftKind::default_value, mine->name,
                         "the stub gives " + in_quotes(mine->name) + " a default (" + *mine->default_value +
                             "), the binding none: a call leaving it out fails"});
        continue;
      }
      auto a = literal(*mine->default_value);
      auto b = literal(*theirs.default_value);
      if (a && b && *a != *b)
        m_out.push_back({DriftKind::default_value, mine->name,
                         "the stub's default for " + in_quotes(mine->name) + " is " + *mine->default_value +
                             ", the binding's " + *theirs.default_value + ": a call leaving it out gets " +
                             *theirs.default_value});
    }
  }

  std::vector<const Parameter*> m_stub, m_binding;
  BindingKind m_kind;
  std::vector<Drift> m_out;
};

std::vector<Drift> drift_against(const Signature& stub, const Signature& binding,
                                 const CompiledBinding& whole) {
  if (whole.kind == BindingKind::pybind11 && !whole.named) {
    if (single_parameters(stub).empty()) return {};
    return {{DriftKind::unnamed, "",
             "the binding names none of its arguments: pybind11 takes them by position only, so a call "
             "passing any of them by keyword fails"}};
  }
  return DriftReader(stub, binding, whole.kind).read();
}

std::string binding_text(const CompiledBinding& binding) {
  if (!binding.resolved) return "unresolved: " + binding.detail;
  return std::string(to_string(binding.kind)) + " " + binding.name + binding.signature.text();
}

Severity drift_severity(DriftKind kind) {
  return kind == DriftKind::default_value ? Severity::behavioural : Severity::breaking;
}

bool said_by(const Change& change, const std::vector<Change>& signature_changes) {
  return std::any_of(signature_changes.begin(), signature_changes.end(), [&](const Change& c) {
    return c.kind == change.kind && c.parameter == change.parameter;
  });
}

bool listed(const Drift& drift, const std::vector<Drift>& in) {
  return std::any_of(in.begin(), in.end(),
                     [&](const Drift& d) { return d.kind == drift.kind && d.parameter == drift.parameter; });
}

Change binding_change(ChangeKind kind, Severity severity, std::optional<std::string> parameter,
                      std::optional<std::string> old_text, std::optional<std::string> new_text) {
  Change change{kind, severity, std::move(parameter), std::move(old_text), std::move(new_text)};
  change.facet = Facet::binding;
  return change;
}

std::optional<std::string> parameter_of(const Drift& drift) {
  return drift.parameter.empty() ? std::nullopt : std::optional<std::string>(drift.parameter);
}

}  // namespace

std::string_view to_string(DriftKind kind) { return k_drift_names[static_cast<std::size_t>(kind)]; }

Json to_json(const Drift& drift) {
  Json out = {{"kind", to_string(drift.kind)}, {"sentence", drift.sentence}};
  out["parameter"] = drift.parameter.empty() ? Json(nullptr) : Json(drift.parameter);
  return out;
}

std::vector<Drift> binding_drift(const Signature& stub, const CompiledBinding& binding) {
  if (!binding.resolved) return {};
  std::vector<Drift> best = drift_against(stub, binding.signature, binding);
  for (const Signature& overload : binding.overloads) {
    if (best.empty()) break;
    std::vector<Drift> other = drift_against(stub, overload, binding);
    if (other.size() < best.size()) best = std::move(other);
  }
  return best;
}

std::vector<std::string> describe_binding(const Signature& stub, const CompiledBinding& binding) {
  if (!binding.resolved)
    return {"binding: " + std::string(to_string(binding.kind)) + " " + binding.name + " of module " +
            binding.module + " unresolved: " + binding.detail};
  std::vector<std::string> out = {"binding: " + binding_text(binding) + " at " + binding.file + ":" +
                                  std::to_string(binding.line) + ", module " + binding.module +
                                  (binding.overloads.empty()
                                       ? std::string()
                                       : " (+" + std::to_string(binding.overloads.size()) + " overloads)")};
  for (const Drift& d : binding_drift(stub, binding))
    out.push_back("drift (" + std::string(to_string(d.kind)) + "): " + d.sentence);
  return out;
}

std::vector<std::string> binding_sides(const SignatureState& before, const SignatureState& after,
                                       const std::vector<Change>& changes) {
  if (std::none_of(changes.begin(), changes.end(), [](const Change& c) { return c.facet == Facet::binding; }))
    return {};
  auto side = [](const SignatureState& state) {
    if (!state.binding) return std::string("none read");
    const CompiledBinding& b = *state.binding;
    return b.resolved ? binding_text(b) + " at " + b.file + ":" + std::to_string(b.line) : binding_text(b);
  };
  return {"old binding: " + side(before), "new binding: " + side(after)};
}

std::vector<std::string> binding_sides(const Json& function_change) {
  auto before = state_from_json(function_change["old"]);
  auto after = state_from_json(function_change["new"]);
  if (!before || !after) return {};
  std::vector<Change> changes;
  for (const Json& c : function_change["changes"])
    if (auto change = change_from_json(c)) changes.push_back(*change);
  return binding_sides(*before, *after, changes);
}

std::vector<Change> diff_bindings(const SignatureState& before, const SignatureState& after,
                                  const std::vector<Change>& signature_changes) {
  if (!before.binding || !after.binding) return {};
  const CompiledBinding& a = *before.binding;
  const CompiledBinding& b = *after.binding;
  std::vector<Change> out;
  if (a.resolved != b.resolved) {
    out.push_back(binding_change(ChangeKind::state_changed, Severity::unknown, std::nullopt, binding_text(a),
                                 binding_text(b)));
    return out;
  }
  if (!a.resolved) return out;
  if (a.kind != b.kind) {
    // aiter moving an op from pybind11 to ctypes: the caller's arguments are then bound by the stub's
    // own signature (diffed as such), so no call breaks by the move itself; drift still counts below.
    out.push_back(binding_change(ChangeKind::state_changed, Severity::compatible, std::nullopt,
                                 binding_text(a), binding_text(b)));
  } else {
    for (Change& change : diff_signatures(a.signature, b.signature)) {
      change.facet = Facet::binding;
      if (!said_by(change, signature_changes)) out.push_back(std::move(change));
    }
  }
  std::vector<Drift> was = binding_drift(before.signature, a);
  std::vector<Drift> now = binding_drift(after.signature, b);
  for (const Drift& d : now)
    if (!listed(d, was))
      out.push_back(binding_change(ChangeKind::drift_appeared, drift_severity(d.kind), parameter_of(d),
                                   std::nullopt, d.sentence));
  for (const Drift& d : was)
    if (!listed(d, now))
      out.push_back(binding_change(ChangeKind::drift_resolved, Severity::compatible, parameter_of(d),
                                   d.sentence, std::nullopt));
  return out;
}

}  // namespace aaw
