// AVX512-BF16 kernels: a 14 x 32 tile on vdpbf16ps (each fp32 lane adds the exact products of
// one K pair), few-row bf16 dot products for decode, and the packing of bf16 rows into K-pair
// panels. 28 accumulators, two B vectors, one broadcast: 31 of the 32 zmm registers.
//
// vdpbf16ps treats subnormal inputs as zero and flushes subnormal results to zero; otherwise it
// is two fp32 additions rounded to nearest even (measured on Zen 4 against that model). The
// packing and the dot products report the least magnitude they met, so that the caller can keep
// those flushes from ever happening (pair_products_exact, gemm_pack_pairs.h).
//
// Built with -mavx512bf16 (backends/cpu/CMakeLists.txt); called only after
// isa_available(Isa::kAvx512Bf16) said yes. Includes nothing shared with portable units but
// gemm_kernels.h (declarations) and gemm_avx512_common.h (static functions).
#include "ops/gemm_kernels.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512BF16__)
#include <immintrin.h>

#include "ops/gemm_avx512_common.h"

namespace opcert::cpu {
namespace {

constexpr int kMr = 14;
constexpr int kNr = 32;

__m512bh as_pairs(__m512i v) { return reinterpret_cast<__m512bh>(v); }

void pair_tile_14x32(int64_t kc2, const uint32_t* a, const uint32_t* b, float* c, int64_t ldc, TileUpdate update,
                     const float* row_scale, const float* col_scale) {
  __m512 acc[kMr][2];
#pragma GCC unroll 14
  for (int r = 0; r < kMr; ++r) {
    acc[r][0] = _mm512_setzero_ps();
    acc[r][1] = _mm512_setzero_ps();
    // The tile is read at the end: fetch it while the products run (it is often in L3).
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + 16), _MM_HINT_T0);
  }
  for (int64_t q = 0; q < kc2; ++q) {
    const __m512bh b0 = as_pairs(_mm512_loadu_si512(b));
    const __m512bh b1 = as_pairs(_mm512_loadu_si512(b + 16));
    _mm_prefetch(reinterpret_cast<const char*>(a + 8 * kMr), _MM_HINT_T0);
#pragma GCC unroll 14
    for (int r = 0; r < kMr; ++r) {
      const __m512bh ar = as_pairs(_mm512_set1_epi32(static_cast<int>(a[r])));
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], ar, b0);
      acc[r][1] = _mm512_dpbf16_ps(acc[r][1], ar, b1);
    }
    a += kMr;
    b += kNr;
  }
  avx512::store_tile<kMr>(acc, c, ldc, update, row_scale, col_scale);
}

// Running minimum of (magnitude - 1) over 16-bit lanes: zeros wrap to 0xFFFF and drop out.
struct LeastMagnitude {
  __m512i least = _mm512_set1_epi16(-1);
  void add(__m512i bits) {
    const __m512i magnitude = _mm512_and_si512(bits, _mm512_set1_epi16(0x7FFF));
    least = _mm512_min_epu16(least, _mm512_sub_epi16(magnitude, _mm512_set1_epi16(1)));
  }
  uint16_t get() const {  // the least nonzero magnitude, 0 when all were zero
    alignas(64) uint16_t t[32];
    _mm512_store_si512(t, least);
    uint16_t m = t[0];
    for (int i = 1; i < 32; ++i) m = t[i] < m ? t[i] : m;
    return static_cast<uint16_t>(m + 1);
  }
};

template <int R>
uint16_t bf16_dot_rows_fixed(const uint16_t* a, int64_t lda, const uint16_t* b, int64_t n, float* out) {
  __m512 acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  LeastMagnitude least;
  int64_t k = 0;
  for (; k + 64 <= n; k += 64) {
    const __m512i b0 = _mm512_loadu_si512(b + k), b1 = _mm512_loadu_si512(b + k + 32);
    least.add(b0);
    least.add(b1);
    for (int r = 0; r < R; ++r) {
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], as_pairs(_mm512_loadu_si512(a + r * lda + k)), as_pairs(b0));
      acc[r][1] = _mm512_dpbf16_ps(acc[r][1], as_pairs(_mm512_loadu_si512(a + r * lda + k + 32)), as_pairs(b1));
    }
  }
  for (; k < n; k += 32) {
    const __mmask32 live = avx512::low_bits32(n - k);
    const __m512i bv = _mm512_maskz_loadu_epi16(live, b + k);
    least.add(bv);
    for (int r = 0; r < R; ++r)
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], as_pairs(_mm512_maskz_loadu_epi16(live, a + r * lda + k)), as_pairs(bv));
  }
  for (int r = 0; r < R; ++r) out[r] = avx512::hsum(_mm512_add_ps(acc[r][0], acc[r][1]));
  return least.get();
}

uint16_t bf16_dot_rows(const uint16_t* a, int64_t lda, int64_t rows, const uint16_t* b, int64_t n, float* out) {
  return avx512::with_dot_rows(rows, [&]<int R>() { return bf16_dot_rows_fixed<R>(a, lda, b, n, out); });
}

// A K pair is one 32-bit lane: the 16 x 16 transposes of the fp32 packing move pairs unchanged.
uint16_t pack_bf16_pair_rows(const uint16_t* src, int64_t ld, int64_t rows, int64_t kc, int32_t R, uint32_t* dst) {
  LeastMagnitude least;
  const int64_t kc2 = (kc + 1) / 2;
  avx512::pack_rows_transposed(rows, kc2, R, reinterpret_cast<float*>(dst), [&](int64_t r, int64_t q0, __mmask16) {
    const __m512i pairs = _mm512_maskz_loadu_epi16(avx512::low_bits32(kc - 2 * q0), src + r * ld + 2 * q0);
    least.add(pairs);
    return _mm512_castsi512_ps(pairs);
  });
  return least.get();
}

}  // namespace

PairKernel avx512_bf16_pair_kernel() { return {kMr, kNr, pair_tile_14x32, bf16_dot_rows, pack_bf16_pair_rows}; }

}  // namespace opcert::cpu

#else  // built without AVX512-BF16: the fp32 kernels serve bf16 too

namespace opcert::cpu {
PairKernel avx512_bf16_pair_kernel() { return {}; }
}  // namespace opcert::cpu

#endif
