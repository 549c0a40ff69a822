// Calls through torch.ops.<package>.<op>: bound like any call, against the function that registers
// the op at the commit checked (OpRegistry). The scan lists them as not checked; this moves each
// one whose op is registered by a plain function into that function's call sites, and says for the
// others why they stay unchecked.
#pragma once

#include "core/consumer/consumer.hpp"
#include "core/ports/op_registry.hpp"

namespace aaw {

// `scan` with its torch.ops calls resolved at `commit`: each op registered by a function becomes
// a call site of it (reached "through torch.ops.aiter.op, registered by ..."); an op registered
// nowhere, or whose schema adds a leading tensor, stays unchecked with the reason in its `what`.
// The registry is asked only when the scan has such calls.
Result<ConsumerScan> with_registered_ops(const ConsumerScan& scan, OpRegistry& registry,
                                         const ObjectId& commit);

}  // namespace aaw
