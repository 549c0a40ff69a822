// How a signature read from source and one read by importing the code (inspect.signature) are
// compared. The two spell the same thing differently: a default is the source text on one side
// (BLOCK_SIZE, 0x10, 'a') and Python's repr on the other (128, 16, 'a'); an annotation is written
// (Optional[Tensor]) on one side and printed (typing.Optional[torch.Tensor]) on the other. So they
// are compared on what both can state: parameter names, kinds, and defaults where both are
// literals; a default spelled as a name is taken as agreeing, and annotations are not compared.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/signature.hpp"

namespace aaw {

// Whether a default written in source and one Python printed can be the same value: the same text,
// the same number or string spelled differently, or a written name (its value unknown here).
bool defaults_agree(const std::optional<std::string>& written, const std::optional<std::string>& printed);

// What differs between a signature read from source and one read by import, in names, kinds and
// defaults, one line each ("parameter 2: 'b' static, 'c' runtime"); empty when they agree.
std::vector<std::string> signature_disagreements(const Signature& static_signature,
                                                 const Signature& runtime_signature);

}  // namespace aaw
