// Device helpers shared by the attention kernels: finding a CTA's sequence (BSHD or varlen, with
// cu_seqlens read on the device), element conversions, and the key range of a query under the
// bottom-right causal mask and the sliding window (docs/OPS.md "attention").
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "ops/attention_params.h"
#include "ops/vector_io.cuh"

namespace opcert::cuda::attn {

/// One sequence of the call: token offsets and lengths, and where its lse row starts
/// (lse index of query i of head h = lse_base + h * lse_head_stride + i).
struct Seq {
  int64_t q_start = 0, k_start = 0;
  int sq = 0, skv = 0;
  int64_t lse_base = 0, lse_head_stride = 0;
};

/// Sequence b of a varlen call; cu_seqlens are clamped to the tensors so that malformed offsets
/// cannot move an access outside q/k/v/o.
__device__ inline int64_t clamp64(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : (x > hi ? hi : x); }

__device__ inline Seq varlen_seq(const Params& p, int b) {
  Seq s;
  const int64_t q0 = clamp64(p.cu_q[b], 0, p.tq), q1 = clamp64(p.cu_q[b + 1], q0, p.tq);
  const int64_t k0 = clamp64(p.cu_k[b], 0, p.tk), k1 = clamp64(p.cu_k[b + 1], k0, p.tk);
  s.q_start = q0;
  s.sq = static_cast<int>(q1 - q0);
  s.k_start = k0;
  s.skv = static_cast<int>(k1 - k0);
  s.lse_base = q0;
  s.lse_head_stride = p.tq;
  return s;
}

__device__ inline Seq bshd_seq(const Params& p, int b) {
  Seq s;
  s.q_start = int64_t{b} * p.sq;
  s.sq = p.sq;
  s.k_start = int64_t{b} * p.skv;
  s.skv = p.skv;
  s.lse_base = int64_t{b} * p.hq * p.sq;
  s.lse_head_stride = p.sq;
  return s;
}

/// Varlen tiles are numbered over the sequences in order, sequence b owning ceil(sq_b / block_m)
/// consecutive tile numbers. Finds the sequence and the tile within it of tile number `t`
/// (a warp-wide scan over cu_seqlens_q, 32 sequences per step). Every lane of the warp must call
/// it; all get the same answer. Returns false when t is past the last tile.
__device__ inline bool varlen_find_tile(const Params& p, int block_m, int64_t t, int& seq, int& tile) {
  const int lane = threadIdx.x & 31;
  int64_t base = 0;
  for (int b0 = 0; b0 < p.batch; b0 += 32) {
    const int b = b0 + lane;
    int n = 0;
    if (b < p.batch) {
      const int sq = varlen_seq(p, b).sq;
      n = (sq + block_m - 1) / block_m;
    }
    int incl = n;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const int v = __shfl_up_sync(0xffffffffu, incl, off);
      if (lane >= off) incl += v;
    }
    const int excl = incl - n;
    const unsigned hit = __ballot_sync(0xffffffffu, n > 0 && t >= base + excl && t < base + incl);
    if (hit != 0) {
      const int src = __ffs(hit) - 1;
      seq = b0 + src;
      tile = static_cast<int>(t - base - __shfl_sync(0xffffffffu, excl, src));
      return true;
    }
    base += __shfl_sync(0xffffffffu, incl, 31);
  }
  return false;
}

/// Keys [lo, hi] (inclusive; empty when lo > hi) that query i of a sequence may attend.
struct KeyRange {
  int lo, hi;
};
__device__ inline KeyRange allowed_keys(const Params& p, int sq, int skv, int i) {
  const int diagonal = i + (skv - sq);
  const int lo = p.window_left >= 0 ? max(0, diagonal - p.window_left) : 0;
  const int hi = p.causal ? min(skv - 1, diagonal) : skv - 1;
  return {lo, hi};
}

// dtype <-> fp32 conversions: the backend's one set, in vector_io.cuh.
using vio::from_f32;
using vio::to_f32;

}  // namespace opcert::cuda::attn
