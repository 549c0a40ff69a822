// A provider package ("aiter") whose history breaks a consumer's calls at a known commit, and a
// consumer tree calling it in every shape the consumer check knows: lazy imports, aliases, a
// try/except ImportError fallback, hasattr and inspect.signature probes, a stored reference, a
// call forwarding *args/**kwargs, and one call per binding error kind.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "support/git_fixture.hpp"

namespace aaw::test {

struct SyntheticProviderCommits {
  std::string base;        // rms_norm(x, w, eps), topk(a, b, c, d=None), attn(q, *, causal=False), ...
  std::string compatible;  // rms_norm gains residual=None: every call that bound still binds
  std::string breaking;    // topk loses c (d keyword-only), attn's causal becomes is_causal,
                           // aiter/legacy/gemm.py deleted
  std::string head;        // the last of a few unrelated commits after `breaking`
};

class SyntheticConsumer {
 public:
  // Writes the provider's history into `repo` (on main), with filler commits between the
  // compatible and the breaking one so that blame has something to bisect.
  static SyntheticProviderCommits build_provider(GitFixture& repo);
  // Writes the consumer's files under `dir` (consumer/ops.py and consumer/layer.py, plus a file
  // that does not parse and one that never mentions the package).
  static void write_consumer(const std::filesystem::path& dir);
};

}  // namespace aaw::test
