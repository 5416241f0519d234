#include "ops/attention_hopper_support.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "ops/launch_common.cuh"

namespace opcert::cuda::attn {

sdk::Support hopper_kernel_support(const CudaContext& ctx, const AttentionOperands& a, const HopperKernel& kernel) {
  const std::string key(kernel.key);
  const cudaDeviceProp& props = ctx.props;
  const Dtype dtype = dtype_of(a);
  if (props.major != 9)
    return sdk::Support::no(key + " runs on Hopper (compute capability 9.x) only, this device is " +
                            std::to_string(props.major) + "." + std::to_string(props.minor));
  if (dtype == Dtype::f32) return sdk::Support::no(key + " takes fp16/bf16 only (fp32: cuda.attention.flash)");
  if (a.d != 64 && a.d != 128)
    return sdk::Support::no(key + " takes head dim D 64 or 128, not " + std::to_string(a.d) +
                            " (cuda.attention.flash takes 1 to 256)");
  if (!positive_scale(a))
    return sdk::Support::no(key + " needs a positive finite softmax scale (its running max is over raw scores)");
  if (!aligned16(a)) return sdk::Support::no(key + " needs q, k, v and o 16-byte aligned");
  const int d = static_cast<int>(a.d);
  const int smem = kernel.smem_bytes(d);
  if (static_cast<std::size_t>(smem) + 256 > props.sharedMemPerBlockOptin)  // (+ its static bytes)
    return sdk::Support::no(key + " needs " + std::to_string(smem) + " bytes of shared memory a block, the device allows " +
                            std::to_string(props.sharedMemPerBlockOptin));
  // A build without 90a in CMAKE_CUDA_ARCHITECTURES would leave only the trapping image.
  const void* image = dtype == Dtype::bf16 ? kernel.kernel_bf16(d) : kernel.kernel_fp16(d);
  if (const std::string problem = kernel_image_problem(ctx.device, image, 90, key); !problem.empty())
    return sdk::Support::no(problem);
  return sdk::Support::yes();
}

sdk::Support tma_limits(const AttentionOperands& a, const std::string& key) {
  if (a.varlen())
    return sdk::Support::no(key + " takes BSHD only: its tensor maps end each sequence, a varlen call's sequences "
                                  "share one (cuda.attention.wgmma takes varlen)");
  if (a.skv == 0 && a.sq > 0)
    return sdk::Support::no(key + " needs at least one key (a tensor map has no empty dimension; "
                                  "cuda.attention.flash writes the empty rows)");
  const int64_t element_bytes = a.fp8() ? 1 : 2, keys = a.fp8() ? (a.skv + 31) / 32 * 32 : a.skv;
  if (std::max(a.sq * a.hq, keys * a.hkv) * a.d * element_bytes >= (int64_t{1} << 40))
    return sdk::Support::no(key + " needs each batch entry of q, k, v below 2^40 bytes (a TMA stride)");
  // A 1-d grid of one CTA per 64-row (or taller) query tile of each head (attention_ws_walk.h); 2^30
  // leaves a persistent CTA's int tile index room to step past the last tile.
  if (const int64_t ctas = (a.sq + 63) / 64 * a.hq * a.batch; ctas > (int64_t{1} << 30))
    return sdk::Support::no(key + " walks its query tiles on a 1-d grid of at most 2^30 blocks, this call has up to " +
                            std::to_string(ctas) + " (split the batch)");
  return sdk::Support::yes();
}

}  // namespace opcert::cuda::attn
