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

/// The query tile of a CTA of an attention kernel (grid of attention_grid(p, bm)): its sequence,
/// its rows, its operands and the keys some query of it may see.
template <class T>
struct CtaTile {
  Seq s;
  int h = 0;
  int m0 = 0;      // first query row of the tile in the sequence
  int rows = 0;    // valid query rows of the tile
  int offset = 0;  // query i's diagonal key is i + offset
  int64_t q_stride = 0, kv_stride = 0;  // elements between tokens
  const T* q = nullptr;  // query row m0, head h
  T* o = nullptr;
  const T* k = nullptr;  // key 0 of the sequence, head h / group
  const T* v = nullptr;
  float* lse = nullptr;  // lse of query row m0 of head h (null: not requested)
  int key_lo = 0, key_hi = 0;  // keys [key_lo, key_hi) that some query of the tile may see
};

/// Fills in tile `t` of sequence t.s (already set): query rows from m_block * bm, head h.
template <class T, int D>
__device__ inline void fill_tile(const Params& p, int bm, int m_block, int h, CtaTile<T>& t) {
  t.h = h;
  const int kvh = t.h / p.group;
  t.m0 = m_block * bm;
  t.rows = min(bm, t.s.sq - t.m0);
  t.offset = t.s.skv - t.s.sq;
  t.q_stride = int64_t{p.hq} * D;
  t.kv_stride = int64_t{p.hkv} * D;
  t.q = static_cast<const T*>(p.q) + (t.s.q_start + t.m0) * t.q_stride + int64_t{t.h} * D;
  t.o = static_cast<T*>(p.o) + (t.s.q_start + t.m0) * t.q_stride + int64_t{t.h} * D;
  t.k = static_cast<const T*>(p.k) + t.s.k_start * t.kv_stride + int64_t{kvh} * D;
  t.v = static_cast<const T*>(p.v) + t.s.k_start * t.kv_stride + int64_t{kvh} * D;
  t.lse = p.lse != nullptr ? p.lse + t.s.lse_base + int64_t{t.h} * t.s.lse_head_stride + t.m0 : nullptr;
  t.key_lo = p.window_left >= 0 ? max(0, t.m0 + t.offset - p.window_left) : 0;
  t.key_hi = p.causal ? min(t.s.skv, t.m0 + t.rows - 1 + t.offset + 1) : t.s.skv;
}

/// The tile of this CTA; false when the CTA has none (varlen grids have spare CTAs). Tiles are
/// numbered from the last one so that the costliest causal tiles start first.
template <class T, int D>
__device__ inline bool cta_tile(const Params& p, int bm, CtaTile<T>& t) {
  int m_block = 0;
  if (p.cu_q != nullptr) {
    int b = 0, tile = 0;
    if (!varlen_find_tile(p, bm, blockIdx.x, b, tile)) return false;
    t.s = varlen_seq(p, b);
    m_block = (t.s.sq + bm - 1) / bm - 1 - tile;
  } else {
    t.s = bshd_seq(p, blockIdx.z);
    m_block = static_cast<int>(gridDim.x) - 1 - static_cast<int>(blockIdx.x);
  }
  fill_tile<T, D>(p, bm, m_block, blockIdx.y, t);
  return true;
}

/// A tile no query of which sees a key: o = 0, lse = -inf (all `threads` threads of the CTA call it).
template <class T, int D>
__device__ inline void write_empty_tile(const CtaTile<T>& t, int tid, int threads) {
  constexpr int CH = D / 8;
  for (int idx = tid; idx < t.rows * CH; idx += threads) {
    const int r = idx / CH, c = idx % CH;
    *reinterpret_cast<uint4*>(t.o + r * t.q_stride + c * 8) = make_uint4(0, 0, 0, 0);
  }
  if (t.lse != nullptr)
    for (int r = tid; r < t.rows; r += threads) t.lse[r] = -INFINITY;
}

/// Whether the key tile [n0, n0 + bn) crosses the end of the keys, the causal diagonal or the
/// window edge for some query of the tile [m0, m0 + bm): only those tiles need masks.
__device__ inline bool tile_needs_mask(const Params& p, int n0, int bn, int m0, int bm, int skv, int offset) {
  return n0 + bn > skv || (p.causal && n0 + bn - 1 > m0 + offset) ||
         (p.window_left >= 0 && n0 < m0 + bm - 1 + offset - p.window_left);
}

/// The grid of the tensor-core kernels for query tiles of bm rows: x the tiles (varlen: at most
/// ceil(Tq / bm) + B, the spare CTAs exit at once), y the query heads, z the batch (BSHD).
inline dim3 attention_grid(const Params& p, int bm) {
  if (p.cu_q != nullptr)
    return dim3(static_cast<unsigned>((p.tq + bm - 1) / bm + p.batch), static_cast<unsigned>(p.hq), 1);
  return dim3(static_cast<unsigned>((p.sq + bm - 1) / bm), static_cast<unsigned>(p.hq), static_cast<unsigned>(p.batch));
}

/// Zeroes an accumulator of N MMA fragments (four fp32 values a thread each).
template <int N>
__device__ inline void zero_fragments(float (&f)[N][4]) {
#pragma unroll
  for (int n = 0; n < N; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) f[n][e] = 0.0f;
}

// dtype <-> fp32 conversions: the backend's one set, in vector_io.cuh.
using vio::from_f32;
using vio::to_f32;

}  // namespace opcert::cuda::attn
