// The tensor-core attention forward (FlashAttention-2's algorithm) for fp16/bf16 and head dims
// 64, 128, 256. One CTA per (query tile of BM rows, query head, sequence); each warp owns kMW
// blocks of 16 query rows. K/V tiles of BN keys stream through shared memory with cp.async,
// two stages deep (tile n-1 loads while tile n is computed). S = Q·Kᵀ and O += P·V run on
// mma.sync m16n8k16 with fp32 accumulators, operands loaded with ldmatrix from XOR-swizzled
// shared memory (conflict-free). The online softmax is fp32 with exp2 and the scale folded into
// log2 units; P is rounded to T for the second product (as FlashAttention does). Masks are applied
// only on the tiles that cross the causal diagonal, the window edge or the end of the keys; tiles
// no query of the CTA may see are never loaded. O is normalised and rounded once, staged through
// shared memory for 16-byte stores; lse = m·scale + log(l).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "cuda_check.h"
#include "ops/attention_common.cuh"

namespace opcert::cuda::attn {

// ---- PTX wrappers --------------------------------------------------------------------------

__device__ inline uint32_t smem_addr(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

/// 16 bytes global -> shared, bypassing L1; zero-fills the destination when !pred.
__device__ inline void cp_async_16(uint32_t dst, const void* src, bool pred) {
  const int bytes = pred ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ inline void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ inline void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ inline void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

/// c += a·b for one m16n8k16 tile, fp32 accumulate.
template <class T>
__device__ inline void mma_16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1);
template <>
__device__ inline void mma_16816<__nv_bfloat16>(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
__device__ inline void mma_16816<__half>(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// Two floats rounded to T and packed (lo in the low half), the register form of an mma operand.
template <class T>
__device__ inline uint32_t pack2(float lo, float hi);
template <>
__device__ inline uint32_t pack2<__nv_bfloat16>(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&v);
}
template <>
__device__ inline uint32_t pack2<__half>(float lo, float hi) {
  const __half2 v = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&v);
}

/// 2^x (ex2.approx: relative error ~2^-22, 2^-inf = 0, NaN stays NaN).
__device__ inline float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// ---- S / P fragment helpers (mma.sync m16n8 accumulators, also wgmma's per warp) -----------
// A 16-row block of S over NT 8-key column tiles: thread (g = lane / 4, t4 = lane % 4) holds
// sc[nt][2r + c] = S[g + 8r][8nt + 2t4 + c].

/// -inf where query i0 + 8r (in-sequence index) may not see key n0 + 8nt + 2t4 + c.
template <int NT>
__device__ inline void mask_rows(float (&sc)[NT][4], const Params& p, int i0, int n0, int skv, int offset, int t4) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int diagonal = i0 + 8 * r + offset;
    const int jmax = p.causal ? min(skv - 1, diagonal) : skv - 1;
    const int jmin = p.window_left >= 0 ? diagonal - p.window_left : 0;
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int j = n0 + nt * 8 + 2 * t4 + c;
        if (j > jmax || j < jmin) sc[nt][2 * r + c] = -INFINITY;
      }
  }
}

/// One online-softmax step of the block's two rows: the running max (raw units) takes in the
/// tile, sc becomes p = exp2(s·sl2 - m·sl2 + p_log2), the running sum l = l·alpha + Σp; alpha is
/// what the output accumulators of the row must be scaled by. p_log2 shifts every p by the same
/// power of two (o = Σpv / l is unchanged; lse must take p_log2·ln2 off): the fp8 kernel puts p
/// in [0, 2^8] so that rounding it to e4m3 keeps small values normal.
template <int NT>
__device__ inline void softmax_rows(float (&sc)[NT][4], float (&row_max)[2], float (&row_sum)[2], float sl2,
                                    float (&alpha)[2], float p_log2 = 0.0f) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float mx = row_max[r];
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) mx = fmaxf(mx, fmaxf(sc[nt][2 * r], sc[nt][2 * r + 1]));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    const float m_scaled = mx == -INFINITY ? 0.0f : mx * sl2;  // all masked so far: exp2(-inf) = 0
    alpha[r] = exp2_approx(row_max[r] * sl2 - m_scaled);
    row_max[r] = mx;
    float sum = 0.0f;
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const float e = exp2_approx(fmaf(sc[nt][2 * r + c], sl2, p_log2 - m_scaled));
        sc[nt][2 * r + c] = e;
        sum += e;
      }
    row_sum[r] = row_sum[r] * alpha[r] + sum;
  }
}

/// acc (DT 8-column tiles of the block's rows) *= alpha of its row.
template <int DT>
__device__ inline void rescale_rows(float (&acc)[DT][4], const float (&alpha)[2]) {
#pragma unroll
  for (int dt = 0; dt < DT; ++dt)
#pragma unroll
    for (int e = 0; e < 4; ++e) acc[dt][e] *= alpha[e / 2];
}

/// P rounded to T as the A operand of the second product, one m16k16 fragment per 16 keys
/// (the accumulator layout of two 8-key tiles is the A layout of one 16-key step).
template <class T, int NT>
__device__ inline void pack_p(const float (&sc)[NT][4], uint32_t (&pa)[NT / 2][4]) {
#pragma unroll
  for (int kk = 0; kk < NT / 2; ++kk) {
    pa[kk][0] = pack2<T>(sc[2 * kk][0], sc[2 * kk][1]);
    pa[kk][1] = pack2<T>(sc[2 * kk][2], sc[2 * kk][3]);
    pa[kk][2] = pack2<T>(sc[2 * kk + 1][0], sc[2 * kk + 1][1]);
    pa[kk][3] = pack2<T>(sc[2 * kk + 1][2], sc[2 * kk + 1][3]);
  }
}

/// The row's l summed over its four threads; the factor o is scaled by (0 when the row saw no key,
/// l == 0; NaN propagates through 1/l) and its lse (-inf when it saw none).
struct RowFinish {
  bool no_key;
  float inv, lse;
};
__device__ inline RowFinish finish_row(float partial_sum, float row_max, float scale) {
  float sum = partial_sum;
  sum += __shfl_xor_sync(0xffffffffu, sum, 1);
  sum += __shfl_xor_sync(0xffffffffu, sum, 2);
  if (sum == 0.0f) return {true, 0.0f, -INFINITY};
  return {false, 1.0f / sum, row_max * scale + logf(sum)};
}

// ---- configuration -------------------------------------------------------------------------

/// kD head dim, kMW 16-row blocks per warp, kBN keys per tile, kWarps warps per CTA.
template <int kD_, int kMW_, int kBN_, int kWarps_, int kMinBlocks_>
struct FlashConfig {
  static constexpr int kD = kD_, kMW = kMW_, kBN = kBN_, kWarps = kWarps_, kMinBlocks = kMinBlocks_;
  static constexpr int kBM = 16 * kMW * kWarps;  // query rows per CTA
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kChunks = kD / 8;  // 16-byte chunks per row of D elements
  static constexpr int kSmemElems = kBM * kD + 2 * 2 * kBN * kD;  // Q, then K and V in two stages each
  static constexpr int kSmemBytes = kSmemElems * 2;
  static_assert(kD % 64 == 0, "rows must span the 8-chunk swizzle");
  static_assert(kBN % 16 == 0);
  static_assert(kBM * kChunks % kThreads == 0 && kBN * kChunks % kThreads == 0, "tile copies divide evenly");
};

/// Head-dim choices, all without register spills (ptxas -v) and with BM 128 where the registers
/// allow it (each K/V tile loaded into shared memory then serves 128 queries):
///  D 64:  4 warps x 32 rows (BM 128), BN 64, 2 CTAs/SM: 249 registers, 48 KB shared.
///  D 128: 8 warps x 16 rows (BM 128), BN 64, 1 CTA/SM: ~207 registers, 96 KB shared. (4 warps x
///         32 rows, FlashAttention-2's layout, halves the ldmatrix traffic per mma but spills
///         ~100 bytes at the 255-register cap: FlashConfig<128, 2, 64, 4, 2>, to be timed.)
///  D 256: 4 warps x 16 rows (BM 64), BN 32, 2 CTAs/SM: 255 registers, 96 KB shared.
template <int D>
struct FlashConfigFor;
template <>
struct FlashConfigFor<64> {
  using type = FlashConfig<64, 2, 64, 4, 2>;
};
template <>
struct FlashConfigFor<128> {
  using type = FlashConfig<128, 1, 64, 8, 1>;
};
template <>
struct FlashConfigFor<256> {
  using type = FlashConfig<256, 1, 32, 4, 2>;
};

/// Element offset of 16-byte chunk `chunk` of row `row` in a [rows, D] tile: the chunk index is
/// XORed with the row's low 3 bits so that 8 consecutive rows at one logical chunk (an ldmatrix
/// 8x8 matrix, or a column of mma fragments) hit 8 different bank groups.
template <int D>
__device__ inline int swz(int row, int chunk) {
  return row * D + ((chunk ^ (row & 7)) << 3);
}

/// Per-thread swizzled byte offsets for the ldmatrix walks. A lane reads logical chunk
/// 2*step + lchunk of a row whose low 3 bits are r7 (every operand tile row a lane addresses has
/// r7 = lane % 8). The physical chunk is (2*step & ~7) + ((2*step & 7) ^ lchunk ^ r7): four
/// run-time values (step % 4) plus a compile-time offset, so each operand needs four registers.
struct LaneSwizzle {
  uint32_t x[4];
  __device__ explicit LaneSwizzle(int lchunk, int r7) {
#pragma unroll
    for (int j = 0; j < 4; ++j) x[j] = static_cast<uint32_t>(((2 * j) ^ lchunk ^ r7) * 16);
  }
  /// Byte offset, within a row, of the chunk the lane reads at k-step `step`.
  __device__ uint32_t at(int step) const { return x[step & 3] + static_cast<uint32_t>((step >> 2) * 128); }
};

/// A thread's part of copying a [rows, D] tile, kThreads threads: each copies chunk c of rows
/// row0 + it*kRowStep. Its shared offsets repeat (up to a whole-row shift) with period kPeriod.
template <int D, int kThreads, int kRows>
struct TileCopy {
  static constexpr int kChunks = D / 8;
  static constexpr int kRowStep = kThreads / kChunks;
  static constexpr int kIters = kRows / kRowStep;
  static constexpr int kPeriod = kRowStep % 8 == 0 ? 1 : 8 / kRowStep;
  static_assert(kThreads % kChunks == 0 && kRows % kRowStep == 0 && (kRowStep % 8 == 0 || 8 % kRowStep == 0));
  static_assert(kIters % kPeriod == 0);
  int row0, c;
  uint32_t off[kPeriod];  // bytes
  __device__ explicit TileCopy(int tid) : row0(tid / kChunks), c(tid % kChunks) {
#pragma unroll
    for (int q = 0; q < kPeriod; ++q) off[q] = static_cast<uint32_t>(swz<D>(row0 + q * kRowStep, c) * 2);
  }
  /// Byte offset in the tile of iteration it's chunk.
  __device__ uint32_t smem(int it) const {
    return off[it % kPeriod] + static_cast<uint32_t>((it / kPeriod) * kPeriod * kRowStep * D * 2);
  }
  __device__ int row(int it) const { return row0 + it * kRowStep; }

  /// Starts the copies of key tile n (kRows keys of K and V, rows of kv_stride elements from gK and
  /// gV; zero-filled at and past skv) into the tiles at shared addresses dk and dv.
  template <class T>
  __device__ void copy_kv(uint32_t dk, uint32_t dv, const T* gK, const T* gV, int n, int skv, int64_t kv_stride) const {
#pragma unroll
    for (int it = 0; it < kIters; ++it) {
      const int key = n * kRows + row(it);
      const bool ok = key < skv;
      const int64_t src = ok ? key * kv_stride + c * 8 : 0;
      cp_async_16(dk + smem(it), gK + src, ok);
      cp_async_16(dv + smem(it), gV + src, ok);
    }
  }
};

// ---- the kernel ----------------------------------------------------------------------------

template <class T, class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks) attention_flash_kernel(const Params p) {
  constexpr int D = Cfg::kD, BM = Cfg::kBM, BN = Cfg::kBN, MW = Cfg::kMW;
  constexpr int NT = BN / 8;  // 8-key column tiles of S per row block
  constexpr int DT = D / 8;   // 8-wide column tiles of O per row block
  extern __shared__ __align__(128) unsigned char smem_raw[];
  // What only the epilogue needs, parked in shared memory so that it holds no registers in the loop.
  __shared__ struct {
    T* o;         // query row m0 of this head
    float* lse;   // lse of query row m0 of this head (null: not requested)
    int rows;     // valid query rows of the tile
  } epi;
  T* sQ = reinterpret_cast<T*>(smem_raw);
  T* sK = sQ + BM * D;      // [2][BN * D]
  T* sV = sK + 2 * BN * D;  // [2][BN * D]

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t4 = lane % 4;  // mma fragment row group and column pair

  CtaTile<T> t;
  if (!cta_tile<T, D>(p, BM, t)) return;
  const Seq& s = t.s;
  const int m0 = t.m0, rows = t.rows, offset = t.offset;
  const int64_t q_stride = t.q_stride, kv_stride = t.kv_stride;
  const T* gQ = t.q;
  const T* gK = t.k;
  const T* gV = t.v;
  if (t.key_hi <= t.key_lo) {  // no query of the tile sees a key
    write_empty_tile<T, D>(t, tid, Cfg::kThreads);
    return;
  }
  const int n_min = t.key_lo / BN, n_max = (t.key_hi + BN - 1) / BN;  // key tiles [n_min, n_max)
  if (tid == 0) epi = {t.o, t.lse, rows};  // read after the loop's barriers

  const uint32_t sQ_addr = smem_addr(sQ), sK_addr = smem_addr(sK), sV_addr = smem_addr(sV);
  constexpr uint32_t kKVStageBytes = BN * D * 2;
  const TileCopy<D, Cfg::kThreads, BN> kv_copy(tid);
  auto load_kv = [&](int n, int stage) {
    kv_copy.copy_kv(sK_addr + stage * kKVStageBytes, sV_addr + stage * kKVStageBytes, gK, gV, n, s.skv, kv_stride);
  };

  // Prologue: Q and the first (highest) key tile in one group.
  {
    const TileCopy<D, Cfg::kThreads, BM> q_copy(tid);
#pragma unroll
    for (int it = 0; it < q_copy.kIters; ++it) {
      const int r = q_copy.row(it);
      const bool ok = r < rows;
      cp_async_16(sQ_addr + q_copy.smem(it), gQ + (ok ? r * q_stride + q_copy.c * 8 : 0), ok);
    }
  }
  load_kv(n_max - 1, 0);
  cp_async_commit();

  const int wrow = warp * MW * 16;  // the warp's first row in the tile
  float acc[MW][DT][4];
  float row_max[MW][2], row_sum[MW][2];
#pragma unroll
  for (int mi = 0; mi < MW; ++mi) {
#pragma unroll
    for (int dt = 0; dt < DT; ++dt)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mi][dt][e] = 0.0f;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      row_max[mi][r] = -INFINITY;
      row_sum[mi][r] = 0.0f;
    }
  }
  const float sl2 = p.scale_log2;

  // ldmatrix lane addressing (see the fragment layouts of mma.m16n8k16):
  //  Q (A operand, x4): lane -> row lane%16, chunk +lane/16.
  //  K (B operand of S, x4 = two 8-key tiles): lane -> key (lane/16)*8 + lane%8, chunk +(lane/8)%2.
  //  V (B operand of O, x4.trans = two 8-column tiles): lane -> key ((lane/8)%2)*8 + lane%8, chunk +lane/16.
  const int q_lrow = lane % 16, k_lrow = (lane / 16) * 8 + lane % 8, v_lrow = ((lane / 8) % 2) * 8 + lane % 8;
  const LaneSwizzle q_swz(lane / 16, lane % 8), k_swz((lane / 8) % 2, lane % 8), v_swz(lane / 16, lane % 8);
  const uint32_t q_base = sQ_addr + (wrow + q_lrow) * D * 2;
  const uint32_t k_base = sK_addr + k_lrow * D * 2, v_base = sV_addr + v_lrow * D * 2;

  int stage = 0;
  for (int n = n_max - 1; n >= n_min; --n) {
    if (n > n_min) load_kv(n - 1, stage ^ 1);
    cp_async_commit();
    cp_async_wait<1>();  // all but the group just issued: Q and tile n are in shared memory
    __syncthreads();

    const uint32_t tK = k_base + stage * kKVStageBytes, tV = v_base + stage * kKVStageBytes;

    // S = Q·Kᵀ (raw scores, fp32).
    float sc[MW][NT][4];
#pragma unroll
    for (int mi = 0; mi < MW; ++mi)
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) sc[mi][nt][e] = 0.0f;
    // k-steps in groups of four (one 128-byte swizzle span): the groups are a rolled loop so that
    // the scheduler does not hoist every fragment load of the tile at once.
#pragma unroll 1
    for (int k4 = 0; k4 < D / 64; ++k4)
#pragma unroll
      for (int kj = 0; kj < 4; ++kj) {
      const int kk = k4 * 4 + kj;
      uint32_t qa[MW][4];
#pragma unroll
      for (int mi = 0; mi < MW; ++mi)
        ldmatrix_x4(qa[mi], q_base + mi * 16 * D * 2 + q_swz.at(kk));
#pragma unroll
      for (int nn = 0; nn < NT / 2; ++nn) {
        uint32_t kb[4];
        ldmatrix_x4(kb, tK + nn * 16 * D * 2 + k_swz.at(kk));
#pragma unroll
        for (int mi = 0; mi < MW; ++mi) {
          mma_16816<T>(sc[mi][2 * nn], qa[mi], kb[0], kb[1]);
          mma_16816<T>(sc[mi][2 * nn + 1], qa[mi], kb[2], kb[3]);
        }
      }
    }

    // Masks, only where the tile crosses the end of the keys, the causal diagonal or the window edge.
    const int n0 = n * BN;
    if (tile_needs_mask(p, n0, BN, m0, BM, s.skv, offset)) {
#pragma unroll
      for (int mi = 0; mi < MW; ++mi) mask_rows(sc[mi], p, m0 + wrow + mi * 16 + g, n0, s.skv, offset, t4);
    }

    // Online softmax: new running max (raw units), rescale o and l, p = exp2(s·sl2 - m·sl2).
#pragma unroll
    for (int mi = 0; mi < MW; ++mi) {
      float alpha[2];
      softmax_rows(sc[mi], row_max[mi], row_sum[mi], sl2, alpha);
      rescale_rows(acc[mi], alpha);
    }

    // O += P·V, P rounded to T straight from the S accumulators (C layout = A layout).
    uint32_t pa[MW][BN / 16][4];
#pragma unroll
    for (int mi = 0; mi < MW; ++mi) pack_p<T>(sc[mi], pa[mi]);
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
#pragma unroll
      for (int dd = 0; dd < D / 16; ++dd) {
        uint32_t vb[4];
        ldmatrix_x4_trans(vb, tV + kk * 16 * D * 2 + v_swz.at(dd));
#pragma unroll
        for (int mi = 0; mi < MW; ++mi) {
          mma_16816<T>(acc[mi][2 * dd], pa[mi][kk], vb[0], vb[1]);
          mma_16816<T>(acc[mi][2 * dd + 1], pa[mi][kk], vb[2], vb[3]);
        }
      }
    }
    __syncthreads();  // every warp is done with this stage before the next iteration refills it
    stage ^= 1;
  }
  cp_async_wait<0>();  // (only empty groups can be left)
  T* const out = epi.o;
  float* const lse_out = epi.lse;
  const int out_rows = epi.rows;

  // Epilogue: o = acc / l rounded to T, staged in the warp's own rows of sQ for 16-byte stores.
#pragma unroll
  for (int mi = 0; mi < MW; ++mi)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const RowFinish f = finish_row(row_sum[mi][r], row_max[mi][r], p.scale);
      const int row = wrow + mi * 16 + g + 8 * r;
#pragma unroll
      for (int dt = 0; dt < DT; ++dt) {
        const float o0 = f.no_key ? 0.0f : acc[mi][dt][2 * r] * f.inv;
        const float o1 = f.no_key ? 0.0f : acc[mi][dt][2 * r + 1] * f.inv;
        *reinterpret_cast<uint32_t*>(sQ + swz<D>(row, dt) + 2 * t4) = pack2<T>(o0, o1);
      }
      if (lse_out != nullptr && t4 == 0 && row < out_rows) lse_out[row] = f.lse;
    }
  __syncthreads();
  const TileCopy<D, Cfg::kThreads, BM> o_copy(tid);
#pragma unroll
  for (int it = 0; it < o_copy.kIters; ++it) {
    const int r = o_copy.row(it);
    if (r < out_rows)
      *reinterpret_cast<uint4*>(out + r * q_stride + o_copy.c * 8) =
          *reinterpret_cast<const uint4*>(smem_raw + o_copy.smem(it));
  }
}

// ---- launch --------------------------------------------------------------------------------

template <class T, int D>
void launch_flash_d(const Params& p, cudaStream_t stream) {
  using Cfg = typename FlashConfigFor<D>::type;
  const auto kernel = attention_flash_kernel<T, Cfg>;
  OPCERT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes));
  const dim3 grid = attention_grid(p, Cfg::kBM);
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return;
  kernel<<<grid, Cfg::kThreads, Cfg::kSmemBytes, stream>>>(p);
  OPCERT_CUDA_CHECK_LAUNCH("attention_flash_kernel");
}

template <class T>
void launch_flash_t(const Params& p, cudaStream_t stream) {
  switch (p.d) {
    case 64: launch_flash_d<T, 64>(p, stream); break;
    case 128: launch_flash_d<T, 128>(p, stream); break;
    case 256: launch_flash_d<T, 256>(p, stream); break;
    default: break;  // flash_supported() keeps other head dims away
  }
}

}  // namespace opcert::cuda::attn
