#include "support/synthetic_consumer.hpp"

#include <fstream>

namespace aaw::test {
namespace {

// aiter/ops.py with these definitions of rms_norm's, topk's and attn's parameters.
std::string ops(const std::string& rms_norm, const std::string& topk, const std::string& attn) {
  return "def rms_norm(" + rms_norm + "):\n    pass\n\n\ndef topk(" + topk + "):\n    pass\n\n\ndef attn(" +
         attn + "):\n    pass\n\n\ndef pos_only(a, /, b):\n    pass\n";
}

// Each call's function name says what it must get at the head.
constexpr const char* k_consumer_ops = R"(import inspect
import aiter as rocm_aiter

try:
    from aiter.ops import new_name as norm
except ImportError:
    from aiter.ops import rms_norm as norm


def binds_lazy_import(x, w):
    from aiter import rms_norm
    return rms_norm(x, w, 1e-6)


def breaks_too_many_positional(a, b, c):
    return rocm_aiter.topk(a, b, c)


def breaks_unexpected_keyword(q):
    from aiter.ops import attn as attention
    return attention(q, causal=True)


def breaks_missing_argument(x):
    return rocm_aiter.rms_norm(x)


def breaks_given_twice(x):
    return rocm_aiter.rms_norm(x, x, 1, w=2)


def breaks_positional_only_by_keyword(a):
    return rocm_aiter.pos_only(a=a, b=1)


def breaks_not_importable(x):
    from aiter.legacy.gemm import gemm
    return gemm(x)


def guarded_hasattr(q):
    if hasattr(rocm_aiter, "attn"):
        return rocm_aiter.attn(q, causal=True)
    return None


def guarded_signature(q):
    from aiter.ops import attn
    if "causal" in inspect.signature(attn).parameters:
        return attn(q, causal=True)
    return attn(q)


def guarded_fallback(x):
    return norm(x, x, 1)


def unknown_forwarding(*args, **kwargs):
    return rocm_aiter.topk(*args, **kwargs)
)";

constexpr const char* k_consumer_layer = R"(import functools

import aiter
import torch


class Layer:
    def __init__(self):
        self.fn = aiter.topk
        self.attention = aiter.attn
        self.ops = torch.ops.aiter

    def use_scaled(self):
        self.attention = functools.partial(aiter.attn, scale=2)

    def breaks_through_self(self, a):
        return self.fn(a, a, a)

    def unknown_ambiguous(self, q):
        return self.attention(q, causal=True)

    def not_checked_torch_ops(self, x):
        return self.ops.rms_norm(x)

    def binds_torch_op(self, p):
        import aiter.sampling  # registers the op
        return self.ops.top_k_renorm(p, top_k=3)
)";

// An op registered the way aiter registers most of its torch ops.
constexpr const char* k_provider_sampling = R"(from aiter.ops import direct_register_custom_op


def top_k_renorm(probs, top_k):
    pass


direct_register_custom_op("top_k_renorm", top_k_renorm, [])
)";

void write(const std::filesystem::path& path, const char* text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

}  // namespace

SyntheticProviderCommits SyntheticConsumer::build_provider(GitFixture& repo) {
  SyntheticProviderCommits commits;
  repo.write_file("aiter/__init__.py", "from .ops import *\n");
  repo.write_file("aiter/ops.py", ops("x, w, eps", "a, b, c, d=None", "q, *, causal=False"));
  repo.write_file("aiter/legacy/__init__.py", "");
  repo.write_file("aiter/legacy/gemm.py", "def gemm(x):\n    pass\n");
  repo.write_file("aiter/sampling.py", k_provider_sampling);
  commits.base = repo.commit("base");
  repo.write_file("aiter/ops.py", ops("x, w, eps, residual=None", "a, b, c, d=None", "q, *, causal=False"));
  commits.compatible = repo.commit("rms_norm: optional residual");
  for (int i = 0; i < 5; ++i) {
    repo.write_file("README.md", "filler " + std::to_string(i) + "\n");
    repo.commit("docs " + std::to_string(i));
  }
  repo.write_file("aiter/ops.py",
                  ops("x, w, eps, residual=None", "a, b, *, d=None", "q, *, is_causal=False"));
  repo.remove_file("aiter/legacy/gemm.py");
  commits.breaking = repo.commit("topk without c, attn is_causal, legacy gemm deleted (#42)");
  for (int i = 0; i < 3; ++i) {
    repo.write_file("NOTES.md", "after " + std::to_string(i) + "\n");
    commits.head = repo.commit("notes " + std::to_string(i));
  }
  return commits;
}

void SyntheticConsumer::write_consumer(const std::filesystem::path& dir) {
  write(dir / "consumer" / "ops.py", k_consumer_ops);
  write(dir / "consumer" / "layer.py", k_consumer_layer);
  write(dir / "consumer" / "broken.py", "import aiter\ndef (:\n");
  write(dir / "consumer" / "plain.py", "def nothing():\n    return 1\n");
}

}  // namespace aaw::test
