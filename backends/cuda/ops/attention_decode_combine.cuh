// The merge kernel of cuda.attention.decode: when a sequence's keys were split across CTAs, each
// (query token, query head) row has one partial o (fp32, normalised by that split's own sum) and
// one partial lse per split (attention_decode_kernel.cuh). The row's result is
//   lse = M + log Σ_s exp(lse_s - M),  o = Σ_s exp(lse_s - lse) · o_s   (M = max_s lse_s),
// taken here as an online merge: a block's threads take 4 columns of a row each, and kGroups
// groups of them take every kGroups-th split (independent loads in flight), then the groups are
// merged through shared memory in a fixed order. A row no split saw a key for gets o = 0 and
// lse = -inf. Launched, where the device allows, as a programmatic dependent of the split kernel
// (its launch overlaps that kernel's tail; it waits for it before reading).
#pragma once

#include <cstdint>

#include "ops/attention_common.cuh"
#include "ops/attention_decode_kernel.cuh"
#include "ops/attention_flash_kernel.cuh"

namespace opcert::cuda::attn {

template <int kD_>
struct DecodeCombineConfig {
  static constexpr int kD = kD_, kThreads = 128;
  static constexpr int kLanes = kD / 4;                                          // threads per row
  static constexpr int kGroups = kThreads / kLanes >= 4 ? 4 : kThreads / kLanes;  // split groups
  static constexpr int kRows = kThreads / (kLanes * kGroups);                    // rows per block
  static_assert(kRows >= 1 && kRows * kLanes * kGroups == kThreads);
};

/// One split's contribution to a running (max, sum, o): nothing for an empty split (lse -inf).
struct RunningMerge {
  float m = -INFINITY, sum = 0.0f;
  float o[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  __device__ void add(float lse, const float4& v) {
    if (lse == -INFINITY) return;
    const float m_new = fmaxf(m, lse);
    const float a = expf(m - m_new), w = expf(lse - m_new);  // m = -inf: a = 0
    sum = sum * a + w;
    o[0] = o[0] * a + w * v.x, o[1] = o[1] * a + w * v.y, o[2] = o[2] * a + w * v.z, o[3] = o[3] * a + w * v.w;
    m = m_new;
  }
};

template <class T, int D>
__global__ void __launch_bounds__(DecodeCombineConfig<D>::kThreads)
    attention_decode_combine_kernel(const Params p, const DecodeOut in) {
  using Cfg = DecodeCombineConfig<D>;
  constexpr int G = Cfg::kGroups, R = Cfg::kRows, L = Cfg::kLanes;
  __shared__ float s_m[R][G], s_sum[R][G];
  __shared__ float4 s_o[R][G][L];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");  // the split kernel has completed
#endif
  const int lane = threadIdx.x % L, grp = (threadIdx.x / L) % G, rr = threadIdx.x / (L * G);
  const int64_t row = int64_t{blockIdx.x} * R + rr;  // query token * hq + query head
  const bool live = row < p.tq * p.hq;
  const int splits = in.splits;

  RunningMerge run;
  if (live) {
    const float* lse = in.lse_part + row * splits;
    const float* o = in.o_part + row * splits * D + 4 * lane;
#pragma unroll 4
    for (int s = grp; s < splits; s += G) run.add(lse[s], *reinterpret_cast<const float4*>(o + int64_t{s} * D));
  }
  s_m[rr][grp] = run.m;
  s_sum[rr][grp] = run.sum;
  s_o[rr][grp][lane] = make_float4(run.o[0], run.o[1], run.o[2], run.o[3]);
  __syncthreads();
  if (!live || grp != 0) return;

  float m_all = -INFINITY;
#pragma unroll
  for (int k = 0; k < G; ++k) m_all = fmaxf(m_all, s_m[rr][k]);
  // A group that saw no key has m = -inf and weighs 0; one whose splits had a NaN lse kept m = -inf
  // (fmaxf skips NaN) but a NaN sum, which 0 · NaN carries on.
  float sum = 0.0f, o[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int k = 0; k < G; ++k) {
    const float f = s_m[rr][k] == -INFINITY ? 0.0f : expf(s_m[rr][k] - m_all);
    const float4 v = s_o[rr][k][lane];
    sum += s_sum[rr][k] * f;
    o[0] += v.x * f, o[1] += v.y * f, o[2] += v.z * f, o[3] += v.w * f;
  }
  // No key in any split: o = 0, lse = -inf (NaN in a sum propagates through the division).
  const float inv = sum == 0.0f ? 0.0f : 1.0f / sum;
  const uint2 packed = make_uint2(pack2<T>(o[0] * inv, o[1] * inv), pack2<T>(o[2] * inv, o[3] * inv));
  *reinterpret_cast<uint2*>(static_cast<T*>(p.o) + row * D + 4 * lane) = packed;
  if (p.lse != nullptr && lane == 0) {
    const int64_t token = row / p.hq;
    const int head = static_cast<int>(row % p.hq);
    // lse is [B, hq, sq] (BSHD) or [hq, tq] (varlen).
    const int64_t at = p.cu_q != nullptr ? int64_t{head} * p.tq + token
                                         : (token / p.sq) * p.hq * p.sq + int64_t{head} * p.sq + token % p.sq;
    p.lse[at] = sum == 0.0f ? -INFINITY : m_all + logf(sum);
  }
}

}  // namespace opcert::cuda::attn
