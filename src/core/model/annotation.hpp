// When two annotations mean the same type: `Optional[X]`, `Union[X, None]`, `X | None` and
// `None | X`; `List[int]` and `list[int]` (and the other PEP 585 pairs); `typing.X` and `X`; a
// string annotation and its unquoted form; the members of a union in any order. An annotation
// rewritten that way is no change for a caller, so the diff does not report it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace aaw {

// The annotation's text (as ast.unparse prints it) in one spelling per meaning:
// "Optional[torch.Tensor]" and "torch.Tensor | None" both give "None | torch.Tensor". Text the
// small type-expression grammar here does not read is returned as it is, so it compares verbatim.
std::string canonical_annotation(std::string_view text);

// Both absent, or both present and canonically equal.
bool same_annotation(const std::optional<std::string>& a, const std::optional<std::string>& b);

}  // namespace aaw
