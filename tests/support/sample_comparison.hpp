// A comparison for the gate's renderers: `m.f` with a breaking removal of 'b' and a behavioural
// default change of 'c', located and with one broken consumer call site; `m.g` unchanged.
#pragma once

#include "aaw/core/compare.hpp"

namespace aaw::testing {

Comparison sample_gate_comparison();

}  // namespace aaw::testing
