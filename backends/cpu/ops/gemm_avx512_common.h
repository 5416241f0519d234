// AVX-512 pieces shared by the AVX-512 and AVX512-BF16 GEMM units: the accumulator tile's store
// and the 16 x 16 transposes of packing. Include only from units compiled with AVX-512 flags;
// everything here is static, so no copy of it can stand in for another unit's code at link time.
#pragma once

#include <immintrin.h>

#include <cstdint>

// For the rest of the including unit: GCC 12's AVX-512 intrinsics pass an "undefined" vector to their masked builtins and then warn
// that it is uninitialized (GCC bug 105593); the warnings say nothing about this code.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif


#include "ops/gemm_kernels.h"

namespace opcert::cpu::avx512 {

/// Combines an MR x 32 accumulator tile (two vectors per row) with C as `update` says.
template <int kMr>
static inline void store_tile(__m512 (&acc)[kMr][2], float* c, int64_t ldc, TileUpdate update,
                              const float* row_scale, const float* col_scale) {
  const bool scaled = update == TileUpdate::kScaleStore || update == TileUpdate::kScaleAccumulate;
  const bool accumulate = update == TileUpdate::kAccumulate || update == TileUpdate::kScaleAccumulate;
  const __m512 cs0 = scaled ? _mm512_loadu_ps(col_scale) : _mm512_setzero_ps();
  const __m512 cs1 = scaled ? _mm512_loadu_ps(col_scale + 16) : _mm512_setzero_ps();
#pragma GCC unroll 16
  for (int r = 0; r < kMr; ++r) {
    float* cr = c + r * ldc;
    __m512 p0 = acc[r][0];
    __m512 p1 = acc[r][1];
    if (scaled) {
      const __m512 rs = _mm512_set1_ps(row_scale[r]);
      p0 = _mm512_mul_ps(_mm512_mul_ps(rs, cs0), p0);
      p1 = _mm512_mul_ps(_mm512_mul_ps(rs, cs1), p1);
    }
    if (accumulate) {
      p0 = _mm512_add_ps(_mm512_loadu_ps(cr), p0);
      p1 = _mm512_add_ps(_mm512_loadu_ps(cr + 16), p1);
    }
    _mm512_storeu_ps(cr, p0);
    _mm512_storeu_ps(cr + 16, p1);
  }
}

/// In-register transpose of 16 rows of 16 32-bit lanes: afterwards v[c] holds column c. Only
/// shuffles: the lanes' bits move unchanged, whatever they encode.
static inline void transpose16(__m512 v[16]) {
  __m512 t[16], u[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(v[2 * i], v[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(v[2 * i], v[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {  // u[4i + j]: rows 4i..4i+3 at column 4 * lane + j
    u[4 * i + 0] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    u[4 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
    u[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    u[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
  for (int j = 0; j < 4; ++j) {
    const __m512 even_lo = _mm512_shuffle_f32x4(u[j], u[4 + j], 0x88);
    const __m512 even_hi = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0x88);
    const __m512 odd_lo = _mm512_shuffle_f32x4(u[j], u[4 + j], 0xDD);
    const __m512 odd_hi = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0xDD);
    v[j] = _mm512_shuffle_f32x4(even_lo, even_hi, 0x88);
    v[8 + j] = _mm512_shuffle_f32x4(even_lo, even_hi, 0xDD);
    v[4 + j] = _mm512_shuffle_f32x4(odd_lo, odd_hi, 0x88);
    v[12 + j] = _mm512_shuffle_f32x4(odd_lo, odd_hi, 0xDD);
  }
}

/// Horizontal sum through memory, in a fixed pairwise order (once per dot product).
static inline float hsum(__m512 v) {
  alignas(64) float t[16];
  _mm512_store_ps(t, v);
  for (int width = 8; width >= 1; width /= 2)
    for (int i = 0; i < width; ++i) t[i] += t[i + width];
  return t[0];
}

static inline __mmask16 low_bits(int64_t n) {
  return n >= 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << n) - 1);
}

/// Packs rows through 16 x 16 transposes into panels of R 32-bit lanes per depth step:
/// load(row, step0, mask) returns 16 lanes of one row from depth step step0 on (masked lanes 0).
template <class Load>
static inline void pack_rows_transposed(int64_t rows, int64_t depth, int32_t R, float* dst, Load load) {
  for (int32_t r0 = 0; r0 < R; r0 += 16) {
    const int64_t live = rows - r0 < 0 ? 0 : (rows - r0 > 16 ? 16 : rows - r0);
    const __mmask16 width = low_bits(R - r0 < 16 ? R - r0 : 16);
    for (int64_t k0 = 0; k0 < depth; k0 += 16) {
      const int64_t steps = depth - k0 < 16 ? depth - k0 : 16;
      const __mmask16 k_mask = low_bits(steps);
      __m512 v[16];
      for (int r = 0; r < 16; ++r) v[r] = r < live ? load(r0 + r, k0, k_mask) : _mm512_setzero_ps();
      transpose16(v);
      for (int64_t i = 0; i < steps; ++i) _mm512_mask_storeu_ps(dst + (k0 + i) * R + r0, width, v[i]);
    }
  }
}

/// The lowest n bits set (all 32 from n = 32 on): the live lanes of a tail of n 16-bit elements.
static inline __mmask32 low_bits32(int64_t n) {
  return n >= 32 ? ~__mmask32(0) : static_cast<__mmask32>((1u << n) - 1);
}

/// Calls fixed.template operator()<R>() with R = rows for 1 to 3 and R = 4 otherwise: the dot-row
/// kernels take up to 4 rows at a time, each count its own unrolled instance.
template <class Fixed>
static inline decltype(auto) with_dot_rows(int64_t rows, Fixed&& fixed) {
  switch (rows) {
    case 1: return fixed.template operator()<1>();
    case 2: return fixed.template operator()<2>();
    case 3: return fixed.template operator()<3>();
    default: return fixed.template operator()<4>();
  }
}

}  // namespace opcert::cpu::avx512
