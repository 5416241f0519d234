// AVX-512 micro-kernels: a 14 x 32 fp32 FMA tile and a 14 x 32 int8 VNNI (vpdpbusd) tile, and
// the few-row dot products of decode-shaped GEMMs.
// 28 accumulator registers, two B vectors, one broadcast: 31 of the 32 zmm registers.
// Built with -mavx512f -mavx512vnni ... (backends/cpu/CMakeLists.txt); called only after
// isa_available(Isa::kAvx512) said yes. Includes nothing shared with portable units but
// gemm_kernels.h (declarations only) and gemm_avx512_common.h (static functions only), so no
// inline function compiled here can be picked by the linker for portable code.
#include "ops/gemm_kernels.h"

#if defined(__AVX512F__) && defined(__AVX512VNNI__)
#include <immintrin.h>

#include "ops/gemm_avx512_common.h"

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
  avx512::store_tile<kMr>(acc, c, ldc, update, row_scale, col_scale);
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

using avx512::hsum;

// Horizontal sum with the vector adds' wrap-around (once per dot product).
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
  avx512::with_dot_rows(rows, [&]<int R>() { f32_dot_rows_fixed<R>(a, lda, b, n, out); });
}

// int8 dot products widened to int16 pairs (vpmaddwd): exact int32 sums.
template <int R>
void i8_dot_rows_fixed(const int8_t* a, int64_t lda, const int8_t* b, int64_t n, int32_t* out) {
  __m512i acc[R];
  for (int r = 0; r < R; ++r) acc[r] = _mm512_setzero_si512();
  for (int64_t k = 0; k < n; k += 32) {
    const __mmask32 live = avx512::low_bits32(n - k);
    const __m512i bv = _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(live, b + k));
    for (int r = 0; r < R; ++r) {
      const __m512i av = _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(live, a + r * lda + k));
      acc[r] = _mm512_add_epi32(acc[r], _mm512_madd_epi16(av, bv));
    }
  }
  for (int r = 0; r < R; ++r) out[r] = hsum(acc[r]);
}

void i8_dot_rows(const int8_t* a, int64_t lda, int64_t rows, const int8_t* b, int64_t n, int32_t* out) {
  avx512::with_dot_rows(rows, [&]<int R>() { i8_dot_rows_fixed<R>(a, lda, b, n, out); });
}

void pack_f32_rows(const float* src, int64_t ld, int64_t rows, int64_t kc, int32_t R, float* dst) {
  avx512::pack_rows_transposed(rows, kc, R, dst, [&](int64_t r, int64_t k0, __mmask16 m) {
    return _mm512_maskz_loadu_ps(m, src + r * ld + k0);
  });
}

void pack_bf16_rows(const uint16_t* src, int64_t ld, int64_t rows, int64_t kc, int32_t R, float* dst) {
  avx512::pack_rows_transposed(rows, kc, R, dst, [&](int64_t r, int64_t k0, __mmask16 m) {
    const __m256i half = _mm256_maskz_loadu_epi16(m, src + r * ld + k0);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(half), 16));
  });
}

// vcvtph2ps is exact for every fp16 value, subnormals included.
void pack_fp16_rows(const uint16_t* src, int64_t ld, int64_t rows, int64_t kc, int32_t R, float* dst) {
  avx512::pack_rows_transposed(rows, kc, R, dst, [&](int64_t r, int64_t k0, __mmask16 m) {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, src + r * ld + k0));
  });
}

// Output rounding of the epilogues, 16 values at a time; NaN becomes the SDK's NaN code.
template <class Round>
void store_half_run(const float* values, int64_t n, uint16_t* dst, uint16_t nan_code, Round round) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 live = avx512::low_bits(n - i);
    const __m512 v = _mm512_maskz_loadu_ps(live, values + i);
    const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    const __m256i bits = _mm256_mask_mov_epi16(round(v), nan, _mm256_set1_epi16(static_cast<short>(nan_code)));
    _mm256_mask_storeu_epi16(dst + i, live, bits);
  }
}

// bf16: add 0x7FFF plus the kept lowest bit, truncate (round to nearest even, as f32_to_bf16).
void store_bf16_run(const float* values, int64_t n, uint16_t* dst) {
  store_half_run(values, n, dst, 0x7FC0, [](__m512 v) {
    const __m512i u = _mm512_castps_si512(v);
    const __m512i kept_lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    const __m512i rounded = _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7FFF)), kept_lsb);
    return _mm512_cvtepi32_epi16(_mm512_srli_epi32(rounded, 16));
  });
}

// fp16: vcvtps2ph rounds to nearest even, subnormal results and overflow to infinity included.
void store_fp16_run(const float* values, int64_t n, uint16_t* dst) {
  store_half_run(values, n, dst, 0x7E00,
                 [](__m512 v) { return _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); });
}

}  // namespace

F32Kernel avx512_f32_kernel() {
  return {kMr,           kNr,           f32_tile_14x32, f32_dot_rows,  pack_f32_rows,
          pack_bf16_rows, pack_fp16_rows, store_bf16_run, store_fp16_run};
}
I8Kernel avx512_vnni_i8_kernel() { return {kMr, kNr, i8_tile_14x32, i8_dot_rows}; }

}  // namespace opcert::cpu

#else  // built without AVX-512: the portable kernels serve every CPU

namespace opcert::cpu {
F32Kernel avx512_f32_kernel() { return {0, 0, nullptr, nullptr}; }
I8Kernel avx512_vnni_i8_kernel() { return {0, 0, nullptr, nullptr}; }
}  // namespace opcert::cpu

#endif
