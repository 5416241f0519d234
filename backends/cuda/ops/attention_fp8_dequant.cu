// cuda.attention.flash_fp8: fp8 e4m3 attention (docs/OPS.md "attention", fp8 form) for every call
// cuda.attention.warpspec_fp8 does not take (other head dims, varlen, devices before Hopper): q, k
// and v are dequantized with their descales into bf16 scratch, then cuda.attention.flash's kernels
// run in bf16 and write o (bf16) and lse. The same decomposition as the torch peer's (docs/PEER.md),
// on the CUDA backend's own kernels; its error is inside the fp8 bound (docs/TOLERANCES.md).
#include <opcert/sdk/checked_implementation.h>

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <string>

#include "cuda_check.h"
#include "ops/attention_call.h"
#include "ops/attention_params.h"

namespace opcert::cuda {
namespace attn {
namespace {

constexpr const char* kKey = "cuda.attention.flash_fp8";
constexpr unsigned kDequantBlocksPerSeq = 64, kDequantThreads = 256;

/// y = x · descale[b, h / group] in bf16 for the tokens of sequence b = blockIdx.x: BSHD when cu is
/// null (seq_tokens each), else varlen (cu_seqlens, clamped to the tensor as the kernels do).
__global__ void dequantize_e4m3_kernel(const __nv_fp8_e4m3* x, __nv_bfloat16* y, const float* descale,
                                       const int32_t* cu, int64_t seq_tokens, int64_t total_tokens, int heads,
                                       int group, int d, int hkv) {
  const int b = blockIdx.x;
  int64_t t0 = int64_t{b} * seq_tokens, t1 = t0 + seq_tokens;
  if (cu != nullptr) {
    t0 = min(max(int64_t{cu[b]}, int64_t{0}), total_tokens);
    t1 = min(max(int64_t{cu[b + 1]}, t0), total_tokens);
  }
  const int64_t row = int64_t{heads} * d, n = (t1 - t0) * row, base = t0 * row;
  for (int64_t i = int64_t{blockIdx.y} * blockDim.x + threadIdx.x; i < n; i += int64_t{gridDim.y} * blockDim.x) {
    const int h = static_cast<int>((i % row) / d);
    const float f = descale != nullptr ? descale[int64_t{b} * hkv + h / group] : 1.0f;
    y[base + i] = __float2bfloat16(static_cast<float>(x[base + i]) * f);
  }
}

void dequantize(const void* x, __nv_bfloat16* y, const float* descale, const int32_t* cu, int64_t seq_tokens,
                int64_t total_tokens, int heads, int group, int d, int batch, int hkv, cudaStream_t stream) {
  dequantize_e4m3_kernel<<<dim3(static_cast<unsigned>(batch), kDequantBlocksPerSeq), kDequantThreads, 0, stream>>>(
      static_cast<const __nv_fp8_e4m3*>(x), y, descale, cu, seq_tokens, total_tokens, heads, group, d, hkv);
  OPCERT_CUDA_CHECK_LAUNCH("dequantize_e4m3_kernel");
}

sdk::Support support(const AttentionOperands& a) {
  if (!a.fp8())
    return sdk::Support::no(std::string(kKey) + " takes fp8_e4m3fn q, k and v only (cuda.attention.flash takes the rest)");
  return shape_limits(a);
}

void run(CudaContext& ctx, const AttentionOperands& a) {
  if (a.tq == 0 || a.batch == 0) return;  // no query: o and lse are empty
  Params p = params_of(a);
  const std::size_t q_elems = static_cast<std::size_t>(a.tq * a.hq * a.d), kv_elems = static_cast<std::size_t>(a.tk * a.hkv * a.d);
  auto* scratch = static_cast<__nv_bfloat16*>(ctx.scratch.get((q_elems + 2 * kv_elems) * sizeof(__nv_bfloat16) + 64));
  __nv_bfloat16 *q = scratch, *k = q + q_elems, *v = k + kv_elems;
  const int batch = static_cast<int>(a.batch);
  dequantize(p.q, q, p.q_descale, p.cu_q, a.sq, a.tq, p.hq, p.group, p.d, batch, p.hkv, ctx.stream);
  dequantize(p.k, k, p.k_descale, p.cu_k, a.skv, a.tk, p.hkv, 1, p.d, batch, p.hkv, ctx.stream);
  dequantize(p.v, v, p.v_descale, p.cu_k, a.skv, a.tk, p.hkv, 1, p.d, batch, p.hkv, ctx.stream);
  p.q = q;
  p.k = k;
  p.v = v;
  // cuda.attention.flash's choice for a bf16 call: its tensor-core kernel where it takes the shape.
  const int smem = flash_smem_bytes(p.d);
  const bool tensor_cores = smem != 0 && static_cast<std::size_t>(smem) + 256 <= ctx.props.sharedMemPerBlockOptin &&
                            positive_scale(a) && (reinterpret_cast<std::uintptr_t>(p.o) & 15u) == 0 &&
                            (q_elems % 8 == 0 && kv_elems % 8 == 0);  // (k and v start 16-byte aligned)
  if (tensor_cores) launch_flash(p, Dtype::bf16, ctx.stream);
  else launch_simple(p, Dtype::bf16, ctx.stream);
}

}  // namespace

sdk::Implementation flash_fp8_implementation(CudaContext& ctx) {
  return sdk::checked_implementation(
      {kKey, "attention",
       "fp8 e4m3 attention for every call the warp-specialized fp8 kernel does not take: q, k, v dequantized with "
       "their descales into bf16 scratch, then cuda.attention.flash's kernels in bf16 (o bf16). BSHD and varlen, any "
       "D up to 256, causal, window, GQA/MQA, lse",
       OPCERT_DEVICE_CUDA},
      sdk::parse_attention, [&ctx](const AttentionOperands& a) { run(ctx, a); }, support);
}

}  // namespace attn
}  // namespace opcert::cuda
