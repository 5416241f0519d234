// What the CUDA attention implementations (cuda.attention.flash, cuda.attention.wgmma) share about
// a call the SDK's parse_attention read (docs/OPS.md "attention"): the limits every CUDA kernel
// has, and the kernel parameters. Each implementation then adds what its own kernels take.
#pragma once

#include <opcert/sdk/backend.h>
#include <opcert/sdk/ops/attention.h>

#include "cuda_context.h"
#include "ops/attention_params.h"

namespace opcert::cuda::attn {

using sdk::AttentionOperands;

/// The launchers' dtype of a call that parsed.
Dtype dtype_of(const AttentionOperands& a);

/// The limits every CUDA attention kernel shares: D <= kSimpleMaxD, fewer than 2^30 tokens, the
/// grid's limits on heads and batch.
sdk::Support kernel_limits(const AttentionOperands& a);

/// The kernel parameters of a call that parsed (its tensors must have data).
Params params_of(const AttentionOperands& a);

/// True when the softmax scale is one the tensor-core kernels take: positive and finite, also in
/// log2 units (their running max is taken over raw scores).
bool positive_scale(const AttentionOperands& a);

/// True when every operand with data is 16-byte aligned (operands without data count as aligned:
/// a query may come without buffers).
bool aligned16(const AttentionOperands& a);

/// cuda.attention.wgmma (attention_wgmma.cu), registered beside cuda.attention.flash.
sdk::Implementation wgmma_implementation(CudaContext& ctx);

}  // namespace opcert::cuda::attn
