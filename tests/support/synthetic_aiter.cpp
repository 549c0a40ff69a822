#include "support/synthetic_aiter.hpp"

#include <nlohmann/json.hpp>

namespace aaw::test {
namespace {

constexpr const char* k_init = R"(import os
import sys

from .jit import core as core
from .utility import dtypes as dtypes
from .ops.enum import *
from .ops.moe_op import *
from .ops.gemm_op_a8w8 import *
from .ops.norm import *

if os.environ.get("AITER_LEGACY") == "1":
    from .ops.legacy import *
)";

constexpr const char* k_jit_core = R"(import functools


def compile_ops(module_name, fc_name=None, develop=False, ffi_type="pybind"):
    def decorator(stub):
        @functools.wraps(stub)
        def wrapper(*args, **kwargs):
            raise RuntimeError("not built: " + module_name)

        return wrapper

    return decorator
)";

constexpr const char* k_dtypes = R"(fp8 = "float8"
bf16 = "bfloat16"
)";

// enum and quant import each other with stars: a cycle the resolver must cut.
constexpr const char* k_enum = R"(from .quant import *


class ActivationType:
    Silu = 0
    Gelu = 1


__all__ = ["ActivationType", "QuantType"]
)";

constexpr const char* k_quant = R"(from .enum import *


class QuantType:
    No = 0
    per_Token = 1
)";

std::string moe_op(const std::string& blkn) {
  return R"(from typing import Optional

from torch import Tensor

from ..jit.core import compile_ops
from .enum import ActivationType


@compile_ops("module_moe_asm", fc_name="fmoe_fp8_blockscale_g1u1", develop=True)
def fmoe_fp8_blockscale_g1u1(
    out: Tensor,
    input: Tensor,
    topk: int,
    fc_scale_blkn: int = )" +
         blkn + R"(,
    fc2_smooth_scale: Optional[Tensor] = None,
    activation: ActivationType = ActivationType.Silu,
) -> None: ...


def _not_exported(x):
    return x
)";
}

std::string gemm(bool keyword_only_scale, bool feature_bias) {
  std::string ck_params = feature_bias
                              ? "XQ, WQ, x_scale, w_scale, Y, bias, splitK: Optional[int] = None"
                              : "XQ, WQ, x_scale, w_scale, Y, bias=None, splitK: Optional[int] = None";
  std::string scale = keyword_only_scale ? "/, *, x_scale" : "/, x_scale";
  return R"(from typing import Optional

__all__ = ["gemm_a8w8_CK", "gemm_a8w8"]

try:
    from ._gemm_fast import gemm_a8w8_CK
except ImportError:
    def gemm_a8w8_CK()" +
         ck_params + R"():
        return Y


def gemm_a8w8(XQ, WQ, )" +
         scale + R"(, dtype="bf16", **kwargs):
    return XQ


def public_but_not_in_all():
    pass
)";
}

std::string norm(bool eps_default) {
  return std::string(R"(import sys

if sys.version_info >= (3, 8):
    def rms_norm(x, weight, eps: float = 1e-6):
        return x
else:
    def rms_norm(x, weight, eps: float)") +
         (eps_default ? " = 1e-5" : "") + R"(, *args):
        return x
)";
}

constexpr const char* k_legacy = R"(def old_fn(a, b=2):
    return a + b
)";

std::string shuffle(const std::string& returns) {
  return R"(import torch


def shuffle_weight(x: torch.Tensor, layout=(16, 16), use_int4=False) -> )" +
         returns + R"(:
    return x
)";
}

constexpr const char* k_shuffle_broken = R"(import torch


def shuffle_weight(x: torch.Tensor, layout=(16, 16), use_int4=False) -> torch.Tensor
    return x
)";

struct FusedMoeVersion {
  std::string sorting_mask = "expert_mask";
  bool w3 = false;
  bool ck_expert_mask = false;
  bool run_kwargs = false;
};

std::string fused_moe(const FusedMoeVersion& v) {
  std::string out = R"(from typing import Dict, Tuple

from .ops.enum import ActivationType
from .ops.moe_op import *


def moe_sorting_ck(topk_ids, topk_weights, num_experts, model_dim, moebuf_dtype, block_size=32, )" +
                    v.sorting_mask + R"(=None):
    return topk_ids


def asm_moe(hidden_states, w1, w2, )" +
                    std::string(v.w3 ? "w3, " : "") +
                    R"(topk_weight, topk_ids, fc1_scale=None, *, activation=ActivationType.Silu, **kwargs):
    return hidden_states


def _ck_moe_2stages_impl(a1, w1, w2, topk_weight, topk_ids, fc1_scale=None, block_size=None)" +
                    std::string(v.ck_expert_mask ? ", expert_mask=None" : "") + R"():
    return a1


ck_moe_2stages = _ck_moe_2stages_impl


class MoeRunner:
    def run(self, x, /, topk: int, *, renormalize: bool = False)" +
                    std::string(v.run_kwargs ? ", **kwargs" : "") +
                    R"():
        return x

    @classmethod
    def create(cls, config: Dict[str, Tuple[int, ...]] = {"a": (1, 2)}):
        return cls()
)";
  return out;
}

// The same API as fused_moe({}), laid out differently: new lines, trailing commas, spacing,
// redundant parentheses and comments. Static extraction must see no change.
constexpr const char* k_fused_moe_reformatted = R"(from typing import Dict, Tuple

from .ops.enum import ActivationType
from .ops.moe_op import *


def moe_sorting_ck(
    topk_ids,
    topk_weights,
    num_experts,
    model_dim,
    moebuf_dtype,
    block_size = (32),  # tokens per block
    expert_mask = None,
):
    return topk_ids


def asm_moe(
    hidden_states, w1, w2,
    topk_weight, topk_ids,
    fc1_scale=None,
    *,
    activation = ActivationType . Silu,
    **kwargs,
):
    return hidden_states


def _ck_moe_2stages_impl(a1, w1, w2, topk_weight, topk_ids,
                         fc1_scale=None, block_size=None):
    return a1


ck_moe_2stages = _ck_moe_2stages_impl


class MoeRunner:
    def run(self, x, /, topk : int, *, renormalize : bool=False):
        return x

    @classmethod
    def create(cls, config: Dict[ str, Tuple[int, ...] ] = { "a" : ( 1, 2 ), }):
        return cls()
)";

void write_base(GitFixture& repo) {
  repo.write_file("setup.py", "from setuptools import setup\nsetup(name='aiter', packages=['aiter'])\n");
  repo.write_file("aiter/__init__.py", k_init);
  repo.write_file("aiter/jit/__init__.py", "");
  repo.write_file("aiter/jit/core.py", k_jit_core);
  repo.write_file("aiter/utility/__init__.py", "");
  repo.write_file("aiter/utility/dtypes.py", k_dtypes);
  repo.write_file("aiter/ops/__init__.py", "");
  repo.write_file("aiter/ops/enum.py", k_enum);
  repo.write_file("aiter/ops/quant.py", k_quant);
  repo.write_file("aiter/ops/moe_op.py", moe_op("128"));
  repo.write_file("aiter/ops/gemm_op_a8w8.py", gemm(false, false));
  repo.write_file("aiter/ops/norm.py", norm(true));
  repo.write_file("aiter/ops/legacy.py", k_legacy);
  repo.write_file("aiter/ops/shuffle.py", shuffle("torch.Tensor"));
  repo.write_file("aiter/fused_moe_bf16_asm.py", fused_moe({}));
}

MonitoredFunction fn(std::string import_statement, std::string function_path) {
  return MonitoredFunction{std::move(import_statement), std::move(function_path)};
}

}  // namespace

std::vector<MonitoredFunction> SyntheticAiter::functions() {
  const std::string asm_module = "import aiter.fused_moe_bf16_asm as rocm_aiter_asm_fmoe";
  return {
      fn(asm_module, "rocm_aiter_asm_fmoe.moe_sorting_ck"),
      fn(asm_module, "rocm_aiter_asm_fmoe.asm_moe"),
      fn("from aiter.fused_moe_bf16_asm import ck_moe_2stages", "ck_moe_2stages"),
      fn("import aiter", "aiter.fmoe_fp8_blockscale_g1u1"),
      fn("from aiter import gemm_a8w8_CK", "gemm_a8w8_CK"),
      fn("from aiter.ops.shuffle import shuffle_weight", "shuffle_weight"),
      fn("from aiter.fused_moe_bf16_asm import MoeRunner", "MoeRunner.run"),
      fn("import aiter", "aiter.rms_norm"),
      fn("from aiter import gemm_a8w8", "gemm_a8w8"),
      fn("import aiter.ops.legacy as legacy", "legacy.old_fn"),
  };
}

std::string SyntheticAiter::config_json(const std::string& repository_url,
                                        const std::filesystem::path& work_dir,
                                        const std::string& extra_keys) {
  nlohmann::json list = nlohmann::json::array();
  for (const MonitoredFunction& f : functions())
    list.push_back({{"import_statement", f.import_statement}, {"function_path", f.function_path}});
  nlohmann::json config = {{"repository_url", repository_url},
                           {"functions_to_monitor", list},
                           {"state_dir", (work_dir / "state").string()},
                           {"log", {{"file", (work_dir / "watcher.log").string()}}}};
  std::string text = config.dump(2);
  if (!extra_keys.empty()) text = text.substr(0, text.rfind('}')) + ", " + extra_keys + "}";
  return text;
}

SyntheticAiterCommits SyntheticAiter::build(GitFixture& repo) {
  SyntheticAiterCommits c;
  write_base(repo);
  c.base = repo.commit("Add aiter-like package");
  repo.annotated_tag("v0.1", "first release");

  repo.write_file("aiter/fused_moe_bf16_asm.py", k_fused_moe_reformatted);
  c.reformatted = repo.commit("Reformat fused_moe_bf16_asm");

  repo.write_file("aiter/fused_moe_bf16_asm.py", fused_moe({.sorting_mask = "mask"}));
  c.renamed = repo.commit("Rename expert_mask to mask in moe_sorting_ck");

  repo.write_file("aiter/fused_moe_bf16_asm.py", fused_moe({.sorting_mask = "mask", .w3 = true}));
  c.inserted = repo.commit("asm_moe: take w3 before topk_weight");

  repo.write_file("aiter/ops/moe_op.py", moe_op("256"));
  repo.write_file("aiter/ops/shuffle.py", shuffle("torch.Tensor | None"));
  c.defaults = repo.commit("Bigger default block; shuffle_weight may return None");

  repo.write_file("aiter/ops/shuffle.py", k_shuffle_broken);
  c.broken = repo.commit("WIP shuffle (does not parse)");

  repo.write_file("aiter/ops/shuffle.py", shuffle("torch.Tensor | None"));
  repo.remove_file("aiter/ops/legacy.py");
  repo.write_file("aiter/ops/gemm_op_a8w8.py", gemm(true, false));
  c.deleted = repo.commit("Fix shuffle; drop legacy ops; x_scale keyword-only");

  repo.write_file(
      "aiter/fused_moe_bf16_asm.py",
      fused_moe({.sorting_mask = "mask", .w3 = true, .ck_expert_mask = true, .run_kwargs = true}));
  repo.write_file("aiter/ops/norm.py", norm(false));
  c.compatible = repo.commit("ck_moe_2stages: optional expert_mask; rms_norm eps required");

  repo.branch("feature");
  repo.checkout("feature");
  repo.write_file("aiter/ops/gemm_op_a8w8.py", gemm(true, true));
  c.feature = repo.commit("gemm_a8w8_CK: bias required");
  repo.checkout("main");
  return c;
}

}  // namespace aaw::test
