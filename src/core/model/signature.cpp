#include "core/model/signature.hpp"

#include <array>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/model/compiled_binding.hpp"

namespace aaw {

std::string compact(const Json& json) { return json.dump(-1, ' ', false, Json::error_handler_t::replace); }

namespace {

constexpr std::array<std::pair<ParameterKind, std::string_view>, 5> k_kind_names = {{
    {ParameterKind::positional_only, "POSITIONAL_ONLY"},
    {ParameterKind::positional_or_keyword, "POSITIONAL_OR_KEYWORD"},
    {ParameterKind::var_positional, "VAR_POSITIONAL"},
    {ParameterKind::keyword_only, "KEYWORD_ONLY"},
    {ParameterKind::var_keyword, "VAR_KEYWORD"},
}};

constexpr std::array<std::pair<Status, std::string_view>, 7> k_status_names = {{
    {Status::ok, "ok"},
    {Status::missing, "missing"},
    {Status::unresolved, "unresolved"},
    {Status::syntax_error, "syntax_error"},
    {Status::build_failed, "build_failed"},
    {Status::import_error, "import_error"},
    {Status::extract_failed, "extract_failed"},
}};

template <class Table, class Key>
std::string_view name_of(const Table& table, Key key) {
  for (const auto& [k, name] : table)
    if (k == key) return name;
  return "?";
}

template <class Key, class Table>
std::optional<Key> key_of(const Table& table, std::string_view name) {
  for (const auto& [k, n] : table)
    if (n == name) return k;
  return std::nullopt;
}

Json optional_text(const std::optional<std::string>& text) { return text ? Json(*text) : Json(nullptr); }

Error bad_field(std::string_view field, std::string_view expected) {
  return Error(ErrorCode::invalid_input, std::string(field) + ": expected " + std::string(expected));
}

Result<std::optional<std::string>> optional_text_from(const Json& json, std::string_view field) {
  auto it = json.find(field);
  if (it == json.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return bad_field(field, "a string or null");
  return std::optional<std::string>(it->get<std::string>());
}

Result<Parameter> parameter_from_json(const Json& json) {
  if (!json.is_object()) return bad_field("parameter", "an object");
  auto name = json.find("name");
  if (name == json.end() || !name->is_string()) return bad_field("name", "a string");
  auto kind_field = json.find("kind");
  if (kind_field == json.end() || !kind_field->is_string()) return bad_field("kind", "a string");
  auto kind = parse_parameter_kind(kind_field->get<std::string>());
  if (!kind) return bad_field("kind", "an inspect parameter kind");
  auto default_value = optional_text_from(json, "default");
  if (!default_value) return default_value.error();
  auto annotation = optional_text_from(json, "annotation");
  if (!annotation) return annotation.error();
  Parameter parameter{name->get<std::string>(), *kind, *default_value, *annotation, std::nullopt};
  if (auto refers = json.find("default_refers_to"); refers != json.end() && !refers->is_null()) {
    if (!refers->is_string()) return bad_field("default_refers_to", "a string or null");
    parameter.default_refers_to = refers->get<std::string>();
  }
  return parameter;
}

}  // namespace

std::string_view to_string(ParameterKind kind) { return name_of(k_kind_names, kind); }

std::optional<ParameterKind> parse_parameter_kind(std::string_view text) {
  return key_of<ParameterKind>(k_kind_names, text);
}

std::string_view to_string(Status status) { return name_of(k_status_names, status); }

std::optional<Status> parse_status(std::string_view text) { return key_of<Status>(k_status_names, text); }

bool is_machinery_failure(Status status) {
  return status == Status::build_failed || status == Status::import_error || status == Status::extract_failed;
}

std::string Parameter::text() const {
  std::string out;
  if (kind == ParameterKind::var_positional) out = "*";
  if (kind == ParameterKind::var_keyword) out = "**";
  out += name;
  if (annotation) out += ": " + *annotation;
  // Python spaces the '=' only when there is an annotation: "a=1" but "a: int = 1".
  if (default_value) out += (annotation ? " = " : "=") + *default_value;
  return out;
}

std::vector<SignaturePart> Signature::parts() const {
  // The same separators inspect.Signature.__str__ inserts: "/" after the last positional-only
  // parameter, "*" before the first keyword-only one unless *args already stands there.
  std::vector<SignaturePart> parts;
  bool pending_slash = false;
  bool star_seen = false;
  for (const Parameter& p : parameters) {
    if (pending_slash && p.kind != ParameterKind::positional_only) {
      parts.push_back({nullptr, "/"});
      pending_slash = false;
    }
    if (p.kind == ParameterKind::positional_only) pending_slash = true;
    if (p.kind == ParameterKind::var_positional) star_seen = true;
    if (p.kind == ParameterKind::keyword_only && !star_seen) {
      parts.push_back({nullptr, "*"});
      star_seen = true;
    }
    parts.push_back({&p, p.text()});
  }
  if (pending_slash) parts.push_back({nullptr, "/"});
  return parts;
}

std::string Signature::text() const {
  std::vector<SignaturePart> items = parts();
  std::string out = "(";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i].text;
  out += ")";
  if (return_annotation) out += " -> " + *return_annotation;
  return out;
}

const Parameter* Signature::find(std::string_view name) const {
  for (const Parameter& p : parameters)
    if (p.name == name) return &p;
  return nullptr;
}

SignatureState SignatureState::ok(Signature signature) {
  SignatureState state;
  state.status = Status::ok;
  state.signature = std::move(signature);
  return state;
}

SignatureState SignatureState::failed(Status status, std::string detail) {
  SignatureState state;
  state.status = status;
  state.detail = std::move(detail);
  return state;
}

std::string SignatureState::summary() const {
  if (is_ok())
    return unverified.empty() ? signature.text() : signature.text() + "  [unverified: " + unverified + "]";
  std::string out(to_string(status));
  if (!detail.empty()) out += ": " + detail;
  return out;
}

Json to_json(const Signature& signature) {
  Json params = Json::array();
  for (const Parameter& p : signature.parameters) {
    params.push_back({{"name", p.name},
                      {"kind", to_string(p.kind)},
                      {"default", optional_text(p.default_value)},
                      {"annotation", optional_text(p.annotation)}});
    if (p.default_refers_to) params.back()["default_refers_to"] = *p.default_refers_to;
  }
  return {{"parameters", params}, {"return_annotation", optional_text(signature.return_annotation)}};
}

std::string_view to_string(BindingKind kind) { return kind == BindingKind::ctypes ? "ctypes" : "pybind11"; }

Json to_json(const CompiledBinding& binding) {
  Json out = {{"status", binding.resolved ? "ok" : "unresolved"},
              {"kind", to_string(binding.kind)},
              {"name", binding.name},
              {"module", binding.module}};
  if (!binding.resolved) {
    out["detail"] = binding.detail;
    return out;
  }
  out["file"] = binding.file;
  out["line"] = binding.line;
  out["named"] = binding.named;
  out["text"] = binding.signature.text();
  out["parameters"] = to_json(binding.signature)["parameters"];
  Json overloads = Json::array();
  for (const Signature& overload : binding.overloads) overloads.push_back(to_json(overload)["parameters"]);
  out["overloads"] = std::move(overloads);
  return out;
}

Result<CompiledBinding> binding_from_json(const Json& json) {
  if (!json.is_object()) return bad_field("binding", "an object");
  auto text = [&](const char* key) {
    auto it = json.find(key);
    return it != json.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  CompiledBinding binding;
  binding.kind = text("kind") == "ctypes" ? BindingKind::ctypes : BindingKind::pybind11;
  binding.name = text("name");
  binding.module = text("module");
  binding.resolved = text("status") == "ok";
  if (!binding.resolved) {
    binding.detail = text("detail");
    return binding;
  }
  binding.file = text("file");
  if (auto line = json.find("line"); line != json.end() && line->is_number_integer())
    binding.line = line->get<int>();
  if (auto named = json.find("named"); named != json.end() && named->is_boolean())
    binding.named = named->get<bool>();
  auto parameters = signature_from_json({{"parameters", json.value("parameters", Json::array())}});
  if (!parameters) return parameters.error().context("binding");
  binding.signature = std::move(*parameters);
  if (auto overloads = json.find("overloads"); overloads != json.end() && overloads->is_array()) {
    for (const Json& overload : *overloads) {
      auto parsed = signature_from_json({{"parameters", overload}});
      if (!parsed) return parsed.error().context("binding.overloads");
      binding.overloads.push_back(std::move(*parsed));
    }
  }
  return binding;
}

Json to_json(const SignatureState& state) {
  Json out = {{"status", to_string(state.status)}};
  if (state.is_ok()) {
    out["text"] = state.signature.text();
    out["signature"] = to_json(state.signature);
    if (!state.detail.empty()) out["detail"] = state.detail;  // a note on the signature
    if (!state.unverified.empty()) out["unverified"] = state.unverified;
    if (state.by_import) out["by_import"] = true;
    if (state.binding) {
      out["binding"] = to_json(*state.binding);
      Json drift = Json::array();
      for (const Drift& item : binding_drift(state.signature, *state.binding)) drift.push_back(to_json(item));
      out["binding_drift"] = std::move(drift);
    }
  } else {
    out["detail"] = state.detail;
  }
  return out;
}

Result<Signature> signature_from_json(const Json& json) {
  if (!json.is_object()) return bad_field("signature", "an object");
  auto params = json.find("parameters");
  if (params == json.end() || !params->is_array()) return bad_field("signature.parameters", "an array");
  Signature signature;
  for (size_t i = 0; i < params->size(); ++i) {
    auto p = parameter_from_json((*params)[i]);
    if (!p) return p.error().context("signature.parameters[" + std::to_string(i) + "]");
    signature.parameters.push_back(std::move(*p));
  }
  auto ret = optional_text_from(json, "return_annotation");
  if (!ret) return ret.error().context("signature");
  signature.return_annotation = *ret;
  return signature;
}

Result<SignatureState> state_from_json(const Json& json) {
  if (!json.is_object()) return bad_field("state", "an object");
  auto status_field = json.find("status");
  if (status_field == json.end() || !status_field->is_string()) return bad_field("status", "a string");
  auto status = parse_status(status_field->get<std::string>());
  if (!status)
    return bad_field(
        "status", "one of ok, missing, unresolved, syntax_error, build_failed, import_error, extract_failed");
  if (*status != Status::ok) {
    auto detail = json.find("detail");
    std::string text = detail != json.end() && detail->is_string() ? detail->get<std::string>() : "";
    return SignatureState::failed(*status, std::move(text));
  }
  auto signature_field = json.find("signature");
  if (signature_field == json.end()) return bad_field("signature", "an object for status ok");
  auto signature = signature_from_json(*signature_field);
  if (!signature) return signature.error();
  SignatureState state = SignatureState::ok(std::move(*signature));
  if (auto note = json.find("detail"); note != json.end() && note->is_string())
    state.detail = note->get<std::string>();
  if (auto unverified = json.find("unverified"); unverified != json.end()) {
    if (!unverified->is_string())
      return bad_field("unverified", "a string (why the signature is not vouched for)");
    state.unverified = unverified->get<std::string>();
  }
  if (auto by_import = json.find("by_import"); by_import != json.end()) {
    if (!by_import->is_boolean()) return bad_field("by_import", "true or false");
    state.by_import = by_import->get<bool>();
  }
  if (auto binding = json.find("binding"); binding != json.end() && !binding->is_null()) {
    auto parsed = binding_from_json(*binding);
    if (!parsed) return parsed.error();
    state.binding = std::move(*parsed);
  }
  return state;
}

std::string state_summary(const Json& state) {
  auto parsed = state_from_json(state);
  return parsed ? parsed->summary() : state.dump();
}

}  // namespace aaw
