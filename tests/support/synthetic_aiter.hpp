// A synthetic aiter-like package written into a git repository over several commits, each
// planting known signature changes; it exercises every static resolution rule of docs/design.md
// (star re-exports with and without __all__, relative imports, aliases, `import a.b as c`, class
// methods, defs under if/else and try/except ImportError, @compile_ops-style stubs, an import
// cycle) and the hard cases (reformatting that is no change, a syntax error, a deleted module,
// a renamed parameter, a parameter inserted before others).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/model/signature.hpp"
#include "support/git_fixture.hpp"

namespace aaw::test {

struct SyntheticAiterCommits {
  std::string base;         // first version
  std::string reformatted;  // same API, every file reformatted: no change
  std::string renamed;      // moe_sorting_ck: expert_mask renamed to mask
  std::string inserted;     // asm_moe: required w3 inserted before topk_weight
  std::string defaults;     // fmoe_fp8_blockscale_g1u1: default 128 -> 256; shuffle_weight: return annotation
  std::string broken;       // aiter/ops/shuffle.py does not parse
  std::string deleted;      // shuffle.py fixed; aiter/ops/legacy.py deleted; gemm_a8w8 x_scale keyword-only
  std::string
      compatible;  // ck_moe_2stages: optional expert_mask; MoeRunner.run: **kwargs; rms_norm: default removed
  std::string feature;  // on branch "feature" from `compatible`: gemm_a8w8_CK gains required `bias`
};

class SyntheticAiter {
 public:
  // The functions a config for this package monitors (ten, covering every import form).
  static std::vector<MonitoredFunction> functions();

  // A config JSON for `repository_url`, with state and log under `work_dir`.
  static std::string config_json(const std::string& repository_url, const std::filesystem::path& work_dir,
                                 const std::string& extra_keys = "");

  // Writes the history into `repo` (on main, plus branch "feature" and annotated tag "v0.1" at base).
  static SyntheticAiterCommits build(GitFixture& repo);
};

}  // namespace aaw::test
