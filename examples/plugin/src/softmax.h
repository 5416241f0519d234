// The example's one op: softmax over the last dimension, fp32, fp16 or bf16 in and out, fp32 math.
#pragma once

#include <opcert/sdk/backend.h>

namespace example_npu {

/// "example_npu.softmax.reference". Its query takes what the SDK's softmax parser accepts
/// (docs/OPS.md "softmax": input "x" of rank >= 1, output "y" of x's shape and dtype, dense, in the
/// NPU's memory) and, of that, what this kernel handles: fp32, fp16, bf16 on device other:0, over the last
/// dimension. Everything else is declined with a reason a person can act on (SKIPPED in reports).
/// Its run computes y = softmax(x) from the parsed operands.
opcert::sdk::Implementation softmax_implementation();

}  // namespace example_npu
