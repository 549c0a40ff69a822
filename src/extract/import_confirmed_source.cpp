#include "extract/import_confirmed_source.hpp"

#include <spdlog/spdlog.h>

#include <map>

#include "core/model/cross_check.hpp"
#include "extract/runtime/runtime_source.hpp"
#include "extract/source_registry.hpp"
#include "extract/static/incremental_static_source.hpp"
#include "util/strings.hpp"

namespace aaw {
namespace {

std::vector<std::size_t> doubtful_positions(const std::vector<SignatureState>& states) {
  std::vector<std::size_t> positions;
  for (std::size_t i = 0; i < states.size(); ++i)
    if (needs_confirmation(states[i])) positions.push_back(i);
  return positions;
}

}  // namespace

bool needs_confirmation(const SignatureState& state) {
  return state.is_unverified() || state.status == Status::unresolved;
}

Result<std::vector<SignatureState>> ImportConfirmedSource::extract(
    const ObjectId& commit, const std::vector<MonitoredFunction>& functions) {
  m_last.reset();  // until this extraction is complete
  auto statics = m_static.extract(commit, functions);
  if (!statics) return statics;
  m_functions = functions;
  m_static_states = std::move(*statics);
  const std::vector<std::size_t> positions = doubtful_positions(m_static_states);
  auto confirmed = confirm(commit, functions, positions);
  if (!confirmed) return confirmed.error();
  std::vector<SignatureState> states = m_static_states;
  for (std::size_t k = 0; k < positions.size(); ++k)
    if ((*confirmed)[k]) states[positions[k]] = std::move(*(*confirmed)[k]);
  m_last = commit;
  return states;
}

Result<std::vector<StateUpdate>> ImportConfirmedSource::advance(
    const ObjectId& from, const ObjectId& commit, const std::vector<MonitoredFunction>& functions,
    const std::vector<SignatureState>& states) {
  if (!m_last || *m_last != from || functions != m_functions || states.size() != functions.size())
    return SignatureSource::advance(from, commit, functions, states);
  m_last.reset();
  auto updates = m_static.advance(from, commit, functions, m_static_states);
  if (!updates) return updates.error();
  std::map<std::size_t, SignatureState> now;  // the state of each position asked or updated
  for (const StateUpdate& update : *updates) {
    m_static_states[update.position] = update.state;
    now[update.position] = update.state;
  }
  // A doubtful function is imported again wherever a file its resolution read changed, even when
  // static extraction reads the same state: what it cannot follow (a decorator class's body) may
  // be what changed.
  std::vector<std::size_t> positions;
  if (auto touched = m_static.inputs_changed()) {
    for (std::size_t position : *touched)
      if (needs_confirmation(m_static_states[position])) positions.push_back(position);
  } else {
    positions = doubtful_positions(m_static_states);
  }
  auto confirmed = confirm(commit, functions, positions);
  if (!confirmed) return confirmed.error();
  for (std::size_t k = 0; k < positions.size(); ++k) {
    const std::size_t position = positions[k];
    if ((*confirmed)[k]) {
      now[position] = std::move(*(*confirmed)[k]);
    } else if (!now.count(position)) {
      // Static extraction reads what it read before and the import cannot tell: what the import
      // said before (if it did) is still the best answer, and nothing known changed.
      now[position] = states[position];
    }
  }
  std::vector<StateUpdate> out;
  for (auto& [position, state] : now)
    if (!(state == states[position])) out.push_back({position, std::move(state)});
  m_last = commit;
  return out;
}

Result<std::vector<std::optional<SignatureState>>> ImportConfirmedSource::confirm(
    const ObjectId& commit, const std::vector<MonitoredFunction>& functions,
    const std::vector<std::size_t>& positions) {
  std::vector<std::optional<SignatureState>> out;
  if (positions.empty()) return out;
  std::vector<MonitoredFunction> asked;
  for (std::size_t position : positions) asked.push_back(functions[position]);
  ++m_tally.imports;
  m_tally.asked += positions.size();
  auto imported = m_import.extract(commit, asked);
  if (!imported && imported.error().code() == ErrorCode::cancelled) return imported.error();
  for (std::size_t k = 0; k < positions.size(); ++k) {
    if (!imported) {
      unanswered(imported.error().message());
      out.push_back(std::nullopt);
    } else {
      out.push_back(judge(asked[k], commit, m_static_states[positions[k]], std::move((*imported)[k])));
    }
  }
  return out;
}

std::optional<SignatureState> ImportConfirmedSource::judge(const MonitoredFunction& function,
                                                           const ObjectId& commit,
                                                           const SignatureState& static_state,
                                                           SignatureState imported) {
  // Only a statement about the code answers (ok; missing; unresolved: there, but without a
  // signature inspect can read); an import that raised or a child that failed says nothing.
  if (is_machinery_failure(imported.status) || imported.status == Status::syntax_error) {
    unanswered(std::string(to_string(imported.status)) + ": " + imported.detail);
    return std::nullopt;
  }
  if (static_state.status == Status::unresolved && imported.status == Status::unresolved) {
    ++m_tally.confirmed;  // neither can tell: static extraction's reason stays
    return static_state;
  }
  if (static_state.is_ok() && imported.is_ok()) {
    auto differences = signature_disagreements(static_state.signature, imported.signature);
    if (differences.empty()) {
      ++m_tally.confirmed;
      SignatureState confirmed = static_state;
      confirmed.unverified.clear();
      return confirmed;
    }
    ++m_tally.differed;
    m_log.warn("Importing {} at {} gives {}, not the {} static extraction read ({}); recording the import's",
               function.function_path, commit.hex, imported.signature.text(), static_state.signature.text(),
               join(differences, "; "));
  } else if (static_state.is_ok()) {
    ++m_tally.differed;
    m_log.warn("Importing {} at {} finds it {}, where static extraction read {}; recording the import's",
               function.function_path, commit.hex, imported.summary(), static_state.summary());
  } else {
    ++m_tally.resolved;
  }
  imported.by_import = imported.is_ok();
  return imported;
}

void ImportConfirmedSource::unanswered(const std::string& why) {
  if (m_tally.unanswered == 0) {
    m_tally.first_unanswered = why;
    m_log.warn(
        "The import could not confirm what static extraction cannot vouch for ({}): the static states "
        "are kept, and the closing summary counts every such state",
        why);
  }
  ++m_tally.unanswered;
}

std::string ImportConfirmedSource::work_summary() const {
  std::string summary = m_static.work_summary();
  const Tally& t = m_tally;
  std::string imports = fmt::format(
      "import confirmation: {} of doubtful functions in {}: {} confirmed, {} differed and {} resolved "
      "(the import's recorded), {} unanswered (static kept)",
      counted(t.asked, "state", "states"), counted(t.imports, "import", "imports"), t.confirmed, t.differed,
      t.resolved, t.unanswered);
  if (t.unanswered > 0) imports += "; first: " + t.first_unanswered;
  return summary + (summary.empty() ? "" : "; ") + imports;
}

SourceKind import_confirmed_source_kind() {
  return {"static+import",
          "static extraction, confirmed by importing the commit's tree (no build) where it cannot vouch "
          "for a signature",
          [](const Config& config, SourceDeps& deps) -> Result<std::unique_ptr<SignatureSource>> {
            auto static_source = static_source_kind().make(config, deps);
            if (!static_source) return static_source.error();
            // Nothing is built, so nothing a submodule holds (C++ sources, kernels) is needed, and
            // a checkout that fetches one needs the network at every import.
            Config unbuilt = config;
            unbuilt.build.command.clear();
            unbuilt.build.submodules = false;
            auto import_source = runtime_source_kind().make(unbuilt, deps);
            if (!import_source) return import_source.error();
            return std::unique_ptr<SignatureSource>(std::make_unique<ImportConfirmedSource>(
                std::move(*static_source), std::move(*import_source), deps.log));
          }};
}

}  // namespace aaw
