// The operands of an attention call checked against the contract (docs/OPS.md "attention"), shared
// by the CUDA attention implementations (cuda.attention.flash, cuda.attention.wgmma): one parser,
// then each implementation adds what its kernels take.
#pragma once

#include <opcert/sdk/call_check.h>

#include <cstdint>
#include <optional>

#include "cuda_context.h"
#include "ops/attention_params.h"

namespace opcert::cuda::attn {

/// The operands of one call, checked against the contract (mirrors cpu.attention.flash).
struct AttentionCall {
  std::optional<sdk::Tensor> q, k, v, o, lse, cu_q, cu_k;
  bool varlen = false;
  int64_t batch = 0, sq = 0, skv = 0, tq = 0, tk = 0;
  int64_t hq = 0, hkv = 0, d = 0;
  double scale = 1.0;
  bool causal = false;
  int64_t window_left = -1;
  Dtype dtype = Dtype::f32;
};

/// Checks the call (records the first problem in `check`), including the limits every CUDA
/// attention kernel shares: 1 <= D <= kSimpleMaxD, fewer than 2^30 tokens, grid limits.
AttentionCall parse_call(const sdk::OpCall& call, sdk::CallCheck& check);

/// The kernel parameters of a checked call (its tensors must have data).
Params params_of(const AttentionCall& a);

/// True when the softmax scale is one the tensor-core kernels take: positive and finite, also in
/// log2 units (their running max is taken over raw scores).
bool positive_scale(const AttentionCall& a);

/// True when every operand with data is 16-byte aligned (operands without data count as aligned:
/// a query may come without buffers).
bool aligned16(const AttentionCall& a);

/// cuda.attention.wgmma (attention_wgmma.cu), registered beside cuda.attention.flash.
sdk::Implementation wgmma_implementation(CudaContext& ctx);

}  // namespace opcert::cuda::attn
