// The tiled online-softmax kernel of cpu.attention.flash (FlashAttention's forward on a CPU):
// one call handles a block of queries of one head of one sequence, walking the blocks of keys
// it may see with a running max and sum per query and fp32 accumulators (docs/OPS.md "attention").
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ops/cpu_vector.h"

namespace opcert::cpu::attn {

inline constexpr int64_t kBlockQ = 32;  // queries per work item
inline constexpr int64_t kBlockK = 64;  // keys per tile (also the width of the transposed K tile)

/// Everything shared by all work items of one call. Tokens are rows of [tokens, heads, D].
struct Problem {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  int64_t hq = 0, hkv = 0, d = 0;
  float scale = 0.0f;
  bool causal = false;
  int64_t window_left = -1;  // < 0: unlimited
};

/// One sequence: its query and key token ranges.
struct Sequence {
  int64_t q_start = 0, q_len = 0;
  int64_t k_start = 0, k_len = 0;
};

/// Per-thread fp32 buffers for one work item.
struct Workspace {
  float* q;   // [kBlockQ, D] the query block
  float* kt;  // [D, kBlockK] the key tile, transposed so scores vectorise over keys
  float* v;   // [kBlockK, D] the value tile (fp16/bf16 only; fp32 is read in place)
  float* s;   // [kBlockQ, kBlockK] scores, then probabilities
  float* o;   // [kBlockQ, D] output accumulators
  float* m;   // [kBlockQ] running max
  float* l;   // [kBlockQ] running sum of exp(s - m)
  static int64_t floats(int64_t d) { return 2 * kBlockQ * d + 2 * kBlockK * d + kBlockQ * kBlockK + 2 * kBlockQ; }
  static Workspace carve(float* base, int64_t d) {
    Workspace w{};
    w.q = base;
    w.kt = w.q + kBlockQ * d;
    w.v = w.kt + kBlockK * d;
    w.s = w.v + kBlockK * d;
    w.o = w.s + kBlockQ * kBlockK;
    w.m = w.o + kBlockQ * d;
    w.l = w.m + kBlockQ;
    return w;
  }
};

/// Keys [lo, hi] that query i of a sequence may attend (empty when lo > hi); the causal mask is
/// aligned bottom-right, the window reaches window_left keys back from the diagonal.
struct KeyRange {
  int64_t lo, hi;
};
inline KeyRange allowed_keys(const Problem& p, const Sequence& s, int64_t i) {
  const int64_t diagonal = i + (s.k_len - s.q_len);
  const int64_t lo = p.window_left >= 0 ? std::max<int64_t>(0, diagonal - p.window_left) : 0;
  const int64_t hi = p.causal ? std::min<int64_t>(s.k_len - 1, diagonal) : s.k_len - 1;
  return {lo, hi};
}

/// 16 floats: GCC/Clang vector extension, lowered to whatever registers a clone has.
using f32x16 = float __attribute__((vector_size(64)));
// These helpers are always inlined into the kernel clones, so the calling convention GCC warns
// about (vectors passed by value without AVX-512) never applies.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
__attribute__((always_inline)) inline f32x16 load16(const float* p) {
  f32x16 v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}
__attribute__((always_inline)) inline void store16(float* p, f32x16 v) { __builtin_memcpy(p, &v, sizeof(v)); }

/// s[r, :] = q_r . kt[:, :] for the kBlockQ rows of q (rows past the block are zero), four
/// queries at a time so that each loaded key column feeds four accumulators in registers.
__attribute__((always_inline)) inline void tile_scores(const float* q, const float* kt, float* s, int64_t nq, int64_t D) {
  static_assert(kBlockK == 64 && kBlockQ % 4 == 0);
  for (int64_t r0 = 0; r0 < nq; r0 += 4) {
    f32x16 acc[4][4] = {};
    for (int64_t d = 0; d < D; ++d) {
      const f32x16 k0 = load16(kt + d * kBlockK), k1 = load16(kt + d * kBlockK + 16);
      const f32x16 k2 = load16(kt + d * kBlockK + 32), k3 = load16(kt + d * kBlockK + 48);
#pragma GCC unroll 4
      for (int r = 0; r < 4; ++r) {
        const float qd = q[(r0 + r) * D + d];
        acc[r][0] += qd * k0;
        acc[r][1] += qd * k1;
        acc[r][2] += qd * k2;
        acc[r][3] += qd * k3;
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) store16(s + (r0 + r) * kBlockK + c * 16, acc[r][c]);
  }
}

/// o[:D] = o * alpha + sum over keys [lo, hi] of p[j] * v_row(j), accumulating 64 columns at a
/// time in registers.
__attribute__((always_inline)) inline void accumulate_values(float* o, float alpha, const float* p, int64_t lo, int64_t hi, const float* v,
                              int64_t v_stride, int64_t D) {
  int64_t d0 = 0;
  for (; d0 + 64 <= D; d0 += 64) {
    f32x16 a0 = load16(o + d0) * alpha, a1 = load16(o + d0 + 16) * alpha;
    f32x16 a2 = load16(o + d0 + 32) * alpha, a3 = load16(o + d0 + 48) * alpha;
    for (int64_t j = lo; j <= hi; ++j) {
      const float pj = p[j];
      const float* vr = v + j * v_stride + d0;
      a0 += pj * load16(vr);
      a1 += pj * load16(vr + 16);
      a2 += pj * load16(vr + 32);
      a3 += pj * load16(vr + 48);
    }
    store16(o + d0, a0);
    store16(o + d0 + 16, a1);
    store16(o + d0 + 32, a2);
    store16(o + d0 + 48, a3);
  }
  if (d0 == D) return;
#pragma omp simd
  for (int64_t d = d0; d < D; ++d) o[d] *= alpha;
  for (int64_t j = lo; j <= hi; ++j) {
    const float pj = p[j];
    const float* vr = v + j * v_stride;
#pragma omp simd
    for (int64_t d = d0; d < D; ++d) o[d] += pj * vr[d];
  }
}

#pragma GCC diagnostic pop

/// Queries [i0, i0+nq) of sequence `seq`, query head h. lse_row (may be null) receives the
/// log-sum-exp of query i at lse_row[i]. q, k and v hold T, o holds Out (bf16 for fp8 calls,
/// whose inputs arrive dequantized into fp32).
template <class T, class Out = T>
OPCERT_CPU_CLONES void flash_block(const Problem& p, const Sequence& seq, int64_t h, int64_t i0, int64_t nq,
                                   float* lse_row, const Workspace& w) {
  const int64_t D = p.d;
  const int64_t kv_head = h / (p.hq / p.hkv);
  const T* q = static_cast<const T*>(p.q);
  const T* k = static_cast<const T*>(p.k);
  const T* v = static_cast<const T*>(p.v);
  Out* o = static_cast<Out*>(p.o);

  for (int64_t qi = 0; qi < nq; ++qi) {
    const T* src = q + ((seq.q_start + i0 + qi) * p.hq + h) * D;
    float* qf = w.q + qi * D;
    float* of = w.o + qi * D;
#pragma omp simd
    for (int64_t d = 0; d < D; ++d) {
      qf[d] = vec::to_f32(src[d]);
      of[d] = 0.0f;
    }
    w.m[qi] = -vec::kInf;
    w.l[qi] = 0.0f;
  }
  for (int64_t qi = nq; qi < (nq + 3) / 4 * 4; ++qi)
    for (int64_t d = 0; d < D; ++d) w.q[qi * D + d] = 0.0f;

  // Union of the key ranges of the block's queries (both ends grow with i).
  const int64_t first_lo = allowed_keys(p, seq, i0).lo;
  const int64_t last_hi = allowed_keys(p, seq, i0 + nq - 1).hi;
  for (int64_t kb = first_lo; kb <= last_hi; kb += kBlockK) {
    const int64_t nk = std::min(kBlockK, last_hi + 1 - kb);
    for (int64_t jj = 0; jj < kBlockK; ++jj) {
      if (jj < nk) {
        const T* src = k + ((seq.k_start + kb + jj) * p.hkv + kv_head) * D;
        for (int64_t d = 0; d < D; ++d) w.kt[d * kBlockK + jj] = vec::to_f32(src[d]);
      } else {
        for (int64_t d = 0; d < D; ++d) w.kt[d * kBlockK + jj] = 0.0f;
      }
    }
    const float* v_tile = nullptr;
    int64_t v_stride = D;
    if constexpr (std::is_same_v<T, float>) {
      v_tile = v + ((seq.k_start + kb) * p.hkv + kv_head) * D;
      v_stride = p.hkv * D;
    } else {
      for (int64_t jj = 0; jj < nk; ++jj) {
        const T* src = v + ((seq.k_start + kb + jj) * p.hkv + kv_head) * D;
        float* dst = w.v + jj * D;
#pragma omp simd
        for (int64_t d = 0; d < D; ++d) dst[d] = vec::to_f32(src[d]);
      }
      v_tile = w.v;
    }

    tile_scores(w.q, w.kt, w.s, nq, D);
    for (int64_t qi = 0; qi < nq; ++qi) {
      const KeyRange range = allowed_keys(p, seq, i0 + qi);
      const int64_t lo = std::max(range.lo, kb) - kb;  // tile-local allowed keys [lo, hi]
      const int64_t hi = std::min(range.hi, kb + nk - 1) - kb;
      if (lo > hi) continue;

      float* s = w.s + qi * kBlockK;
      float tile_max = -vec::kInf;
      int nan = 0;
#pragma omp simd reduction(max : tile_max) reduction(| : nan)
      for (int64_t jj = 0; jj < kBlockK; ++jj) {
        const float sj = (jj >= lo && jj <= hi) ? s[jj] * p.scale : -vec::kInf;
        s[jj] = sj;
        tile_max = sj > tile_max ? sj : tile_max;
        nan |= (sj != sj) ? 1 : 0;
      }
      if (nan != 0) tile_max = vec::kNaN;  // IEEE: a NaN score makes the whole row NaN

      const float m_old = w.m[qi];
      const float m_new = vec::max_nan(m_old, tile_max);
      float tile_sum = 0.0f;
#pragma omp simd reduction(+ : tile_sum)
      for (int64_t jj = 0; jj < kBlockK; ++jj) {
        const float e = vec::exp_f32(s[jj] - m_new);
        s[jj] = e;
        tile_sum += (jj >= lo && jj <= hi) ? e : 0.0f;
      }
      const float alpha = vec::exp_f32(m_old - m_new);
      w.m[qi] = m_new;
      w.l[qi] = w.l[qi] * alpha + tile_sum;
      accumulate_values(w.o + qi * D, alpha, s, lo, hi, v_tile, v_stride, D);
    }
  }

  for (int64_t qi = 0; qi < nq; ++qi) {
    const KeyRange range = allowed_keys(p, seq, i0 + qi);
    const bool no_key = range.lo > range.hi;
    const float l = w.l[qi];
    const float* of = w.o + qi * D;
    Out* dst = o + ((seq.q_start + i0 + qi) * p.hq + h) * D;
    if (no_key) {
#pragma omp simd
      for (int64_t d = 0; d < D; ++d) dst[d] = vec::from_f32<Out>(0.0f);
    } else {
#pragma omp simd
      for (int64_t d = 0; d < D; ++d) dst[d] = vec::from_f32<Out>(of[d] / l);
    }
    if (lse_row != nullptr) lse_row[i0 + qi] = no_key ? -vec::kInf : w.m[qi] + std::log(l);
  }
}

}  // namespace opcert::cpu::attn
