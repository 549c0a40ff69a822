// A comparison for the gate's renderers: `m.f` (a, b: int, *, c=1) -> (a, *, c=2): a breaking removal of 'b',
// a behavioural default change of 'c', located and with one broken consumer call site; `m.g` unchanged.
#pragma once

#include "aaw/core/compare.hpp"

namespace aaw::testing {

Comparison sample_gate_comparison();

}  // namespace aaw::testing
