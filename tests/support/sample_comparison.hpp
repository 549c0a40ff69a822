// A comparison for the gate's renderers: `m.f` (a, b: int, *, c=1) -> (a, *, c=2): a breaking removal of 'b',
// a behavioural default change of 'c', located and with one broken consumer call site; `m.g` unchanged.
#pragma once

#include "core/compare/compare.hpp"
#include "core/compare/waivers.hpp"

namespace aaw::testing {

Comparison sample_gate_comparison();

// A waiver of change `change` of the first function of `c`, accepted by "ann" for `reason`.
Waiver waiver_of(const Comparison& c, std::size_t change = 0, const std::string& reason = "planned");

}  // namespace aaw::testing
