// The example's one op: softmax over the last dimension, fp32 in and out, fp32 math.
#pragma once

#include <opcert/sdk/backend.h>

namespace example_npu {

/// Whether the call is one this kernel handles: input "x" and output "y", both fp32, contiguous,
/// of one shape with at least one dimension, on the NPU. When not, a reason a person can act on.
opcert::sdk::Support softmax_query(const opcert::sdk::OpCall& call);

/// y = softmax(x) along the last dimension. Called only for calls softmax_query accepted.
void softmax_run(const opcert::sdk::OpCall& call);

}  // namespace example_npu
