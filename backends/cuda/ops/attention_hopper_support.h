// What the Hopper attention keys (cuda.attention.wgmma, cuda.attention.warpspec and its fp8 form) require of a call
// that parsed and is within the shared kernel limits: a compute capability 9.x device whose image
// of the kernel is sm_90a, fp16/bf16, head dim 64 or 128, a positive finite scale, 16-byte aligned
// operands and the kernel's shared memory. Each key adds its own conditions after these.
#pragma once

#include <opcert/sdk/backend.h>

#include <string>

#include "cuda_context.h"
#include "ops/attention_call.h"

namespace opcert::cuda::attn {

/// A Hopper attention kernel as its key's support check sees it: per-dtype kernel images for head
/// dim d (null for a d it does not take) and its dynamic shared memory for d.
struct HopperKernel {
  const char* key;
  const void* (*kernel_bf16)(int d);
  const void* (*kernel_fp16)(int d);
  int (*smem_bytes)(int d);
};

/// Support::yes() when `kernel` takes the call on this device, else the reason, naming the key.
sdk::Support hopper_kernel_support(const CudaContext& ctx, const AttentionOperands& a, const HopperKernel& kernel);

/// What the warp-specialized kernels' TMA tensor maps need, naming `key`: BSHD (a map ends each
/// sequence), at least one key (a map has no empty dimension), every byte stride of q, k, v
/// below 2^40 (fp8's transposed V counts its keys padded to 32), and at most 2^30 blocks on their
/// 1-d grid.
sdk::Support tma_limits(const AttentionOperands& a, const std::string& key);

}  // namespace opcert::cuda::attn
