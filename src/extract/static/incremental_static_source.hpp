// Static extraction that remembers what each function's last resolution consulted, so that a long
// replay mostly costs tree lookups (see IncrementalStaticSource).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/ports/git_mirror.hpp"
#include "core/ports/signature_source.hpp"
#include "extract/static/static_extractor.hpp"

namespace aaw {

// Static extraction that remembers, per function, the paths its last resolution consulted and what
// it found there. When none of them changed at the next commit, the function's state cannot have
// changed either: it is reused without entering Python, so most commits of a long replay cost a
// few tree lookups. On git trees the check goes by directory: an unchanged directory id vouches
// for every path under it, and a changed one is narrowed to the entries that differ.
//
// advance() from the commit extracted last, for the same functions, goes further: an index from
// each watched directory to the functions whose memo watches it names the only functions a
// commit's changed directories can concern, and every other function costs nothing at all.
class IncrementalStaticSource final : public SignatureSource {
 public:
  IncrementalStaticSource(GitMirror& mirror, StaticExtractor& extractor)
      : m_mirror(mirror), m_extractor(extractor) {}
  // With a StaticExtractor of its own on `python`.
  IncrementalStaticSource(GitMirror& mirror, PythonHost& python, StaticConfig options = {})
      : m_owned(std::make_unique<StaticExtractor>(python, std::move(options))),
        m_mirror(mirror),
        m_extractor(*m_owned) {}
  ~IncrementalStaticSource() override;
  IncrementalStaticSource(const IncrementalStaticSource&) = delete;
  IncrementalStaticSource& operator=(const IncrementalStaticSource&) = delete;

  // Parse ahead with `prefetch` (src/core/ports/summary_prefetch.hpp): it is given the commits
  // expect() names and the files the memos read, and the extractor adopts what it made.
  void parse_ahead(std::unique_ptr<SummaryPrefetch> prefetch);
  void expect(const std::optional<ObjectId>& from, const std::vector<ObjectId>& commits) override;

  Result<std::vector<SignatureState>> extract(const ObjectId& commit,
                                              const std::vector<MonitoredFunction>& functions) override;
  Result<std::vector<StateUpdate>> advance(const ObjectId& from, const ObjectId& commit,
                                           const std::vector<MonitoredFunction>& functions,
                                           const std::vector<SignatureState>& states) override;

  // After an advance() that continued the last extraction: the functions a changed file concerned
  // (resolved again, or kept by their digests or a star-import check). nullopt otherwise.
  std::optional<std::vector<std::size_t>> inputs_changed() const override { return m_inputs_changed; }

  // "Static extraction: N function states resolved in Python, M reused unchanged; P module parses of
  // B distinct blobs".
  std::string work_summary() const override;
  // "Costliest functions ...: F S s (N resolutions, M checks), ..." for the five that took the
  // longest, resolving and checking.
  std::string cost_summary() const override;

  // What extraction did since construction, as work_summary() tells it.
  struct Work {
    std::size_t resolved = 0;       // function states resolved by Python
    std::size_t reused = 0;         // states reused unchanged
    std::size_t untouched = 0;      // of the reused: never looked at (no directory they watch changed)
    std::size_t kept_by_stars = 0;  // of the reused: kept by a check of the star imports a module added
    // Star-import checks that failed in Python (their functions were resolved instead), and the
    // first one's message: a bug there would otherwise show only as lost speed.
    std::size_t failed_star_checks = 0;
    std::string first_star_check_failure;
  };
  const Work& work() const { return m_work; }

 private:
  using Key = std::pair<std::string, std::string>;  // import statement, function path
  // The entries a resolution consulted in one directory, and that directory's id when they were
  // last known to be as consulted.
  struct DirectoryWatch {
    std::optional<ObjectId> id;
    std::map<std::string, std::vector<PathProbe>, std::less<>> probes;  // by entry name
  };
  struct Memo {
    SignatureState state;
    std::map<std::string, DirectoryWatch> directories;
    // The extraction (m_generation) at which every directory id above was last known to be
    // current; 0: never (check every directory).
    std::uint64_t checked = 0;
  };
  class CommitView;
  // A memo that holds at this commit if each changed file kept its API digest.
  struct Pending {
    std::size_t index;  // of the function
    Memo* memo;
    std::vector<std::pair<PathProbe*, ObjectId>> changed;          // the probe, and the blob there now
    std::map<std::string, std::optional<ObjectId>> directory_ids;  // now
  };
  enum class Verdict { valid, stale, pending };
  // A function resolved anew at this commit: its position and state.
  using Resolved = std::vector<std::pair<std::size_t, SignatureState>>;

  Result<Resolved> examine(CommitView& view, const std::vector<MonitoredFunction>& functions,
                           const std::vector<std::size_t>& positions,
                           const std::optional<std::vector<std::string>>& changed, bool all_current);
  Verdict verdict(Memo* memo, CommitView& view, const std::optional<std::vector<std::string>>& changed,
                  bool current, Pending& pending);
  void replace_memo(const MonitoredFunction& function, std::size_t position, Extraction extraction,
                    CommitView& view, bool indexed);
  // The module files the memos read, to m_prefetch when new ones came.
  void tell_prefetch();
  void start_prefetch_after(const ObjectId& commit);
  // The index of the functions of the last extraction, kept from one to the next.
  bool continues(const ObjectId& from, const std::vector<MonitoredFunction>& functions) const;
  void reindex(const ObjectId& commit, const std::vector<MonitoredFunction>& functions, bool indexed);
  void watch(std::size_t position, const Memo& memo);
  void unwatch(std::size_t position, const Memo& memo);
  // An entry of a watched directory that changed since the last extraction.
  struct ChangedEntry {
    std::string dir, name, path;
    std::optional<ObjectId> blob;            // the file there now, if one is
    bool link = false;                       // that file is a symbolic link (never read as a module)
    std::optional<bool> directory;           // whether a directory is there now; nullopt: unreadable
    const ModuleOutline* outline = nullptr;  // of that file, when known
  };
  enum class Holds { yes, no, ask };
  // What is left to ask Python about a function's probes of a changed entry before it is known
  // whether the change concerns it: the digests of sets of names the entry's outline cannot
  // answer for, and the probes whose digest changed (by the outline or by those digests: the
  // entry may only have added star imports that bind none of their names; settle_by_stars).
  struct Asking {
    std::size_t position;
    const ChangedEntry* entry;
    std::vector<const PathProbe*> digests;
    std::vector<const PathProbe*> stars;
  };
  static const std::vector<PathProbe>* probes_of(const Memo& memo, const ChangedEntry& entry);
  static bool wants_outline(const Memo& memo, const ChangedEntry& entry);
  static Holds holds_by_outline(const Memo& memo, const ChangedEntry& entry, Asking& asking);
  static bool star_checkable(const PathProbe& probe, const ChangedEntry& entry);
  void settle_by_digests(std::vector<Asking>& asking, CommitView& view, std::vector<char>& marked);
  void settle_by_stars(const std::vector<Asking>& asking, CommitView& view, std::vector<char>& marked);
  // Replaces in `memo` each probe of `answers` with what the star-import check found there now,
  // and adds the rest of what it read.
  using StarAnswer = std::pair<const PathProbe*, const std::vector<PathProbe>*>;
  void take_star_answers(Memo& memo, const std::vector<StarAnswer>& answers, CommitView& view);
  void add_probe(Memo& memo, const PathProbe& probe, CommitView& view);
  Result<std::vector<ChangedEntry>> changed_entries(const std::vector<std::string>& changed,
                                                    const std::vector<std::optional<ObjectId>>& before,
                                                    CommitView& view, std::vector<char>& marked);
  Result<std::vector<std::size_t>> concerned(const std::vector<std::string>& changed,
                                             const std::vector<std::optional<ObjectId>>& before,
                                             CommitView& view, std::vector<char>& watching);

  Memo make_memo(Extraction extraction, CommitView& view);
  void watch_new_directory(Memo& memo, const std::string& dir, DirectoryWatch& watch, CommitView& view);
  void watch_directory(const std::string& dir, const std::optional<ObjectId>& id, CommitView& view);
  Verdict check(Memo& memo, CommitView& view, Pending& pending);
  Verdict check_changed(Memo& memo, const std::vector<std::string>& changed, CommitView& view,
                        Pending& pending);
  Verdict conclude(Memo& memo, Pending& pending);
  static bool check_directory(const std::string& dir, DirectoryWatch& watch, CommitView& view,
                              Pending& pending);
  std::optional<std::vector<std::string>> changed_directories(
      CommitView& view, std::vector<std::optional<ObjectId>>* before = nullptr);
  static bool compare_probes(DirectoryWatch& watch, const std::vector<std::string>* changed_names,
                             CommitView& view, Pending& pending);
  static void share_unchanged(const Memo& memo, CommitView& view);
  Result<std::vector<std::size_t>> settle(std::vector<Pending>& pending, CommitView& view);

  std::unique_ptr<StaticExtractor> m_owned;
  GitMirror& m_mirror;
  StaticExtractor& m_extractor;
  std::map<Key, Memo> m_memo;
  // Extractions so far. Every directory any memo watches, with its id at the extraction numbered
  // m_watched_generation (0: not known at any): a memo checked at the previous extraction need
  // only look at the directories that changed since, found once for all memos.
  std::uint64_t m_generation = 0;
  std::uint64_t m_watched_generation = 0;
  std::map<std::string, std::optional<ObjectId>> m_watched;  // each with the directory above it
  // The last extraction: its commit and functions, each function's memo (null: none, so it is
  // extracted again at every commit), and per watched directory and per entry of one that a memo
  // read (its path) a flag per position saying whether that function's memo watches it. m_all_current: the
  // extraction at which every memo of these functions was last known to hold (advance() leaves the untouched
  // ones' `checked`).
  std::optional<ObjectId> m_last_commit;
  std::vector<MonitoredFunction> m_last_functions;
  std::vector<Memo*> m_positions;
  std::unordered_map<std::string, std::vector<char>> m_dir_watchers;
  std::unordered_map<std::string, std::vector<char>> m_entry_watchers;
  std::uint64_t m_all_current = 0;
  std::optional<std::vector<std::size_t>> m_inputs_changed;  // inputs_changed()
  Work m_work;
  // Per function: how often it was resolved in Python and how long that took, and how often a
  // commit changed files it read and its share of the time checking them (split evenly among the
  // functions that read them).
  struct Cost {
    std::size_t resolutions = 0;
    double resolving = 0;
    std::size_t checks = 0;
    double checking = 0;
  };
  std::map<Key, Cost> m_costs;
  // m_costs of m_last_functions by position (advance() runs only for them): no key built per commit.
  std::vector<Cost*> m_position_costs;
  // Each position flagged in `watching` gets one check and an even share of `seconds`.
  void charge_checking(const std::vector<char>& watching, double seconds);
  std::unique_ptr<SummaryPrefetch> m_prefetch;
  std::size_t m_entries_told = 0;  // m_entry_watchers' size when its files were last given to m_prefetch
  std::vector<ObjectId> m_expected_first;  // expected before anything was read (start_prefetch_after)
};

// The "static" entry of the source registry: an IncrementalStaticSource on the mirror and the
// embedded interpreter.
struct SourceKind;
SourceKind static_source_kind();

}  // namespace aaw
