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

/// The launchers' dtype of a call that parsed and passed kernel_limits (never fp8).
Dtype dtype_of(const AttentionOperands& a);

/// The limits every CUDA fp16/bf16/fp32 attention kernel shares: no fp8 inputs (declined with the
/// reason), D <= kSimpleMaxD, fewer than 2^30 tokens, the grid's limits on heads and batch.
sdk::Support kernel_limits(const AttentionOperands& a);
/// kernel_limits less the dtype: what the fp8 kernel shares with the others.
sdk::Support shape_limits(const AttentionOperands& a);

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
/// cuda.attention.warpspec (attention_ws.cu) and cuda.attention.warpspec_fp8 (attention_ws_fp8.cu),
/// registered beside them.
sdk::Implementation warpspec_implementation(CudaContext& ctx);
sdk::Implementation warpspec_fp8_implementation(CudaContext& ctx);
/// cuda.attention.flash_fp8 (attention_fp8_dequant.cu): fp8 through bf16 dequantization and the
/// flash kernels, for the fp8 calls the warp-specialized kernel does not take.
sdk::Implementation flash_fp8_implementation(CudaContext& ctx);

}  // namespace opcert::cuda::attn
