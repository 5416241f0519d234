#include "check/philox_avx2.h"

#include <immintrin.h>

namespace opcert::philox_detail {
namespace {

// The 32 x 32 -> 64-bit products of the eight lanes of `a` by `m`, as their low and high halves.
__attribute__((target("avx2"))) inline void multiply(__m256i a, __m256i m, __m256i& lo, __m256i& hi) {
  const __m256i even = _mm256_mul_epu32(a, m);                         // lanes 0, 2, 4, 6
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);  // lanes 1, 3, 5, 7
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
}

// Four unsigned 32-bit lanes as exact doubles: 2^52 + x has x in its mantissa.
__attribute__((target("avx2"))) inline __m256d to_double(__m128i x) {
  const __m256i wide = _mm256_cvtepu32_epi64(x);
  const __m256i magic = _mm256_set1_epi64x(0x4330000000000000LL);
  return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(wide, magic)), _mm256_castsi256_pd(magic));
}

}  // namespace

bool cpu_has_avx2() { return __builtin_cpu_supports("avx2"); }

__attribute__((target("avx2"))) void uniform_block_avx2(uint32_t k0, uint32_t k1, uint64_t first, std::size_t n,
                                                        uint32_t draw, double* out) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u, kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(kMul0));
  const __m256i m1 = _mm256_set1_epi32(static_cast<int>(kMul1));
  const __m256d two21 = _mm256_set1_pd(0x1.0p21), two_minus53 = _mm256_set1_pd(0x1.0p-53);
  alignas(32) uint32_t lo_words[8], hi_words[8];
  for (std::size_t base = 0; base < n; base += 8) {
    for (int j = 0; j < 8; ++j) {  // the counters' 64-bit indices: a block may cross 2^32
      const uint64_t index = first + base + static_cast<uint64_t>(j);
      lo_words[j] = static_cast<uint32_t>(index);
      hi_words[j] = static_cast<uint32_t>(index >> 32);
    }
    __m256i c0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(lo_words));
    __m256i c1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(hi_words));
    __m256i c2 = _mm256_set1_epi32(static_cast<int>(draw));
    __m256i c3 = _mm256_setzero_si256();
    uint32_t key0 = k0, key1 = k1;
    for (int round = 0; round < 10; ++round) {
      __m256i lo0, hi0, lo1, hi1;
      multiply(c0, m0, lo0, hi0);
      multiply(c2, m1, lo1, hi1);
      const __m256i k0v = _mm256_set1_epi32(static_cast<int>(key0)), k1v = _mm256_set1_epi32(static_cast<int>(key1));
      c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), k0v);
      c1 = lo1;
      c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), k1v);
      c3 = lo0;
      key0 += kWeyl0;
      key1 += kWeyl1;
    }
    // bits = c0 << 32 | c1; uniform = (bits >> 11) * 2^-53 = (c0 * 2^21 + (c1 >> 11)) * 2^-53, each
    // term and the sum exact (an integer under 2^53), the scaling by a power of two exact.
    const __m256i low21 = _mm256_srli_epi32(c1, 11);
    for (int half = 0; half < 2; ++half) {
      const __m128i high = half == 0 ? _mm256_castsi256_si128(c0) : _mm256_extracti128_si256(c0, 1);
      const __m128i low = half == 0 ? _mm256_castsi256_si128(low21) : _mm256_extracti128_si256(low21, 1);
      const __m256d sum = _mm256_add_pd(_mm256_mul_pd(to_double(high), two21), to_double(low));
      _mm256_storeu_pd(out + base + static_cast<std::size_t>(half) * 4, _mm256_mul_pd(sum, two_minus53));
    }
  }
}

}  // namespace opcert::philox_detail
