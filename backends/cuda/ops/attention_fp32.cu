// The simple attention kernel: fp32 math, no tensor cores, every dtype and any head dim up to 256.
// It takes fp32 and whatever the tensor-core kernel does not (another D, a non-positive scale,
// unaligned operands). One warp per (query token, query head): the 32 lanes score 32 keys at a
// time (each lane one key, the dot product over D in fp32), an online softmax over the chunks
// (max and sum of the scaled scores, expf), and the lanes accumulate o over D (lane owns
// d = lane + 32c). p is kept in fp32 (not rounded to T); o is rounded once.
#include <cuda_runtime.h>

#include <cmath>

#include "cuda_check.h"
#include "ops/attention_common.cuh"

namespace opcert::cuda::attn {
namespace {

constexpr int kWarpsPerBlock = 4;
constexpr int kChunks = kSimpleMaxD / 32;  // o columns per lane

__device__ inline float warp_max(float v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}
__device__ inline float warp_sum(float v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

/// The sequence holding query token t of a varlen call: the last b with cu_q[b] <= t (empty
/// sequences share their start with the next one, so the last such b is the non-empty one).
__device__ inline int varlen_seq_of_token(const Params& p, int64_t t) {
  int lo = 0, hi = p.batch - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (p.cu_q[mid] <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

template <class T>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    attention_rowwise_kernel(const Params p, int64_t rows) {
  __shared__ float q_smem[kWarpsPerBlock][kSimpleMaxD];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t row = int64_t{blockIdx.x} * kWarpsPerBlock + warp;  // query token (BSHD: b * sq + i)
  if (row >= rows) return;
  const int h = blockIdx.y;
  const int kvh = h / p.group;
  const int D = p.d;

  Seq s;
  int i = 0;
  if (p.cu_q != nullptr) {
    const int b = varlen_seq_of_token(p, row);
    s = varlen_seq(p, b);
    i = static_cast<int>(row - s.q_start);
    if (i < 0 || i >= s.sq) return;  // only with malformed cu_seqlens: the token belongs to no sequence
  } else {
    const int b = static_cast<int>(row / p.sq);
    s = bshd_seq(p, b);
    i = static_cast<int>(row - s.q_start);
  }
  const int64_t q_token = s.q_start + i;

  const T* q = static_cast<const T*>(p.q) + (q_token * p.hq + h) * D;
  float* qs = q_smem[warp];
  for (int d = lane; d < D; d += 32) qs[d] = to_f32(q[d]);
  __syncwarp();

  const KeyRange range = allowed_keys(p, s.sq, s.skv, i);
  const T* kbase = static_cast<const T*>(p.k);
  const T* vbase = static_cast<const T*>(p.v);
  const int64_t kv_stride = int64_t{p.hkv} * D;

  float m = -INFINITY, l = 0.0f;
  float acc[kChunks];
#pragma unroll
  for (int c = 0; c < kChunks; ++c) acc[c] = 0.0f;

  for (int j0 = range.lo; j0 <= range.hi; j0 += 32) {
    const int j = j0 + lane;
    const bool valid = j <= range.hi;
    float sc = -INFINITY;
    if (valid) {
      const T* kr = kbase + (s.k_start + j) * kv_stride + int64_t{kvh} * D;
      float dot = 0.0f;
      for (int d = 0; d < D; ++d) dot = fmaf(qs[d], to_f32(kr[d]), dot);
      sc = dot * p.scale;
    }
    const float m_new = fmaxf(m, warp_max(sc));
    const float m_use = m_new == -INFINITY ? 0.0f : m_new;  // no finite score yet: keep exp() of -inf at 0
    const float alpha = expf(m - m_use);
    const float pj = valid ? expf(sc - m_use) : 0.0f;
    l = l * alpha + warp_sum(pj);
    m = m_new;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) acc[c] *= alpha;
    const int count = min(32, range.hi - j0 + 1);
    for (int kk = 0; kk < count; ++kk) {
      const float pk = __shfl_sync(0xffffffffu, pj, kk);
      const T* vr = vbase + (s.k_start + j0 + kk) * kv_stride + int64_t{kvh} * D;
#pragma unroll
      for (int c = 0; c < kChunks; ++c) {
        const int d = lane + 32 * c;
        if (d < D) acc[c] = fmaf(pk, to_f32(vr[d]), acc[c]);
      }
    }
  }

  // A query with no allowed key (l == 0) gives zeros and lse = -inf; a NaN anywhere propagates.
  const bool no_key = l == 0.0f;
  const float inv = no_key ? 0.0f : 1.0f / l;
  T* o = static_cast<T*>(p.o) + (q_token * p.hq + h) * D;
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    const int d = lane + 32 * c;
    if (d < D) o[d] = from_f32<T>(no_key ? 0.0f : acc[c] * inv);
  }
  if (p.lse != nullptr && lane == 0)
    p.lse[s.lse_base + int64_t{h} * s.lse_head_stride + i] = no_key ? -INFINITY : m + logf(l);
}

template <class T>
void launch_rowwise(const Params& p, cudaStream_t stream) {
  const int64_t rows = p.cu_q != nullptr ? p.tq : int64_t{p.batch} * p.sq;
  if (rows == 0 || p.hq == 0) return;
  const dim3 grid(static_cast<unsigned>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock), static_cast<unsigned>(p.hq));
  attention_rowwise_kernel<T><<<grid, kWarpsPerBlock * 32, 0, stream>>>(p, rows);
  OPCERT_CUDA_CHECK_LAUNCH("attention_rowwise_kernel");
}

}  // namespace

void launch_simple(const Params& p, Dtype dtype, cudaStream_t stream) {
  switch (dtype) {
    case Dtype::f32: launch_rowwise<float>(p, stream); break;
    case Dtype::f16: launch_rowwise<__half>(p, stream); break;
    case Dtype::bf16: launch_rowwise<__nv_bfloat16>(p, stream); break;
  }
}

}  // namespace opcert::cuda::attn
