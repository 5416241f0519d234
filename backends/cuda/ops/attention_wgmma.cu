// cuda.attention.wgmma: the attention forward (docs/OPS.md "attention") on Hopper's warpgroup MMA
// (attention_wgmma_kernel.cuh). The call is read by the SDK's parse_attention and checked against
// the kernels' shared limits (attention_call.h), then against what this kernel takes: a Hopper
// device whose image of the kernel is sm_90a, fp16/bf16, D 64 or 128, a positive finite scale,
// 16-byte aligned operands. Everything else is declined with the reason (cuda.attention.flash
// takes it). BSHD and varlen, causal, window, GQA/MQA, lse.
#include <opcert/sdk/checked_implementation.h>

#include <string>

#include "cuda_check.h"
#include "ops/attention_call.h"
#include "ops/attention_params.h"
#include "ops/attention_wgmma_kernel.cuh"
#include "ops/launch_common.cuh"

namespace opcert::cuda {
namespace {

using attn::AttentionOperands;
using attn::Dtype;

constexpr const char* kKey = "cuda.attention.wgmma";

/// Whether the Hopper kernel takes a call that parsed and is within the shared kernel limits.
sdk::Support wgmma_support(const CudaContext& ctx, const AttentionOperands& a) {
  const cudaDeviceProp& props = ctx.props;
  const Dtype dtype = attn::dtype_of(a);
  if (props.major != 9)
    return sdk::Support::no(std::string(kKey) + " runs on Hopper (compute capability 9.x) only, this device is " +
                            std::to_string(props.major) + "." + std::to_string(props.minor));
  if (dtype == Dtype::f32) return sdk::Support::no(std::string(kKey) + " takes fp16/bf16 only (fp32: cuda.attention.flash)");
  if (a.d != 64 && a.d != 128)
    return sdk::Support::no(std::string(kKey) + " takes head dim D 64 or 128, not " + std::to_string(a.d) +
                            " (cuda.attention.flash takes 1 to 256)");
  if (!attn::positive_scale(a))
    return sdk::Support::no(std::string(kKey) + " needs a positive finite softmax scale (its running max is over raw scores)");
  if (!attn::aligned16(a)) return sdk::Support::no(std::string(kKey) + " needs q, k, v and o 16-byte aligned");
  const int d = static_cast<int>(a.d);
  const int smem = attn::wgmma_smem_bytes(d);
  if (static_cast<std::size_t>(smem) + 256 > props.sharedMemPerBlockOptin)  // (+ its static bytes)
    return sdk::Support::no(std::string(kKey) + " needs " + std::to_string(smem) +
                            " bytes of shared memory a block, the device allows " +
                            std::to_string(props.sharedMemPerBlockOptin));
  // A build without 90a in CMAKE_CUDA_ARCHITECTURES would leave only the trapping image.
  const std::string problem = kernel_image_problem(
      ctx.device, dtype == Dtype::bf16 ? attn::wgmma_kernel_bf16(d) : attn::wgmma_kernel_fp16(d), 90, kKey);
  if (!problem.empty()) return sdk::Support::no(problem);
  return sdk::Support::yes();
}

/// The shared limits, then this kernel's.
sdk::Support support(const CudaContext& ctx, const AttentionOperands& a) {
  const sdk::Support shared = attn::kernel_limits(a);
  return shared.supported ? wgmma_support(ctx, a) : shared;
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
