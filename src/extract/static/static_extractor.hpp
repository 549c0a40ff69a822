// Static extraction: the signatures of the monitored functions at one commit, found by reading
// the package's sources from the commit's tree and parsing them with Python's own `ast` in the
// embedded interpreter (src/python/aaw_static.py). Nothing is built, imported or executed.
// Resolution follows docs/design.md: import forms, re-exports through star and relative imports,
// aliases, class methods, last binding wins, decorators ignored, cycles cut.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/model/config.hpp"
#include "core/model/signature.hpp"
#include "core/ports/definition_locator.hpp"
#include "core/ports/function_lookup.hpp"
#include "core/ports/op_registry.hpp"
#include "core/ports/python_host.hpp"
#include "core/ports/source_tree.hpp"
#include "core/ports/summary_prefetch.hpp"
#include "util/result.hpp"

namespace aaw {

// A path the resolution of one function looked at, and what it found there (nullopt: nothing).
// When none of these changed between two commits, neither did the function's state.
struct PathProbe {
  std::string path;
  std::optional<ObjectId> blob;   // for a file probe: the blob found there, nullopt if none
  std::optional<bool> directory;  // for a directory probe: whether a directory was there
  bool link = false;              // for a file probe: `blob` is a symbolic link's (SourceTree::is_link)
  // For a file the resolver parsed: the digest of its API surface (the module without function
  // bodies). Two blobs with the same digest resolve alike. Derived from blob, so not compared.
  std::optional<std::string> digest = std::nullopt;
  // The names resolution looked up in that module, which the digest covers (empty: all of it).
  std::vector<std::string> digest_names = {};

  // The same place with the same answer.
  bool operator==(const PathProbe& other) const {
    return path == other.path && blob == other.blob && directory == other.directory && link == other.link;
  }
};

// The name a digest name asks of a module: "<identity>X" asks only what X is bound to (a
// decorator: aaw_summary.identity_of), and reads as X where X is not bound; any other is itself.
std::string_view bare_name(std::string_view name);

// What aaw_summary.outline says of one module: enough to know the digest of most sets of names
// asked of it without asking Python for each.
class ModuleOutline {
 public:
  static Result<ModuleOutline> from_json(const Json& json);
  // The digest of `names` in the module; nullopt when Python must be asked (an empty set, a
  // pseudo-name starting with '<' other than an identity, a name the module binds).
  std::optional<std::string> digest(const std::vector<std::string>& names) const;
  // False for a module that does not parse.
  bool parsed() const { return !m_any; }

 private:
  std::optional<std::string> m_any;  // a module that does not parse: every set's digest
  std::string m_unbound;             // of every set of names the module does not bind
  std::unordered_set<std::string> m_bound;
};

struct Extraction {
  SignatureState state;
  std::vector<PathProbe> consulted;
  double seconds = 0;  // what resolving it took in Python
};

// What the embedded interpreter's parsing cost since it started: module texts parsed, and how many
// distinct blobs they were (parses / distinct_blobs is 1 when nothing was parsed twice).
struct ParseStats {
  std::int64_t parses = 0;          // module texts summarised
  std::int64_t distinct_blobs = 0;  // among them
  std::int64_t skeletons = 0;       // of those parses, skeletons (function bodies blanked)
  std::int64_t bodies_parsed = 0;   // function bodies parsed on their own to check a skeleton
};

class StaticExtractor {
 public:
  explicit StaticExtractor(PythonHost& python, StaticConfig options = {})
      : m_python(python), m_options(std::move(options)) {}

  // One Extraction per function, in order. A function that cannot be resolved gets a state
  // (missing, unresolved, syntax_error, or extract_failed when the tree cannot be read), never an
  // error: an Error means the Python helper itself failed.
  // `known`: probes already answered for this very tree; the resolver uses them instead of
  // asking the tree again.
  Result<std::vector<Extraction>> extract(SourceTree& tree, const std::vector<MonitoredFunction>& functions,
                                          const std::vector<PathProbe>& known = {});

  // What a module at `blob` gives for the names of one probe: compared with PathProbe::digest,
  // it says whether a changed file can change a resolution. One digest per query, in order; each
  // distinct blob is parsed once.
  struct DigestQuery {
    ObjectId blob;
    const std::vector<std::string>* names;
  };
  Result<std::vector<std::string>> digests(SourceTree& tree, const std::vector<DigestQuery>& queries);
  // The outline of each blob, in order.
  Result<std::vector<ModuleOutline>> outlines(SourceTree& tree, const std::vector<ObjectId>& blobs);
  // digests() without outlines: every set of names asked of Python (for sets an outline could not
  // answer already).
  Result<std::vector<std::string>> digests_of_sets(SourceTree& tree, const std::vector<DigestQuery>& queries);

  // A module changed from `before` to `after` at `path` in `tree`, and one function asked each of
  // `asks` of it. Per ask (src/python/aaw_resolver.py Session.star_additions): when the change
  // only adds star imports none of which binds those names, the probes a resolution would add
  // (the module's own at `after` first); nullopt when that function must be resolved again.
  struct StarCheck {
    std::string path;
    ObjectId before, after;
    std::vector<const std::vector<std::string>*> asks;
  };
  using StarAnswers = std::vector<std::optional<std::vector<PathProbe>>>;  // one per ask
  Result<std::vector<StarAnswers>> star_additions(SourceTree& tree, const std::vector<StarCheck>& checks);

  // Whether each function is there in `tree`, and if not what is bound where it was looked for
  // (src/python/aaw_lookup.py). An Error means the Python helper itself failed.
  Result<std::vector<FunctionLookup>> lookup(SourceTree& tree,
                                             const std::vector<MonitoredFunction>& functions);

  // The interpreter's parse counters (aaw_static.stats); an Error when it cannot tell.
  Result<ParseStats> parse_stats();

  // Summaries parsed ahead come from `prefetch` when it has them (nullptr: none; it must outlive
  // this extractor's calls).
  void set_prefetch(SummaryPrefetch* prefetch) { m_prefetch = prefetch; }
  // For the process that parses ahead: the blob's summary pickled (aaw_static.pickled_summary);
  // nullopt when it cannot be read (the daemon then parses it itself).
  Result<std::optional<PickledSummary>> pickled_summary(SourceTree& tree, const ObjectId& blob);

  // The registrations of torch ops in `tree` (src/python/aaw_ops.py find_ops). An Error means
  // the Python helper itself failed.
  Result<OpRegistrations> registered_ops(SourceTree& tree, const std::string& package,
                                         const std::vector<std::string>& modules,
                                         const std::vector<std::string>& ops);

  // Where each function is defined in `tree` (src/python/aaw_static.py locate_all): nullopt for
  // one that resolves to no def. An Error means the Python helper itself failed.
  Result<std::vector<std::optional<SourceLocation>>> locate(SourceTree& tree,
                                                            const std::vector<MonitoredFunction>& functions);

 private:
  // `request` with the static section's source_roots and module_aliases, when set.
  Json with_options(Json request) const;

  PythonHost& m_python;
  StaticConfig m_options;
  SummaryPrefetch* m_prefetch = nullptr;
};

}  // namespace aaw
