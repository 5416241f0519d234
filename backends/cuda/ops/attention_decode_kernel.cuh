// The split kernel of cuda.attention.decode: attention for few query rows against many keys
// (decode steps, speculative verification), one CTA per (KV split, KV head, sequence).
//
// The CTA's tile packs the `group` query heads that share its KV head times the sequence's query
// rows as rows (row r = query i * group + head-in-group hg: in memory, the heads of one token are
// contiguous), so K and V are read from memory once per KV head, not once per query head. The tile
// has 16, 32 or 64 rows (1, 2 or 4 MMA row blocks); its four warps are row_blocks row groups × the
// rest key groups: with one row block (Sq·group <= 16: the decode step of GQA models) each warp
// takes a quarter of every key tile, runs its own online softmax over it, and the warps' results
// are merged at the end through shared memory.
//
// Keys stream in tiles of ~32 KiB of K and V through a 3-stage cp.async ring (16-byte copies,
// zero-filled past the end of the keys; one CTA barrier per tile). S = Q·Kᵀ and O += P·V run on
// mma.sync m16n8k16 with fp32 accumulation, operands read with ldmatrix from XOR-swizzled shared
// memory, and the fp32 online softmax (exp2, scale folded into log2 units) of the prefill kernel
// (attention_flash_kernel.cuh, whose PTX wrappers and fragment helpers this file uses). Masks
// (causal, window, end of keys) are applied only to tiles that cross an edge for some row.
//
// A sequence's keys (those some query of it may see, in whole tiles) are dealt to the `splits`
// CTAs in equal runs. With one split the CTA writes o (rounded to T) and lse; with more, each writes
// its partial o (fp32, normalised by its own sum) and partial lse per (query token, query head,
// split) to the workspace, and attention_decode_combine.cuh merges them. A row that sees no key
// (in the split) gets o = 0 and lse = -inf. A varlen sequence with more rows than the tile holds
// is walked tile by tile.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <climits>
#include <cstdint>

#include "ops/attention_common.cuh"
#include "ops/attention_decode_plan.h"
#include "ops/attention_flash_kernel.cuh"

namespace opcert::cuda::attn {

/// Where the split kernel's partial results go when the keys are split (splits > 1): per row
/// (query token * hq + query head) and split, o normalised by the split's own sum, and its lse.
struct DecodeOut {
  float* o_part = nullptr;    // [tq * hq][splits][d]; null: one split, o and lse written directly
  float* lse_part = nullptr;  // [tq * hq][splits]
  int splits = 1;
};

/// kD head dim, kMB 16-row blocks per tile.
template <int kD_, int kMB_>
struct DecodeConfig {
  static constexpr int kD = kD_, kMB = kMB_;
  static constexpr int kWarps = kDecodeWarps, kThreads = 32 * kWarps;
  static constexpr int kKG = kWarps / kMB;                 // key groups (warps sharing a row block)
  static constexpr int kBM = 16 * kMB;                     // rows of the tile
  static constexpr int kBN = decode_tile_keys(kD, kMB);    // keys per tile (stage)
  static constexpr int kKW = kBN / kKG;                    // keys of a tile one warp takes
  static constexpr int kStages = kDecodeStages;
  static constexpr int kSmemBytes = decode_smem_bytes(kD, kMB);
  static constexpr int kMergeStride = kD + 8;  // floats per row of the merge area: rows 8 banks apart
  static_assert(kWarps % kMB == 0 && kKW % 16 == 0, "each warp takes whole 16-key steps");
  static_assert(kD % 64 == 0, "rows must span the 8-chunk swizzle");
  static_assert(kKG * kBM * kMergeStride * 4 <= 2 * kStages * kBN * kD * 2, "the merge area fits in the K/V rings");
};

/// The key tiles [begin, end) of split `split`: the tiles some query of the sequence may see
/// (from the first query's window edge to the end of the keys), dealt in equal whole-tile runs.
struct TileSpan {
  int begin, end;
};
__device__ inline TileSpan split_tiles(const Params& p, const Seq& s, int bn, int split, int splits) {
  const int lowest = p.window_left >= 0 ? max(0, s.skv - s.sq - p.window_left) : 0;
  const int lo = lowest / bn, hi = (s.skv + bn - 1) / bn;
  const int per = (hi - lo + splits - 1) / splits;
  const int begin = min(hi, lo + split * per);
  return {begin, min(hi, begin + per)};
}

/// -inf where the key (j0 + 8nt + c, j0 holding the thread's column pair) is outside row r's
/// allowed keys [lo[r], hi[r]] (the fragment layout of attention_flash_kernel.cuh).
template <int NT>
__device__ inline void mask_keys(float (&sc)[NT][4], const int (&lo)[2], const int (&hi)[2], int j0) {
#pragma unroll
  for (int r = 0; r < 2; ++r)
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int j = j0 + nt * 8 + c;
        if (j < lo[r] || j > hi[r]) sc[nt][2 * r + c] = -INFINITY;
      }
}

template <class T, class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads) attention_decode_kernel(const Params p, const DecodeOut out) {
  constexpr int D = Cfg::kD, BM = Cfg::kBM, BN = Cfg::kBN, KW = Cfg::kKW, KG = Cfg::kKG, ST = Cfg::kStages;
  constexpr int NT = KW / 8;  // 8-key column tiles of S a warp holds
  constexpr int DT = D / 8;   // 8-wide column tiles of O
  constexpr int MS = Cfg::kMergeStride;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __shared__ float s_max[KG][BM], s_sum[KG][BM];  // each key group's running max and sum per row
  T* sQ = reinterpret_cast<T*>(smem_raw);         // [BM][D]
  T* sK = sQ + BM * D;                             // [ST][BN][D]
  T* sV = sK + ST * BN * D;                        // [ST][BN][D]
  float* s_merge = reinterpret_cast<float*>(sK);   // after the key loop: [KG][BM][MS]

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // The merge kernel may be scheduled from now on: it waits for this grid to complete.
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t4 = lane % 4;                  // mma fragment row group and column pair
  const int rb = warp % Cfg::kMB, kg = warp / Cfg::kMB;  // the warp's row block and key group
  const int split = blockIdx.x, kvh = blockIdx.y;
  const Seq s = p.cu_q != nullptr ? varlen_seq(p, blockIdx.z) : bshd_seq(p, blockIdx.z);
  const int group = p.group;
  const int rows_total = s.sq * group;
  const TileSpan span = split_tiles(p, s, BN, split, out.splits);

  const int64_t q_stride = int64_t{p.hq} * D, kv_stride = int64_t{p.hkv} * D;
  // Row r of the sequence is query token r / group, query head kvh * group + r % group.
  const T* gQ = static_cast<const T*>(p.q) + s.q_start * q_stride + int64_t{kvh} * group * D;
  const T* gK = static_cast<const T*>(p.k) + s.k_start * kv_stride + int64_t{kvh} * D;
  const T* gV = static_cast<const T*>(p.v) + s.k_start * kv_stride + int64_t{kvh} * D;

  const uint32_t sQ_addr = smem_addr(sQ), sK_addr = smem_addr(sK), sV_addr = smem_addr(sV);
  constexpr uint32_t kStageBytes = BN * D * 2;
  const TileCopy<D, Cfg::kThreads, BN> kv_copy(tid);
  auto load_kv = [&](int n, int stage) {
    kv_copy.copy_kv(sK_addr + stage * kStageBytes, sV_addr + stage * kStageBytes, gK, gV, n, s.skv, kv_stride);
  };

  // ldmatrix lane addressing, as in attention_flash_kernel.cuh; the warp reads rows
  // [16 rb, 16 rb + 16) of Q and keys [kg KW, kg KW + KW) of each tile.
  const int q_lrow = lane % 16, k_lrow = (lane / 16) * 8 + lane % 8, v_lrow = ((lane / 8) % 2) * 8 + lane % 8;
  const LaneSwizzle q_swz(lane / 16, lane % 8), k_swz((lane / 8) % 2, lane % 8), v_swz(lane / 16, lane % 8);
  const uint32_t q_base = sQ_addr + (rb * 16 + q_lrow) * D * 2;
  const uint32_t k_base = sK_addr + (kg * KW + k_lrow) * D * 2, v_base = sV_addr + (kg * KW + v_lrow) * D * 2;
  const float sl2 = p.scale_log2;

  for (int m0 = 0; m0 < rows_total; m0 += BM) {
    const int rows = min(BM, rows_total - m0);
    // Keys some row of the tile may see (the first row's lowest to the last row's highest), and
    // those every row may see: tiles inside the latter need no mask.
    const KeyRange first = allowed_keys(p, s.sq, s.skv, m0 / group);
    const KeyRange last = allowed_keys(p, s.sq, s.skv, (m0 + rows - 1) / group);
    const int n_begin = max(span.begin, first.lo / BN);
    const int n_end = last.hi < first.lo ? n_begin : max(n_begin, min(span.end, last.hi / BN + 1));
    const int all_lo = last.lo, all_hi = first.hi;
    // This thread's two rows (g and g + 8 of its row block): their allowed keys. Rows past the
    // tile's end hold zeros and are not written; they take every key.
    int row_lo[2], row_hi[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = rb * 16 + g + 8 * h;
      const KeyRange kr = r < rows ? allowed_keys(p, s.sq, s.skv, (m0 + r) / group) : KeyRange{0, INT_MAX};
      row_lo[h] = kr.lo;
      row_hi[h] = kr.hi;
    }

    // Prologue: the Q tile with the first key tile, then the rest of the ring but one stage.
    {
      const TileCopy<D, Cfg::kThreads, BM> q_copy(tid);
#pragma unroll
      for (int it = 0; it < q_copy.kIters; ++it) {
        const int r = q_copy.row(it);
        const bool ok = r < rows;
        const int64_t src = ok ? ((m0 + r) / group) * q_stride + ((m0 + r) % group) * D + q_copy.c * 8 : 0;
        cp_async_16(sQ_addr + q_copy.smem(it), gQ + src, ok);
      }
    }
    const int ntiles = n_end - n_begin;
#pragma unroll
    for (int st = 0; st < ST - 1; ++st) {
      if (st < ntiles) load_kv(n_begin + st, st);
      cp_async_commit();
    }

    float acc[DT][4];
    zero_fragments(acc);
    float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.0f, 0.0f};

    int stage = 0, load_stage = ST - 1;
    for (int j = 0; j < ntiles; ++j) {
      cp_async_wait<ST - 2>();  // tile j is in shared memory (this thread's copies)
      __syncthreads();          // ... and every thread's; the stage tile j-1 used is free
      if (j + ST - 1 < ntiles) load_kv(n_begin + j + ST - 1, load_stage);
      cp_async_commit();
      load_stage = load_stage == ST - 1 ? 0 : load_stage + 1;
      const uint32_t tK = k_base + stage * kStageBytes, tV = v_base + stage * kStageBytes;
      stage = stage == ST - 1 ? 0 : stage + 1;

      // S = Q·Kᵀ over the warp's keys (raw scores, fp32); k-steps in groups of four (one 128-byte
      // swizzle span), the groups a rolled loop so that the fragment loads are not all hoisted.
      float sc[NT][4];
      zero_fragments(sc);
#pragma unroll 1
      for (int k4 = 0; k4 < D / 64; ++k4)
#pragma unroll
        for (int kj = 0; kj < 4; ++kj) {
          const int kk = k4 * 4 + kj;
          uint32_t qa[4];
          ldmatrix_x4(qa, q_base + q_swz.at(kk));
#pragma unroll
          for (int nn = 0; nn < NT / 2; ++nn) {
            uint32_t kb[4];
            ldmatrix_x4(kb, tK + nn * 16 * D * 2 + k_swz.at(kk));
            mma_16816<T>(sc[2 * nn], qa, kb[0], kb[1]);
            mma_16816<T>(sc[2 * nn + 1], qa, kb[2], kb[3]);
          }
        }

      const int n0 = (n_begin + j) * BN;
      if (n0 < all_lo || n0 + BN - 1 > all_hi) mask_keys(sc, row_lo, row_hi, n0 + kg * KW + 2 * t4);

      float alpha[2];
      softmax_rows(sc, row_max, row_sum, sl2, alpha);
      rescale_rows(acc, alpha);

      // O += P·V, P rounded to T straight from the S accumulators.
      uint32_t pa[KW / 16][4];
      pack_p<T>(sc, pa);
#pragma unroll
      for (int kk = 0; kk < KW / 16; ++kk)
#pragma unroll
        for (int dd = 0; dd < D / 16; ++dd) {
          uint32_t vb[4];
          ldmatrix_x4_trans(vb, tV + kk * 16 * D * 2 + v_swz.at(dd));
          mma_16816<T>(acc[2 * dd], pa[kk], vb[0], vb[1]);
          mma_16816<T>(acc[2 * dd + 1], pa[kk], vb[2], vb[3]);
        }
    }
    cp_async_wait<0>();  // (only empty groups, or Q of a tile without keys, can be left)
    __syncthreads();     // every warp is done with the rings: they become the merge area

    // Merge the key groups: each warp's rows' max and sum, then its o scaled to the common max and
    // divided by the common sum, summed over the key groups in a fixed order below.
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float sum = row_sum[h];
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      sum += __shfl_xor_sync(0xffffffffu, sum, 2);
      if (t4 == 0) {
        s_max[kg][rb * 16 + g + 8 * h] = row_max[h];
        s_sum[kg][rb * 16 + g + 8 * h] = sum;
      }
    }
    __syncthreads();
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = rb * 16 + g + 8 * h;
      float m_all = -INFINITY;
#pragma unroll
      for (int k = 0; k < KG; ++k) m_all = fmaxf(m_all, s_max[k][r]);
      float l_all = 0.0f, mine = 0.0f;
#pragma unroll
      for (int k = 0; k < KG; ++k) {
        const float m = s_max[k][r];
        const float f = m == -INFINITY ? 0.0f : exp2_approx((m - m_all) * sl2);
        l_all += s_sum[k][r] * f;
        if (k == kg) mine = f;
      }
      // No key seen: o = 0 and lse = -inf (NaN in l propagates through the division).
      const float inv = l_all == 0.0f ? 0.0f : mine / l_all;
      float* dst = s_merge + (kg * BM + r) * MS + 2 * t4;
#pragma unroll
      for (int dt = 0; dt < DT; ++dt)
        *reinterpret_cast<float2*>(dst + 8 * dt) = make_float2(acc[dt][2 * h] * inv, acc[dt][2 * h + 1] * inv);
      if (kg == 0 && t4 == 0 && r < rows) {
        const float lse = l_all == 0.0f ? -INFINITY : m_all * p.scale + logf(l_all);
        const int64_t token = (m0 + r) / group;
        const int head = kvh * group + (m0 + r) % group;
        if (out.o_part == nullptr) {
          if (p.lse != nullptr) p.lse[s.lse_base + int64_t{head} * s.lse_head_stride + token] = lse;
        } else {
          out.lse_part[((s.q_start + token) * p.hq + head) * out.splits + split] = lse;
        }
      }
    }
    __syncthreads();

    // o rows: 8 values per thread and step, the key groups' parts added in order.
    for (int idx = tid; idx < rows * DT; idx += Cfg::kThreads) {
      const int r = idx / DT, c = idx % DT;
      float v[8];
#pragma unroll
      for (int e = 0; e < 8; ++e) v[e] = 0.0f;
#pragma unroll
      for (int k = 0; k < KG; ++k) {
        const float4 a = *reinterpret_cast<const float4*>(s_merge + (k * BM + r) * MS + 8 * c);
        const float4 b = *reinterpret_cast<const float4*>(s_merge + (k * BM + r) * MS + 8 * c + 4);
        v[0] += a.x, v[1] += a.y, v[2] += a.z, v[3] += a.w, v[4] += b.x, v[5] += b.y, v[6] += b.z, v[7] += b.w;
      }
      const int64_t token = s.q_start + (m0 + r) / group;
      const int head = kvh * group + (m0 + r) % group;
      if (out.o_part == nullptr) {
        const uint4 packed = make_uint4(pack2<T>(v[0], v[1]), pack2<T>(v[2], v[3]), pack2<T>(v[4], v[5]),
                                        pack2<T>(v[6], v[7]));
        *reinterpret_cast<uint4*>(static_cast<T*>(p.o) + token * q_stride + int64_t{head} * D + 8 * c) = packed;
      } else {
        float* dst = out.o_part + ((token * p.hq + head) * out.splits + split) * D + 8 * c;
        *reinterpret_cast<float4*>(dst) = make_float4(v[0], v[1], v[2], v[3]);
        *reinterpret_cast<float4*>(dst + 4) = make_float4(v[4], v[5], v[6], v[7]);
      }
    }
    __syncthreads();  // the next row tile reloads Q and the rings
  }
}

}  // namespace opcert::cuda::attn
