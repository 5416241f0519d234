// cuda.attention.wgmma: the attention forward (docs/OPS.md "attention") on Hopper's warpgroup MMA
// (attention_wgmma_kernel.cuh). The call is read by the SDK's parse_attention and checked against
// the kernels' shared limits (attention_call.h), then against what this kernel takes: a Hopper
// device whose image of the kernel is sm_90a, fp16/bf16, D 64 or 128, a positive finite scale,
// 16-byte aligned operands. Everything else is declined with the reason (cuda.attention.flash
// takes it; the checks are attention_hopper_support.h). BSHD and varlen, causal, window, GQA/MQA, lse.
#include <opcert/sdk/checked_implementation.h>

#include <string>

#include "cuda_check.h"
#include "ops/attention_call.h"
#include "ops/attention_hopper_support.h"
#include "ops/attention_params.h"
#include "ops/attention_wgmma_kernel.cuh"

namespace opcert::cuda {
namespace {

using attn::AttentionOperands;
using attn::Dtype;

constexpr const char* kKey = "cuda.attention.wgmma";

/// The shared limits, then this kernel's.
sdk::Support support(const CudaContext& ctx, const AttentionOperands& a) {
  const sdk::Support shared = attn::kernel_limits(a);
  if (!shared.supported) return shared;
  return attn::hopper_kernel_support(ctx, a, {kKey, attn::wgmma_kernel_bf16, attn::wgmma_kernel_fp16, attn::wgmma_smem_bytes});
}

void run(CudaContext& ctx, const AttentionOperands& a) {
  if (a.tq == 0 || a.batch == 0) return;  // no query: o and lse are empty
  const attn::Params p = attn::params_of(a);
  if (attn::dtype_of(a) == Dtype::bf16) attn::launch_wgmma_bf16(p, ctx.stream);
  else attn::launch_wgmma_fp16(p, ctx.stream);
}

}  // namespace

namespace attn {

int wgmma_smem_bytes(int d) {
  switch (d) {
    case 64: return WgmmaConfigFor<64>::type::kSmemBytes;
    case 128: return WgmmaConfigFor<128>::type::kSmemBytes;
    default: return 0;
  }
}

sdk::Implementation wgmma_implementation(CudaContext& ctx) {
  return sdk::checked_implementation(
      {kKey, "attention",
       "FlashAttention forward on Hopper warpgroup MMA (wgmma, sm_90a): fp16/bf16 with D 64/128, S = Q·Kᵀ from "
       "shared memory, O += P·V with P from registers, 128-key K/V tiles in a 3-stage cp.async ring with 128-byte "
       "swizzle, softmax of tile i+1 overlapping P·V of tile i. BSHD and varlen, causal, window, GQA/MQA, lse. "
       "Compute capability 9.x only",
       OPCERT_DEVICE_CUDA},
      sdk::parse_attention, [&ctx](const AttentionOperands& a) { run(ctx, a); },
      [&ctx](const AttentionOperands& a) { return support(ctx, a); });
}

}  // namespace attn
}  // namespace opcert::cuda
