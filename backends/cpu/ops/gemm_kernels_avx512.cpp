// AVX-512 micro-kernels: a 14 x 32 fp32 FMA tile and a 14 x 32 int8 VNNI (vpdpbusd) tile, and
// the few-row dot products of decode-shaped GEMMs.
// 28 accumulator registers, two B vectors, one broadcast: 31 of the 32 zmm registers.
// Built with -mavx512f -mavx512vnni ... (backends/cpu/CMakeLists.txt); called only after
// isa_available(Isa::kAvx512) said yes. Includes nothing shared with portable units but
// gemm_kernels.h (declarations only), so no inline function compiled here can be picked by the
// linker for portable code.
#include "ops/gemm_kernels.h"

#if defined(__AVX512F__) && defined(__AVX512VNNI__)
#include <immintrin.h>

// GCC 12's AVX-512 intrinsics pass an "undefined" vector to their masked builtins and then warn
// that it is uninitialized (GCC bug 105593); the warnings say nothing about this code.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace opcert::cpu {
namespace {

constexpr int kMr = 14;
constexpr int kNr = 32;

void f32_tile_14x32(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, TileUpdate update,
                    const float* row_scale, const float* col_scale) {
  __m512 acc[kMr][2];
#pragma GCC unroll 14
  for (int r = 0; r < kMr; ++r) {
    acc[r][0] = _mm512_setzero_ps();
    acc[r][1] = _mm512_setzero_ps();
  }
  for (int64_t k = 0; k < kc; ++k) {
    const __m512 b0 = _mm512_loadu_ps(b);
    const __m512 b1 = _mm512_loadu_ps(b + 16);
    _mm_prefetch(reinterpret_cast<const char*>(a + 8 * kMr), _MM_HINT_T0);
#pragma GCC unroll 14
    for (int r = 0; r < kMr; ++r) {
      const __m512 ar = _mm512_set1_ps(a[r]);
      acc[r][0] = _mm512_fmadd_ps(ar, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(ar, b1, acc[r][1]);
    }
    a += kMr;
    b += kNr;
  }
  const bool scaled = update == TileUpdate::kScaleStore || update == TileUpdate::kScaleAccumulate;
  const bool accumulate = update == TileUpdate::kAccumulate || update == TileUpdate::kScaleAccumulate;
  const __m512 cs0 = scaled ? _mm512_loadu_ps(col_scale) : _mm512_setzero_ps();
  const __m512 cs1 = scaled ? _mm512_loadu_ps(col_scale + 16) : _mm512_setzero_ps();
#pragma GCC unroll 14
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

void i8_tile_14x32(int64_t kc4, const uint32_t* a, const uint32_t* b, int32_t* c, int64_t ldc, int32_t accumulate) {
  __m512i acc[kMr][2];
#pragma GCC unroll 14
  for (int r = 0; r < kMr; ++r) {
    acc[r][0] = _mm512_setzero_si512();
    acc[r][1] = _mm512_setzero_si512();
  }
  for (int64_t k = 0; k < kc4; ++k) {
    const __m512i b0 = _mm512_loadu_si512(b);
    const __m512i b1 = _mm512_loadu_si512(b + 16);
#pragma GCC unroll 14
    for (int r = 0; r < kMr; ++r) {
      const __m512i ar = _mm512_set1_epi32(static_cast<int>(a[r]));
      acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], ar, b0);
      acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], ar, b1);
    }
    a += kMr;
    b += kNr;
  }
#pragma GCC unroll 14
  for (int r = 0; r < kMr; ++r) {
    int32_t* cr = c + r * ldc;
    __m512i p0 = acc[r][0];
    __m512i p1 = acc[r][1];
    if (accumulate != 0) {
      p0 = _mm512_add_epi32(_mm512_loadu_si512(cr), p0);
      p1 = _mm512_add_epi32(_mm512_loadu_si512(cr + 16), p1);
    }
    _mm512_storeu_si512(cr, p0);
    _mm512_storeu_si512(cr + 16, p1);
  }
}

// Horizontal sums through memory, in a fixed pairwise order (once per dot product).
float hsum(__m512 v) {
  alignas(64) float t[16];
  _mm512_store_ps(t, v);
  for (int width = 8; width >= 1; width /= 2)
    for (int i = 0; i < width; ++i) t[i] += t[i + width];
  return t[0];
}

int32_t hsum(__m512i v) {
  alignas(64) int32_t t[16];
  _mm512_store_si512(t, v);
  uint32_t sum = 0;  // wraps like the vector adds
  for (int i = 0; i < 16; ++i) sum += static_cast<uint32_t>(t[i]);
  return static_cast<int32_t>(sum);
}

template <int R>
void f32_dot_rows_fixed(const float* a, int64_t lda, const float* b, int64_t n, float* out) {
  __m512 acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  int64_t k = 0;
  for (; k + 32 <= n; k += 32) {
    const __m512 b0 = _mm512_loadu_ps(b + k), b1 = _mm512_loadu_ps(b + k + 16);
    for (int r = 0; r < R; ++r) {
      acc[r][0] = _mm512_fmadd_ps(_mm512_loadu_ps(a + r * lda + k), b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(_mm512_loadu_ps(a + r * lda + k + 16), b1, acc[r][1]);
    }
  }
  for (; k < n; k += 16) {
    const __mmask16 live = n - k >= 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << (n - k)) - 1);
    const __m512 bv = _mm512_maskz_loadu_ps(live, b + k);
    for (int r = 0; r < R; ++r) acc[r][0] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(live, a + r * lda + k), bv, acc[r][0]);
  }
  for (int r = 0; r < R; ++r) out[r] = hsum(_mm512_add_ps(acc[r][0], acc[r][1]));
}

void f32_dot_rows(const float* a, int64_t lda, int64_t rows, const float* b, int64_t n, float* out) {
  switch (rows) {
    case 1: return f32_dot_rows_fixed<1>(a, lda, b, n, out);
    case 2: return f32_dot_rows_fixed<2>(a, lda, b, n, out);
    case 3: return f32_dot_rows_fixed<3>(a, lda, b, n, out);
    default: return f32_dot_rows_fixed<4>(a, lda, b, n, out);
  }
}

// int8 dot products widened to int16 pairs (vpmaddwd): exact int32 sums.
template <int R>
void i8_dot_rows_fixed(const int8_t* a, int64_t lda, const int8_t* b, int64_t n, int32_t* out) {
  __m512i acc[R];
  for (int r = 0; r < R; ++r) acc[r] = _mm512_setzero_si512();
  for (int64_t k = 0; k < n; k += 32) {
    const __mmask32 live = n - k >= 32 ? ~__mmask32(0) : static_cast<__mmask32>((1u << (n - k)) - 1);
    const __m512i bv = _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(live, b + k));
    for (int r = 0; r < R; ++r) {
      const __m512i av = _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(live, a + r * lda + k));
      acc[r] = _mm512_add_epi32(acc[r], _mm512_madd_epi16(av, bv));
    }
  }
  for (int r = 0; r < R; ++r) out[r] = hsum(acc[r]);
}

void i8_dot_rows(const int8_t* a, int64_t lda, int64_t rows, const int8_t* b, int64_t n, int32_t* out) {
  switch (rows) {
    case 1: return i8_dot_rows_fixed<1>(a, lda, b, n, out);
    case 2: return i8_dot_rows_fixed<2>(a, lda, b, n, out);
    case 3: return i8_dot_rows_fixed<3>(a, lda, b, n, out);
    default: return i8_dot_rows_fixed<4>(a, lda, b, n, out);
  }
}

// In-register transpose of 16 rows of 16 floats: afterwards v[c] holds column c.
void transpose16(__m512 v[16]) {
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

__mmask16 low_bits(int64_t n) { return n >= 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << n) - 1); }

// Packs rows through 16 x 16 transposes; load(row, k0, mask) returns 16 floats of one row.
template <class Load>
void pack_rows_transposed(int64_t rows, int64_t kc, int32_t R, float* dst, Load load) {
  for (int32_t r0 = 0; r0 < R; r0 += 16) {
    const int64_t live = rows - r0 < 0 ? 0 : (rows - r0 > 16 ? 16 : rows - r0);
    const __mmask16 width = low_bits(R - r0 < 16 ? R - r0 : 16);
    for (int64_t k0 = 0; k0 < kc; k0 += 16) {
      const int64_t depth = kc - k0 < 16 ? kc - k0 : 16;
      const __mmask16 k_mask = low_bits(depth);
      __m512 v[16];
      for (int r = 0; r < 16; ++r) v[r] = r < live ? load(r0 + r, k0, k_mask) : _mm512_setzero_ps();
      transpose16(v);
      for (int64_t i = 0; i < depth; ++i) _mm512_mask_storeu_ps(dst + (k0 + i) * R + r0, width, v[i]);
    }
  }
}

void pack_f32_rows(const float* src, int64_t ld, int64_t rows, int64_t kc, int32_t R, float* dst) {
  pack_rows_transposed(rows, kc, R, dst, [&](int64_t r, int64_t k0, __mmask16 m) {
    return _mm512_maskz_loadu_ps(m, src + r * ld + k0);
  });
}

void pack_bf16_rows(const uint16_t* src, int64_t ld, int64_t rows, int64_t kc, int32_t R, float* dst) {
  pack_rows_transposed(rows, kc, R, dst, [&](int64_t r, int64_t k0, __mmask16 m) {
    const __m256i half = _mm256_maskz_loadu_epi16(m, src + r * ld + k0);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(half), 16));
  });
}

}  // namespace

F32Kernel avx512_f32_kernel() { return {kMr, kNr, f32_tile_14x32, f32_dot_rows, pack_f32_rows, pack_bf16_rows}; }
I8Kernel avx512_vnni_i8_kernel() { return {kMr, kNr, i8_tile_14x32, i8_dot_rows}; }

}  // namespace opcert::cpu

#else  // built without AVX-512: the portable kernels serve every CPU

namespace opcert::cpu {
F32Kernel avx512_f32_kernel() { return {0, 0, nullptr, nullptr}; }
I8Kernel avx512_vnni_i8_kernel() { return {0, 0, nullptr, nullptr}; }
}  // namespace opcert::cpu

#endif
