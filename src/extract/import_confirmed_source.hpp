// `extractor: static+import`: static extraction of every function, confirmed by importing the
// commit's tree as it is (no build, in the sandbox) for the functions static extraction cannot
// vouch for (an unverified or unresolved state), at the commits where a file their resolution
// read changed. The import's answer wins: where it agrees, the static state is recorded without its
// doubt; where it disagrees, or static extraction had no signature, the import's state is recorded
// (`by_import`), and the disagreement is logged and counted. Where the import cannot answer (it
// raises, the child fails, the tree cannot be checked out), the static state stays, doubt and all;
// in a replay, a function whose static state did not change then keeps what it had (an earlier
// import's answer is still the best one), so an import that fails now and then makes no changes.
// Submodules are not checked out for the import (nothing is built).
//
// Costs: one import child per commit where a doubtful function's inputs changed, for those
// functions only; commits where nothing doubtful changed cost what static extraction costs.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ports/signature_source.hpp"
#include "core/report/log.hpp"

namespace aaw {

// Whether static extraction's state is one an import should confirm.
bool needs_confirmation(const SignatureState& state);

class ImportConfirmedSource final : public SignatureSource {
 public:
  // `import_source` imports without building (a RuntimeSource with no build command).
  ImportConfirmedSource(SignatureSource& static_source, SignatureSource& import_source, Logger& log)
      : m_static(static_source), m_import(import_source), m_log(log) {}
  // Owning both sources.
  ImportConfirmedSource(std::unique_ptr<SignatureSource> static_source,
                        std::unique_ptr<SignatureSource> import_source, Logger& log)
      : ImportConfirmedSource(*static_source, *import_source, log) {
    m_owned_static = std::move(static_source);
    m_owned_import = std::move(import_source);
  }

  // The static states, the doubtful ones confirmed. An Error only when static extraction cannot
  // read the commit.
  Result<std::vector<SignatureState>> extract(const ObjectId& commit,
                                              const std::vector<MonitoredFunction>& functions) override;
  // Static extraction's advance(); a doubtful function a changed file concerned (static
  // extraction's inputs_changed(); every one when it cannot tell) is imported again.
  Result<std::vector<StateUpdate>> advance(const ObjectId& from, const ObjectId& commit,
                                           const std::vector<MonitoredFunction>& functions,
                                           const std::vector<SignatureState>& states) override;
  void expect(const std::optional<ObjectId>& from, const std::vector<ObjectId>& commits) override {
    m_static.expect(from, commits);
  }
  // Static extraction's summary, then what the imports did.
  std::string work_summary() const override;
  std::string cost_summary() const override { return m_static.cost_summary(); }

  // What the imports did since construction.
  struct Tally {
    std::size_t imports = 0;       // import children run (one per commit that needed one)
    std::size_t asked = 0;         // function states asked of them
    std::size_t confirmed = 0;     // the import agreed: the static state recorded, without doubt
    std::size_t differed = 0;      // it disagreed with a static signature: the import's recorded
    std::size_t resolved = 0;      // static extraction had no signature: the import's recorded
    std::size_t unanswered = 0;    // the import could not answer: the static state kept
    std::string first_unanswered;  // why, the first time
  };
  const Tally& tally() const { return m_tally; }

 private:
  // The state to record for each of `positions` (doubtful in m_static_states) at `commit`, or
  // nullopt where the import could not answer; cancelled when a stop was requested during it.
  Result<std::vector<std::optional<SignatureState>>> confirm(const ObjectId& commit,
                                                             const std::vector<MonitoredFunction>& functions,
                                                             const std::vector<std::size_t>& positions);
  std::optional<SignatureState> judge(const MonitoredFunction& function, const ObjectId& commit,
                                      const SignatureState& static_state, SignatureState imported);
  void unanswered(const std::string& why);

  SignatureSource& m_static;
  SignatureSource& m_import;
  Logger& m_log;
  // Static extraction's own states of m_functions at m_last: what its advance() is given (the
  // states recorded may be the import's).
  std::optional<ObjectId> m_last;
  std::vector<MonitoredFunction> m_functions;
  std::vector<SignatureState> m_static_states;
  Tally m_tally;
  std::unique_ptr<SignatureSource> m_owned_static;
  std::unique_ptr<SignatureSource> m_owned_import;
};

// The "static+import" entry of the source registry: the "static" kind's source, and a runtime
// source that imports the work tree without building it.
struct SourceKind;
SourceKind import_confirmed_source_kind();

}  // namespace aaw
